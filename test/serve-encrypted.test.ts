/**
 * `serveBinlog` of real MariaDB encrypt_binlog files (AES_CBC and AES_CTR, key 1 among other key ids) with their
 * key file, as a primary serves them: a real MariaDB replica applies them and ends with the primary's tables; our
 * own client reads the events decrypted at the file's offsets, from the start and from a later position (the
 * START_ENCRYPTION resent, never decrypted again); without the key, or with a wrong one, the files are refused by
 * a sentence that names the key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventFlags } from '../generated/header.js';
import { connectBinlog } from '../replication/client.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { parseKeyFile } from '../runtime/events/encryption.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { serveBinlog, UnservableError, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { caughtUp } from './support/replica.js';
import { joinedRegExp } from './support/regex.js';

const TIMEOUT = 240_000;

interface Primary {
  name: 'cbc' | 'ctr';
  keys: string;
  server?: MariadbServer;
  served?: BinlogServer;
}

const PRIMARIES: Primary[] = [
  { name: 'cbc', keys: `2;${'11'.repeat(16)}\n1;${'c1'.repeat(32)}\n3;${'33'.repeat(24)}\n` },
  { name: 'ctr', keys: `# binlogs use key 1\n1;${'7e'.repeat(24)}\n9;${'99'.repeat(32)}\n` },
];

/** Each primary writes its own database, so that one replica takes both. */
function work(db: string, seed: number): string {
  const rows = Array.from(
    { length: 15 },
    (_, i) => `(${seed * 100 + i}, 'row ${seed}-${i} ünï', ${i}.5, '{"k": [${i}, ${seed}]}', REPEAT(x'a5', ${i * 7}))`,
  );
  return `
    INSERT INTO ${db}.item VALUES ${rows.join(', ')};
    BEGIN;
    UPDATE ${db}.item SET price = price * 2, name = CONCAT(name, ' u') WHERE id % 3 = ${seed % 3};
    DELETE FROM ${db}.item WHERE id % 7 = ${seed % 7} AND id >= ${seed * 100};
    COMMIT;
  `;
}

const tmp = mkdtempSync(join(tmpdir(), 'binlog-serve-encrypted-'));
const keyFile = (p: Primary) => join(tmp, `${p.name}.keys`);
const table = (p: Primary) => `${p.name}.item`;

async function startPrimary(p: Primary): Promise<void> {
  writeFileSync(keyFile(p), p.keys);
  p.server = await startMariadb({
    extraArgs: [
      '--plugin-load-add=file_key_management',
      `--file-key-management-filename=${keyFile(p)}`,
      `--file-key-management-encryption-algorithm=AES_${p.name.toUpperCase()}`,
      '--encrypt-binlog=ON',
    ],
  });
  await p.server.sql(
    `CREATE DATABASE ${p.name}; CREATE TABLE ${table(p)} (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), ` +
      `doc JSON, b BLOB);` +
      work(p.name, 1),
  );
  await p.server.flushLogs();
  await p.server.sql(work(p.name, 2) + work(p.name, 3));
}

const keysOf = (p: Primary) => parseKeyFile(readFileSync(keyFile(p)));

describeWithServer('serveBinlog of MariaDB encrypt_binlog files, with their key file', () => {
  let replica: MariadbServer;

  beforeAll(async () => {
    [replica] = await Promise.all([startMariadb({ extraArgs: ['--server-id=2'] }), ...PRIMARIES.map(startPrimary)]);
    for (const p of PRIMARIES)
      p.served = await serveBinlog({ files: [p.server!.datadir] }, { keys: keysOf(p), log: (m) => console.log(m) });
  }, TIMEOUT);
  afterAll(async () => {
    for (const p of PRIMARIES) await p.served?.close();
    await Promise.all([replica?.stop(), ...PRIMARIES.map((p) => p.server?.stop())]);
    rmSync(tmp, { recursive: true, force: true });
  }, TIMEOUT);

  it(
    'a real MariaDB replica applies the AES_CBC primary, then the AES_CTR one, ending with their tables',
    async () => {
      for (const p of PRIMARIES) {
        const first = (await p.server!.binlogFiles())[0]!.split('/').at(-1);
        await replica.sql(
          `STOP SLAVE; RESET SLAVE ALL; CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${p.served!.port}, ` +
            `MASTER_USER='repl', MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1, MASTER_LOG_FILE='${first}', ` +
            `MASTER_LOG_POS=4, MASTER_USE_GTID=no; START SLAVE;`,
        );
        await caughtUp(p.server!, replica, [table(p)]);
        const count = await replica.query(`SELECT COUNT(*) FROM ${table(p)}`);
        expect(Number(count[0]![0])).toBeGreaterThan(20);
      }
    },
    TIMEOUT,
  );

  it.each(PRIMARIES.map((p) => [p.name, p] as const))(
    '%s: our client reads the events decrypted at the offsets of the file, from its start and from a later event',
    async (_, p) => {
      const files = await p.server!.binlogFiles();
      const keys = keysOf(p);
      const name = files[0]!.split('/').at(-1)!;
      const inFile = decodeBinlog(new Uint8Array(readFileSync(files[0]!)), { keys, file: name });
      const start = inFile.find((e) => e.type === 'START_ENCRYPTION_EVENT')!;
      // A server writes its START_ENCRYPTION without the flag that a primary adds as it sends it.
      expect((start.header.flags ?? 0) & EventFlags.LOG_EVENT_IGNORABLE_F).toBe(0);
      const after = inFile.filter((e) => e.pos > start.pos);
      expect(after.filter((e) => /_ROWS_EVENT/.test(e.type)).length).toBeGreaterThan(2);
      const read = async (position: number) => {
        const got: BinlogEvent[] = [];
        const at = { host: '127.0.0.1', port: p.served!.port, user: 'cdc', heartbeatPeriod: 0 };
        for await (const e of connectBinlog({ ...at, file: name, position, until: 'logs' })) {
          if (e.file !== name) break;
          got.push(e);
        }
        return got;
      };
      const fromStart = await read(4);
      const sentStart = fromStart.find((e) => e.type === 'START_ENCRYPTION_EVENT')!;
      expect((sentStart.header.flags ?? 0) & EventFlags.LOG_EVENT_IGNORABLE_F).toBe(EventFlags.LOG_EVENT_IGNORABLE_F);
      expect([sentStart.pos, sentStart.header.logPos]).toEqual([start.pos, start.header.logPos]);
      const lines = (events: BinlogEvent[]) => events.filter((e) => !e.notInFile).map((e) => toJsonLine(e));
      expect(lines(fromStart.filter((e) => e.pos > start.pos))).toEqual(lines(after));
      // From the third event after the start: the START_ENCRYPTION comes again, with log_pos 0, and what follows
      // is read in clear.
      const later = after[3]!;
      const fromLater = await read(later.pos);
      const again = fromLater.find((e) => e.type === 'START_ENCRYPTION_EVENT')!;
      expect(again.header.logPos).toBe(0);
      expect(lines(fromLater.filter((e) => e.pos >= later.pos))).toEqual(lines(after.slice(3)));
    },
    TIMEOUT,
  );

  it(
    'refuses the files without the key, or with a key that does not decrypt them, naming the key',
    async () => {
      const p = PRIMARIES[0]!;
      const files = { files: [p.server!.datadir] };
      const refusal = (options: Parameters<typeof serveBinlog>[1]) =>
        serveBinlog(files, options).then(
          async (s) => (await s.close(), 'served'),
          (e: unknown) => (e instanceof UnservableError ? e.message : `not refused: ${String(e)}`),
        );
      expect(await refusal({})).toMatch(
        joinedRegExp(
          /^binlog\.000001 is encrypted \(MariaDB encrypt_binlog, START_ENCRYPTION at \d+\) /,
          /with key id 1 \(version 1\), and its events are served decrypted: give a key file /,
          /that holds key 1 \(--key-file\)$/,
        ),
      );
      const wrong = new Map([[1, new Uint8Array(32).fill(0x5a)]]);
      expect(await refusal({ keys: wrong })).toMatch(
        joinedRegExp(
          /^binlog\.000001: key 1 \(version 1\) of the key file does not decrypt the event at /,
          /\d+: its checksum fails after decryption/,
        ),
      );
    },
    TIMEOUT,
  );
});
