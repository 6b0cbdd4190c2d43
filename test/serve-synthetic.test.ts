/**
 * Binlogs made to order, served to a real MariaDB replica: a BinlogWriter file, and an edited dump of it
 * (a value changed, a transaction taken out) served from its JSON lines as `--from-jsonl` serves them.
 * The replica ends with exactly the rows intended.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { eventFromJson } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { Wire } from '../replication/wire.js';
import { serveBinlog, type BinlogServer, type ServedBinlogs } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 180_000;
const WAIT_MS = 60_000;

function synthetic(): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000 });
  w.createDatabase('synth');
  const t = w.createTable({
    schema: 'synth',
    name: 't',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'v', type: 'varchar(20)' },
    ],
    primaryKey: 'id',
  });
  w.insert(t, [
    { id: 1, v: 'a' },
    { id: 2, v: 'b' },
  ]).commit();
  w.update(t, [
    [
      { id: 1, v: 'a' },
      { id: 1, v: 'A' },
    ],
  ]).commit();
  w.delete(t, [{ id: 2, v: 'b' }]).commit();
  w.insert(t, [{ id: 3, v: 'c' }]).commit();
  return w.end().toBytes();
}

async function status(replica: MariadbServer): Promise<Record<string, unknown>> {
  const wire = await Wire.open({ socketPath: replica.socket, user: 'root' });
  try {
    return (await wire.query('SHOW SLAVE STATUS'))[0] ?? {};
  } finally {
    wire.close();
  }
}

describeWithServer('binlogs made to order, applied by a real MariaDB replica', () => {
  let replica: MariadbServer;
  let dir: string;
  beforeAll(async () => {
    replica = await startMariadb({ extraArgs: ['--server-id=2'] });
    dir = mkdtempSync(join(tmpdir(), 'serve-synthetic-'));
  }, TIMEOUT);
  afterAll(async () => {
    await replica?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  /** Serves `binlogs`, points the replica at them from the start, and gives its rows once they are `want`. */
  async function applied(
    binlogs: ServedBinlogs,
    file: string,
    want: (string | null)[][],
  ): Promise<(string | null)[][]> {
    const served: BinlogServer = await serveBinlog(binlogs, { log: (m) => console.log(m) });
    try {
      await replica.sql(`STOP SLAVE; RESET SLAVE ALL; DROP DATABASE IF EXISTS synth;
        CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${served.port}, MASTER_USER='cdc', \
MASTER_LOG_FILE='${file}', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1;
        START SLAVE;`);
      const until = Date.now() + WAIT_MS;
      for (;;) {
        const rows = await replica.query('SELECT id, v FROM synth.t ORDER BY id').catch(() => []);
        if (JSON.stringify(rows) === JSON.stringify(want) || Date.now() > until) {
          const s = await status(replica);
          expect({ io: s.Last_IO_Error, sql: s.Last_SQL_Error }).toEqual({ io: '', sql: '' });
          return rows;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await replica.sql('STOP SLAVE');
      await served.close();
    }
  }

  it(
    'applies a BinlogWriter binlog served from its file',
    async () => {
      const path = join(dir, 'binlog.000001');
      writeFileSync(path, synthetic());
      const want = [
        ['1', 'A'],
        ['3', 'c'],
      ];
      expect(await applied({ files: [path] }, 'binlog.000001', want)).toEqual(want);
    },
    TIMEOUT,
  );

  it(
    'applies an edited dump served from its JSON lines: a value changed, a transaction taken out',
    async () => {
      const lines = decodeBinlog(synthetic()).map((e) => toJsonLine(e));
      // The DELETE's transaction, from its GTID to its XID, taken out: row 2 stays.
      const del = lines.findIndex((l) => l.includes('"type":"DELETE_ROWS'));
      const from = lines.findLastIndex((l, i) => i < del && l.includes('"type":"GTID_EVENT"'));
      const to = lines.findIndex((l, i) => i > del && l.includes('"type":"XID_EVENT"'));
      expect([from, del, to].every((i) => i > 0)).toBe(true);
      const edited = [...lines.slice(0, from), ...lines.slice(to + 1)].map((l) =>
        l.includes('"type":"WRITE_ROWS') && l.includes('"c"') ? l.replace('"c"', '"edited"') : l,
      );
      expect(edited.filter((l) => l.includes('"edited"'))).toHaveLength(1);
      async function* events() {
        for (const l of edited) yield eventFromJson(JSON.parse(l));
      }
      const want = [
        ['1', 'A'],
        ['2', 'b'],
        ['3', 'edited'],
      ];
      expect(await applied({ events: events() }, 'binlog.000001', want)).toEqual(want);
    },
    TIMEOUT,
  );
});
