/**
 * The schema history against real servers: a MariaDB with binlog_row_metadata=NO_LOG and one with FULL run
 * the same DDL-rich workload (columns added, dropped, moved, renamed and retyped between rows, an ENUM that
 * grows, tables created, copied, renamed across databases, dropped and re-created with another shape,
 * character sets converted, an ALTER qualified from another default database). The NO_LOG rows, read with
 * the schema `mariadb-dump --no-data` gave before the workload and the DDL the binlog holds, are the FULL
 * server's rows, event for event; the FULL rows are checked against the workload's own literals.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { SchemaHistory } from '../runtime/tables/history.js';
import { databaseCharsetsFromSql, tableDefinitionsFromSql } from '../runtime/tables/schema-file.js';
import { describeWithServer, startMariadb } from './support/mariadb.js';
import type { RowsEventOf as RowsEvent } from './support/rows.js';

const ROOT = join(import.meta.dirname, '..');

const SCHEMA = `
  CREATE DATABASE shop CHARACTER SET utf8mb4; CREATE DATABASE other CHARACTER SET latin1;
  CREATE TABLE shop.a (id INT UNSIGNED NOT NULL PRIMARY KEY, name VARCHAR(20), qty INT) DEFAULT CHARSET=utf8mb4;
  CREATE TABLE shop.e (id INT PRIMARY KEY, k ENUM('s','m')) DEFAULT CHARSET=latin1;`;

/** Each statement runs in shop, but for those that say USE other first. */
const WORKLOAD = `
  INSERT INTO a VALUES (4000000000, '漢字 😀', -1);
  ALTER TABLE a ADD COLUMN extra INT UNSIGNED AFTER id;
  INSERT INTO a VALUES (4000000001, 3000000000, 'x', 2);
  DELETE FROM a WHERE id = 4000000000;
  ALTER TABLE a DROP COLUMN qty, MODIFY name VARCHAR(30) CHARACTER SET latin1 NOT NULL FIRST, \
CHANGE extra extra2 BIGINT UNSIGNED;
  INSERT INTO a VALUES ('café', 4000000002, 18446744073709551615);
  ALTER TABLE a RENAME COLUMN name TO label, ADD u TEXT CHARACTER SET ucs2, ALGORITHM=COPY;
  INSERT INTO a VALUES ('b', 4000000003, 1, 'ucs2 ü');
  ALTER TABLE e MODIFY k ENUM('s','m','l','xl');
  INSERT INTO e VALUES (1, 'xl');
  CREATE TABLE b (id BIGINT UNSIGNED PRIMARY KEY, t VARCHAR(10), w VARCHAR(5) CHARACTER SET utf16);
  INSERT INTO b VALUES (18446744073709551615, 'é😀', 'ü');
  CREATE TABLE c LIKE b;
  INSERT INTO c VALUES (9223372036854775808, 'like', 'x');
  RENAME TABLE b TO b2, c TO other.c2;
  INSERT INTO b2 VALUES (1, 'renamed', 'y');
  INSERT INTO other.c2 VALUES (2, 'moved', 'z');
  DROP TABLE b2;
  CREATE TABLE b2 (x SMALLINT UNSIGNED, y CHAR(2));
  INSERT INTO b2 VALUES (65535, 'ab');
  CREATE TABLE IF NOT EXISTS b2 (z INT);
  INSERT INTO b2 VALUES (65000, 'cd');
  ALTER TABLE a CONVERT TO CHARACTER SET latin1;
  INSERT INTO a VALUES ('conv', 4000000004, 2, 'é');
  CREATE OR REPLACE TABLE d (id TINYINT UNSIGNED) ENGINE=InnoDB;
  INSERT INTO d VALUES (255);
  ALTER TABLE a DEFAULT CHARSET = utf8mb4, ADD v VARCHAR(4);
  INSERT INTO a VALUES ('dflt', 4000000005, 3, 'x', '😀');
  TRUNCATE TABLE d;
  INSERT INTO d VALUES (200);
  USE other; ALTER TABLE shop.a ADD COLUMN w MEDIUMINT UNSIGNED FIRST;
  INSERT INTO a VALUES (16777215, 'w', 4000000006, 4, 'y', 'z');
  ALTER TABLE a /* moved */ RENAME TO a2;
  INSERT INTO a2 VALUES (1, 'a2', 4000000007, 5, NULL, NULL);
  DROP TABLE IF EXISTS other.c2, nothing;
  CREATE DATABASE third CHARACTER SET ucs2;
  CREATE TABLE third.t (s VARCHAR(3), n INT UNSIGNED);
  INSERT INTO third.t VALUES ('ab', 4294967295);`;

/** The workload's statements, each with the database it runs in. */
const statements = WORKLOAD.split(';\n')
  .map((s) => s.trim())
  .filter(Boolean)
  .map((s) =>
    s.startsWith('USE other;') ? { db: 'other', sql: s.slice('USE other;'.length).trim() } : { db: 'shop', sql: s },
  );

/** Each row change with its event's type and table. */
const changes = (events: BinlogEvent[]) =>
  events
    .filter((e): e is RowsEvent => 'rows' in e && Array.isArray(e.rows))
    .flatMap((e) => e.rows!.map((c) => ({ type: e.type, table: e.table, ...c })));

describeWithServer('the schema history, NO_LOG against FULL on a DDL-rich workload', () => {
  let noLog: Uint8Array;
  let full: Uint8Array;
  let schemaSql: string;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-history-'));
    const servers = await Promise.all([startMariadb({ rowMetadata: 'NO_LOG' }), startMariadb({ rowMetadata: 'FULL' })]);
    try {
      for (const s of servers) {
        await s.sql(SCHEMA);
        await s.flushLogs();
      }
      schemaSql = await servers[0].dumpSchema('shop', 'other');
      for (const s of servers) {
        for (const { db, sql } of statements) await s.sql(sql, db);
        await s.flushLogs();
      }
      const files = await Promise.all(servers.map(async (s) => (await s.binlogFiles())[1]!));
      [noLog, full] = files.map((f) => new Uint8Array(readFileSync(f)));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  const seeded = () =>
    new SchemaHistory({ seed: tableDefinitionsFromSql(schemaSql), databases: databaseCharsetsFromSql(schemaSql) });

  it('the FULL rows are the workload’s values', () => {
    const rows = changes(decodeBinlog(full));
    expect(rows).toHaveLength(19);
    expect(rows[0]).toMatchObject({ table: 'shop.a', after: { id: 4000000000, name: '漢字 😀', qty: -1 } });
    expect(rows[2]).toMatchObject({
      type: 'DELETE_ROWS_EVENT_V1',
      before: { id: 4000000000, extra: null, name: '漢字 😀', qty: -1 },
    });
    expect(rows[3]!.after).toEqual({ name: 'café', id: 4000000002, extra2: 18446744073709551615n });
    expect(rows[4]!.after).toEqual({ label: 'b', id: 4000000003, extra2: 1n, u: 'ucs2 ü' });
    expect(rows[5]).toMatchObject({ table: 'shop.e', after: { id: 1, k: 'xl' } });
    expect(rows[6]).toMatchObject({ table: 'shop.b', after: { id: 18446744073709551615n, t: 'é😀', w: 'ü' } });
    expect(rows[9]).toMatchObject({ table: 'other.c2', after: { id: 2n, t: 'moved' } });
    expect(rows[10]).toMatchObject({ table: 'shop.b2', after: { x: 65535, y: 'ab' } });
    expect(rows.at(-1)).toMatchObject({ table: 'third.t', after: { s: 'ab', n: 4294967295 } });
  });

  it('NO_LOG rows read with the schema file and the binlog’s DDL are the FULL rows, event for event', () => {
    const lines: string[] = [];
    const history = new SchemaHistory({
      seed: tableDefinitionsFromSql(schemaSql),
      databases: databaseCharsetsFromSql(schemaSql),
      report: (l) => lines.push(l),
    });
    expect(changes(decodeBinlog(noLog, { schemaHistory: history }))).toEqual(changes(decodeBinlog(full)));
    expect([lines, history.contradictions]).toEqual([[], 0]);
    // And the history agrees with the FULL server's own metadata at every TABLE_MAP.
    const again = seeded();
    expect(changes(decodeBinlog(full, { schemaHistory: again }))).toEqual(changes(decodeBinlog(full)));
    expect(again.contradictions).toBe(0);
  });

  it(
    'without a schema file, the tables created inside the files read as the FULL server’s where the binlog says ' +
      'their character sets',
    () => {
      const stated = new Set(['shop.d', 'third.t']);
      const created = (events: BinlogEvent[]) => changes(events).filter((c) => stated.has(c.table as string));
      const lines: string[] = [];
      const history = new SchemaHistory({ report: (l) => lines.push(l) });
      const rows = changes(decodeBinlog(noLog, { schemaHistory: history }));
      expect(rows.filter((c) => stated.has(c.table as string))).toHaveLength(3);
      expect(rows.filter((c) => stated.has(c.table as string))).toEqual(created(decodeBinlog(full)));
      // shop's character set was set before the files: its new tables' text columns are refused, never guessed.
      // The copy of a table whose definition left the history is unknown too, said once.
      expect(
        lines.map(
          (l) => /^table (\S+), column (\w+)/.exec(l)?.slice(1).join('.') ?? /LIKE a table without/.exec(l)?.[0],
        ),
      ).toEqual(['shop.b.t', 'LIKE a table without', 'shop.b2.y']);
      expect(history.contradictions).toBe(2);
    },
  );

  it(
    'binlog dump --schema-file of the NO_LOG file writes the FULL file’s rows, ' +
      'and --schema-history keeps each change',
    () => {
      const schema = join(tmp, 'schema.sql');
      const binlog = join(tmp, 'binlog.000002');
      const fullFile = join(tmp, 'full.000002');
      const kept = join(tmp, 'history.jsonl');
      writeFileSync(schema, schemaSql);
      writeFileSync(binlog, noLog);
      writeFileSync(fullFile, full);
      const dump = (args: string[]) =>
        spawnSync(process.execPath, [join(ROOT, 'bin', 'binlog'), 'dump', ...args], {
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        });
      const rowsOf = (out: string) =>
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .filter((e) => Array.isArray(e.rows))
          .map((e) => [e.table, e.rows]);
      const ok = dump(['--schema-file', schema, `--schema-history=${kept}`, binlog]);
      expect([ok.status, ok.stderr]).toEqual([0, '']);
      expect(rowsOf(ok.stdout)).toEqual(rowsOf(dump([fullFile]).stdout));
      const entries = readFileSync(kept, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(entries.map((e) => e.statement)).toContain('CREATE TABLE third.t (s VARCHAR(3), n INT UNSIGNED)');
      expect(entries.find((e) => e.statement.startsWith('RENAME TABLE')).tables).toMatchObject({
        'shop.b': null,
        'shop.c': null,
      });
    },
  );
});
