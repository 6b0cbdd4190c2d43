/**
 * A dump that reconnects against a real MariaDB server: its dump thread KILLed, the server restarted,
 * while a writer runs; the rows the consumer sees are the server's table, each once. A server that stops
 * answering (SIGSTOP) is taken as lost at twice the heartbeat period.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventTypes } from '../generated/events.js';
import { BINLOG_MAGIC, EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConnectionError, GaveUpError } from '../runtime/core/errors.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { connectBinlog, connectBinlogFrames, type BinlogStream, type LiveOptions } from '../replication/client.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;
/** Ids of the large transaction's rows start past this; the small ones stay under it. */
const LARGE = 100_000;
/** 3000 rows of 4000 bytes: 12 MB, far more than the 4 MiB the client queues, so a loss cuts it. */
const LARGE_ROWS = 3000;
const MARKER = 999_999;

/** The workload's transactions: `n` small ones of two statements from id `from`, as SQL. */
function small(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => {
    const id = from + i * 3;
    return (
      `BEGIN; INSERT INTO w.t VALUES (${id}, 'a${id}'), (${id + 1}, 'b${id}'); INSERT INTO w.t VALUES ` +
      `(${id + 2}, 'c${id}'); COMMIT;`
    );
  }).join('\n');
}

const large = (from: number) =>
  `INSERT INTO w.t SELECT ${from} + seq, REPEAT(CHAR(65 + seq % 26), 4000) FROM seq_1_to_${LARGE_ROWS};`;

/** The rows written, as the consumer saw them: id, value, and how many reconnects had happened. */
interface Seen {
  id: number;
  v: string;
  reconnects: number;
}

/** Reads the stream until the marker row, collecting every row written; `onRow` may act (and wait) mid-stream. */
async function consume(stream: BinlogStream, onRow: (row: Seen) => Promise<void> = async () => {}): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const e of stream) {
    for (const after of insertedRows(e)) {
      const row = { id: Number(after.id), v: String(after.v), reconnects: stream.reconnects };
      seen.push(row);
      await onRow(row);
      if (row.id === MARKER) return seen;
    }
  }
  throw new Error('the stream ended before the marker row');
}

function insertedRows(e: BinlogEvent): Record<string, unknown>[] {
  if (e.type !== 'WRITE_ROWS_EVENT_V1' && e.type !== 'WRITE_ROWS_EVENT') return [];
  return e.rows!.map((r) => (r as { after: Record<string, unknown> }).after);
}

const digest = (rows: { id: number; v: string }[]) =>
  createHash('sha256')
    .update(
      [...rows]
        .sort((a, b) => a.id - b.id)
        .map((r) => `${r.id}\t${r.v}\n`)
        .join(''),
    )
    .digest('hex');

describeWithServer('live replication that reconnects', () => {
  let server: MariadbServer;
  const options = (more: Partial<LiveOptions> = {}): LiveOptions => ({
    socketPath: server.socket,
    user: 'root',
    reconnect: { delay: 0.1, maxDelay: 1, retries: 100 },
    heartbeatPeriod: 1,
    ...more,
  });

  /** The server's table, as the consumer must have seen it: count and digest. */
  async function table(): Promise<{ count: number; digest: string }> {
    const rows = (await server.query('SELECT id, v FROM w.t')).map(([id, v]) => ({ id: Number(id), v: v! }));
    return { count: rows.length, digest: digest(rows) };
  }

  async function killDumpThreads(): Promise<void> {
    const ids = await server.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'");
    expect(ids.length).toBe(1);
    await server.sql(`KILL ${ids[0]![0]}`);
  }

  beforeAll(async () => {
    server = await startMariadb();
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    'a KILLed dump thread: the dump goes on from the last transaction read, a transaction cut mid-way handed out once',
    async () => {
      await server.sql('CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT);');
      const stream = connectBinlog(options({ file: 'binlog.000001' }));
      const writer = (async () => {
        await server.sql(small(1, 30));
        await server.sql(large(LARGE), 'w');
        await server.sql(small(1000, 30));
        await server.sql(`INSERT INTO w.t VALUES (${MARKER}, 'end')`);
      })();
      let killedSmall = false;
      let killedLarge = false;
      const consumer = consume(stream, async (row) => {
        // Inside a small transaction, and at the first row of the large one: most of it not yet sent.
        if (row.id === 31 && !killedSmall) {
          killedSmall = true;
          await killDumpThreads();
        }
        if (row.id > LARGE && !killedLarge) {
          killedLarge = true;
          await killDumpThreads();
        }
      });
      const [seen] = await Promise.all([consumer, writer]);
      stream.close();
      expect(stream.reconnects).toBe(2);
      // The large transaction's rows came over two connections: the loss cut it.
      const largeRows = seen.filter((r) => r.id > LARGE && r.id < MARKER);
      expect(new Set(largeRows.map((r) => r.reconnects))).toEqual(new Set([1, 2]));
      expect(largeRows.length).toBe(LARGE_ROWS);
      expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
      expect({ count: seen.length, digest: digest(seen) }).toEqual(await table());
    },
    TIMEOUT,
  );

  it(
    'a server restarted while the consumer runs: every row once, the dump going on into the file the server starts',
    async () => {
      await server.sql('DROP DATABASE w; CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT);');
      const [status] = await server.query('SHOW MASTER STATUS');
      const stream = connectBinlog(options({ file: status![0]!, position: Number(status![1]) }));
      const consumer = consume(stream);
      const writer = (async () => {
        await server.sql(small(1, 20));
        await server.sql(large(LARGE), 'w');
        await server.restart();
        await server.sql(small(1000, 20));
        await server.sql(`INSERT INTO w.t VALUES (${MARKER}, 'end')`);
      })();
      const [seen] = await Promise.all([consumer, writer]);
      stream.close();
      expect(stream.reconnects).toBeGreaterThanOrEqual(1);
      expect(seen.at(-1)).toMatchObject({ id: MARKER });
      expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
      expect({ count: seen.length, digest: digest(seen) }).toEqual(await table());
    },
    TIMEOUT,
  );

  it(
    'frames reconnected after a KILL inside a large transaction go on right after the last frame: ' +
      'the file byte for byte',
    async () => {
      await server.sql('DROP DATABASE IF EXISTS f; CREATE DATABASE f; CREATE TABLE f.t (id INT PRIMARY KEY, v TEXT);');
      await server.flushLogs();
      const [[file]] = (await server.query('SHOW MASTER STATUS')) as [[string]];
      await server.sql(large(LARGE).replace('w.t', 'f.t'), 'f');
      const dump = connectBinlogFrames({ ...options({ file }), until: 'file' });
      const chunks: Uint8Array[] = [BINLOG_MAGIC];
      let killed = false;
      for await (const f of dump) {
        if (f.notInFile) continue;
        chunks.push(f.bytes);
        // The first rows of the 12 MB transaction: most of it not yet sent.
        if (f.typeCode === EventTypes.WRITE_ROWS_EVENT_V1 && !killed) {
          killed = true;
          await killDumpThreads();
        }
      }
      expect(killed).toBe(true);
      const original = readFileSync(join(server.datadir, file));
      // The file is still open: compared as it will be once closed, without the in-use flag.
      original[4 + EventHeaderOffsets.flags] &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
      expect(Buffer.concat(chunks).equals(original)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'an idle dump is kept by heartbeats: no reconnect while they come',
    async () => {
      const stream = connectBinlog(options({ heartbeatPeriod: 0.2 }));
      let heartbeats = 0;
      for await (const e of stream) if (e.notInFile === 'heartbeat' && ++heartbeats === 8) break;
      expect(stream.reconnects).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'a server that stops answering is lost at twice the heartbeat period (at least 1 s), ' +
      'and the reconnect gives up as told',
    async () => {
      const stream = connectBinlog(
        options({ heartbeatPeriod: 0.5, connectTimeout: 1000, reconnect: { retries: 1, delay: 0.1 } }),
      );
      let error: unknown;
      try {
        for await (const e of stream) {
          // Waiting at the end of the log: freeze the server.
          if (e.type === 'FORMAT_DESCRIPTION_EVENT') process.kill(server.pid, 'SIGSTOP');
        }
      } catch (e) {
        error = e;
      } finally {
        process.kill(server.pid, 'SIGCONT');
      }
      expect(error).toBeInstanceOf(GaveUpError);
      const gaveUp = error as GaveUpError;
      expect(gaveUp.attempts).toBe(1);
      // The one attempt found no handshake either.
      expect(gaveUp.lastError).toBeInstanceOf(ConnectionError);
      expect(gaveUp.message).toMatch(/^gave up reconnecting after 1 attempt in \d+\.\d s: /);
      expect(stream.reconnects).toBe(0);

      // Without reconnecting, the silence itself is the error, and says how long it waited.
      const once = connectBinlog(options({ heartbeatPeriod: 0.5, reconnect: false }));
      let silence: unknown;
      try {
        for await (const e of once) if (e.type === 'FORMAT_DESCRIPTION_EVENT') process.kill(server.pid, 'SIGSTOP');
      } catch (e) {
        silence = e;
      } finally {
        process.kill(server.pid, 'SIGCONT');
      }
      expect(silence).toBeInstanceOf(ConnectionError);
      expect((silence as Error).message).toBe(
        'nothing came from the server for 1 s, twice its heartbeat period: the connection is taken as lost',
      );
    },
    TIMEOUT,
  );
});
