/**
 * The stream equals the file, for the whole workload against a real MariaDB server: a column of
 * every type, DDL, multi-statement transactions, XA (two-phase, one-phase, rolled back), a transaction far
 * larger than max_binlog_size (so the server rotates after it), with binlog_row_metadata FULL and then
 * NO_LOG. Every event the dump sends that is in a file equals the file's event, field for field, and the
 * frames written as `--raw` writes them are the server's files byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTableSql, describeTable } from '../builder/index.js';
import { EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { readBinlog } from '../runtime/io/stream.js';
import { connectBinlog, connectBinlogFrames } from '../replication/client.js';
import { RawArchive } from '../bin/remote.js';
import { EVERY_TYPE_COLUMNS } from './support/every-type.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 180_000;
const MAX_BINLOG_SIZE = 4096;

/** One row of extremes in every column, as SQL literals in EVERY_TYPE_COLUMNS' order. */
const EXTREMES = [
  '1',
  '-128',
  '255',
  '-32768',
  '65535',
  '-8388608',
  '16777215',
  '-2147483648',
  '-9223372036854775808',
  '18446744073709551615',
  '3.4e38',
  '-1.7976931348623157e308',
  "'-12345678901234567890123456789012345.123456789012345678901234567890'",
  '999.99',
  "'1000-01-01'",
  "'-838:59:59'",
  "'-00:00:01.500'",
  "'-01:02:03.000004'",
  "'1000-01-01 00:00:00'",
  "'9999-12-31 23:59:59.999999'",
  "'2001-01-01 00:00:01'",
  "'2038-01-19 03:14:07.99'",
  '1901',
  "b'1'",
  "b'1111111111111'",
  "x'FFFFFFFFFFFFFFFF'",
  "'large'",
  "'red,blue'",
  "'héllo 😀'",
  "REPEAT('ü', 255)",
  "x'01020000'",
  "'café €'",
  "x'000102ff'",
  "'日本語'",
  "'abc'",
  "'ab€𝄞'",
  "'tiny'",
  "'Ünïcödé text'",
  "REPEAT('medium ', 100)",
  "REPEAT('long ', 1000)",
  "x'dead'",
  "REPEAT(x'07', 300)",
  "REPEAT(x'09', 70000)",
  "''",
  `'{"k": [1, "v", null], "n": 1.5}'`,
  "ST_GeomFromText('LINESTRING(0 0, 1 1)')",
  'POINT(-1.5, 2.25)',
  "ST_GeomFromText('LINESTRING(1 2, 3 4, 5 6)')",
];

/** The workload, in database `db`: every type, DDL, transactions, XA, one transaction of ~120 KB. */
function workload(db: string): string {
  const every = createTableSql(
    describeTable({ schema: db, name: 'every', columns: EVERY_TYPE_COLUMNS, primaryKey: 'id' }),
  );
  return `
    CREATE DATABASE ${db};
    USE ${db}; -- the seq_1_to_N tables are in every database
    ${every};
    INSERT INTO ${db}.every VALUES (${EXTREMES.join(', ')});
    INSERT INTO ${db}.every (id) VALUES (2);
    UPDATE ${db}.every SET ti = 0, e = 'small', s = '', j = '[]', f = -1.5 WHERE id = 2;
    BEGIN;
    INSERT INTO ${db}.every (id, \`dec\`, day) VALUES (3, 3.14159, '2000-02-29');
    DELETE FROM ${db}.every WHERE id = 1;
    COMMIT;
    ALTER TABLE ${db}.every ADD COLUMN added VARCHAR(10) DEFAULT 'new';
    CREATE TABLE ${db}.x (id INT PRIMARY KEY, v VARCHAR(1000));
    XA START 'two-phase'; INSERT INTO ${db}.x VALUES (1, 'a'), (2, 'b'); UPDATE ${db}.x SET v = 'c' WHERE id = 2; \
XA END 'two-phase';
    XA PREPARE 'two-phase'; XA COMMIT 'two-phase';
    XA START 'one-phase'; INSERT INTO ${db}.x VALUES (3, 'd'); XA END 'one-phase'; XA COMMIT 'one-phase' ONE PHASE;
    XA START 'undone'; INSERT INTO ${db}.x VALUES (4, 'e'); XA END 'undone'; XA PREPARE 'undone'; XA ROLLBACK 'undone';
    BEGIN;
    INSERT INTO ${db}.x SELECT 100 + seq, REPEAT('L', 1000) FROM seq_1_to_40;
    UPDATE ${db}.x SET v = REPEAT('M', 1000) WHERE id > 100;
    COMMIT;
  `;
}

async function fileEvents(files: string[]): Promise<BinlogEvent[]> {
  const out: BinlogEvent[] = [];
  for (const f of files) for await (const e of readBinlog(f)) out.push(e);
  // The file the server has open: its FORMAT_DESCRIPTION is sent as the closed file will hold it.
  out.findLast((e) => e.type === 'FORMAT_DESCRIPTION_EVENT')!.header.flags! &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
  return out;
}

describeWithServer('live replication of the whole workload, FULL and NO_LOG metadata', () => {
  let server: MariadbServer;
  let files: string[];
  let work: string;

  beforeAll(async () => {
    server = await startMariadb({ extraArgs: [`--max-binlog-size=${MAX_BINLOG_SIZE}`] });
    await server.sql(workload('full'));
    // A new client session per sql(): the next workload is logged with the new global value.
    await server.sql('SET GLOBAL binlog_row_metadata = NO_LOG');
    await server.sql(workload('nolog'));
    await server.flushLogs();
    files = await server.binlogFiles();
    work = mkdtempSync(join(tmpdir(), 'binlog-workload-'));
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, TIMEOUT);

  it(
    'the workload is what it claims: XA, rotations after a large transaction, both metadata forms',
    async () => {
      const events = await fileEvents(files);
      expect(events.filter((e) => e.type === 'XA_PREPARE_LOG_EVENT').length).toBe(4);
      const queries = events.flatMap((e) => (e.type === 'QUERY_EVENT' ? [e.query] : []));
      for (const q of ["XA COMMIT X'74776f2d7068617365',X'',1", "XA ROLLBACK X'756e646f6e65',X'',1"])
        expect(queries, q).toContain(q);
      const large = events.filter((e) => e.header.eventSize > MAX_BINLOG_SIZE);
      expect(large.length).toBeGreaterThanOrEqual(2);
      expect(files.length).toBeGreaterThanOrEqual(6);
      const maps = events.filter((e) => e.type === 'TABLE_MAP_EVENT');
      const named = (db: string) =>
        new Set(
          maps.filter((m) => m.schemaName === db).map((m) => m.optionalMetadata.some((o) => o.code === 'COLUMN_NAME')),
        );
      expect(named('full')).toEqual(new Set([true]));
      expect(named('nolog')).toEqual(new Set([false]));
    },
    TIMEOUT,
  );

  it(
    'every event the dump sends that is in a file equals the file\u2019s, field for field',
    async () => {
      const live: BinlogEvent[] = [];
      for await (const e of connectBinlog({
        socketPath: server.socket,
        user: 'root',
        file: basename(files[0]!),
        until: 'logs',
      }))
        if (!e.notInFile) live.push(e);
      const lines = (es: BinlogEvent[]) => es.map((e) => toJsonLine(e));
      expect(lines(live)).toEqual(lines(await fileEvents(files)));
    },
    TIMEOUT,
  );

  it(
    'the frames, written as --raw writes them, are the server\u2019s files byte for byte',
    async () => {
      const prefix = join(work, 'raw-');
      const archive = new RawArchive(prefix);
      for await (const f of connectBinlogFrames({
        socketPath: server.socket,
        user: 'root',
        file: basename(files[0]!),
        until: 'logs',
      }))
        await archive.add(f);
      await archive.close();
      expect(archive.files).toEqual(files.map((f) => prefix + basename(f)));
      for (const f of files) {
        const original = readFileSync(f);
        if (f === files.at(-1)) original[4 + EventHeaderOffsets.flags] &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
        expect(readFileSync(prefix + basename(f)).equals(original), basename(f)).toBe(true);
      }
    },
    TIMEOUT,
  );
});
