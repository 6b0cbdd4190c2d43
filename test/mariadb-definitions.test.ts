/**
 * Rows on MariaDB's default binlog_row_metadata=NO_LOG, read with the definitions `mariadb-dump --no-data`
 * writes: two real servers, one with NO_LOG and one with FULL, run the same workload; the NO_LOG rows read
 * with the schema file are the FULL rows, and without it an unsigned column's high values read both ways.
 * The values expected are the workload's literals, never our decoder's output.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { type BinlogEvent, eventFromJson } from '../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import type { TableDefinitions } from '../runtime/tables/definitions.js';
import { tableDefinitionsFromSql } from '../runtime/tables/schema-file.js';
import { describeWithServer, startMariadb } from './support/mariadb.js';
import type { RowsEventOf as RowsEvent } from './support/rows.js';

const ROOT = join(import.meta.dirname, '..');

const SCHEMA = `
  CREATE DATABASE shop; CREATE DATABASE legacy CHARACTER SET latin1;
  CREATE TABLE shop.items (
    id INT UNSIGNED NOT NULL PRIMARY KEY,
    qty SMALLINT,
    big BIGINT UNSIGNED,
    tiny TINYINT UNSIGNED,
    kind ENUM('small','large','huge'),
    tags SET('red','green','blue'),
    name VARCHAR(40) CHARACTER SET utf8mb4,
    old VARCHAR(40) CHARACTER SET latin1,
    notes TEXT CHARACTER SET utf8mb4,
    price DECIMAL(8,2),
    at DATETIME(3)
  ) DEFAULT CHARSET=latin1;
  CREATE TABLE legacy.t (a INT, b CHAR(5), c MEDIUMINT UNSIGNED);`;
const WORKLOAD =
  `
  INSERT INTO shop.items VALUES
    (4000000000, -5, 18446744073709551615, 200, 'large', 'red,blue', '漢字 😀', ` +
  `'café', 'texte é', 12.50, '2024-01-02 03:04:05.678'),
    (1, 5, 1, 1, 'small', '', '', '', NULL, NULL, NULL);
  UPDATE shop.items SET qty = qty - 10, tags = 'green' WHERE id = 1;
  DELETE FROM shop.items WHERE id = 4000000000;
  INSERT INTO legacy.t VALUES (-1, 'x', 16777215);`;

/** Each row change with its event's type and table. */
const changes = (events: BinlogEvent[]) =>
  events
    .filter((e): e is RowsEvent => 'rows' in e && Array.isArray(e.rows))
    .flatMap((e) => e.rows!.map((c) => ({ type: e.type, table: e.table, ...c })));

describeWithServer('NO_LOG rows read with the definitions mariadb-dump --no-data gives', () => {
  let noLog: Uint8Array;
  let full: Uint8Array;
  let schemaSql: string;
  let defs: TableDefinitions;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-definitions-'));
    const servers = await Promise.all([startMariadb({ rowMetadata: 'NO_LOG' }), startMariadb({ rowMetadata: 'FULL' })]);
    try {
      for (const s of servers) {
        await s.sql(SCHEMA);
        await s.flushLogs();
        await s.sql(WORKLOAD);
        await s.flushLogs();
      }
      schemaSql = await servers[0].dumpSchema('shop', 'legacy');
      const files = await Promise.all(servers.map(async (s) => (await s.binlogFiles())[1]!));
      [noLog, full] = files.map((f) => new Uint8Array(readFileSync(f)));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    defs = tableDefinitionsFromSql(schemaSql);
  }, 180_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('the dump defines both databases’ tables', () => {
    expect(Object.keys(defs).sort()).toEqual(['legacy.t', 'shop.items']);
  });

  it('FULL metadata gives the workload’s values, by name', () => {
    const [insert, second, update, del, legacy] = changes(decodeBinlog(full));
    expect(insert!.after).toEqual({
      id: 4000000000,
      qty: -5,
      big: 18446744073709551615n,
      tiny: 200,
      kind: 'large',
      tags: ['red', 'blue'],
      name: '漢字 😀',
      old: 'café',
      notes: 'texte é',
      price: '12.50',
      at: '2024-01-02 03:04:05.678',
    });
    expect(second!.after).toMatchObject({ id: 1, qty: 5, tags: [] });
    expect([update!.before!.qty, update!.after!.qty, update!.after!.tags]).toEqual([5, -5, ['green']]);
    expect(del!.before!.id).toBe(4000000000);
    expect(legacy!.after).toEqual({ a: -1, b: 'x', c: 16777215 });
  });

  it('NO_LOG rows read with the schema file are the FULL rows', () => {
    expect(changes(decodeBinlog(noLog, { tableDefinitions: defs }))).toEqual(changes(decodeBinlog(full)));
    // And the definitions agree with FULL metadata, changing nothing.
    expect(changes(decodeBinlog(full, { tableDefinitions: defs }))).toEqual(changes(decodeBinlog(full)));
  });

  it('without them, a value whose high bit is set reads both ways, the others as plain numbers', () => {
    const [insert, second, , , legacy] = changes(decodeBinlog(noLog));
    expect(insert!.after).toMatchObject({
      '@1': { signed: -294967296, unsigned: 4000000000 },
      '@2': { signed: -5, unsigned: 65531 },
      '@3': { signed: -1n, unsigned: 18446744073709551615n },
      '@4': { signed: -56, unsigned: 200 },
    });
    expect(second!.after).toMatchObject({ '@1': 1, '@2': 5, '@3': 1n, '@4': 1 });
    expect(legacy!.after).toMatchObject({
      '@1': { signed: -1, unsigned: 4294967295 },
      '@3': { signed: -1, unsigned: 16777215 },
    });
  });

  it('dump | encode gives the NO_LOG file back, with the definitions and without', () => {
    for (const d of [undefined, defs]) {
      const again = encodeBinlog(
        decodeBinlog(noLog, { tableDefinitions: d }).map((e, i) =>
          eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`),
        ),
        { tableDefinitions: d },
      );
      expect(Buffer.compare(Buffer.from(again), Buffer.from(noLog))).toBe(0);
    }
  });

  it(
    'binlog dump --schema-file gives the FULL rows; a schema ' +
      'of another table is a line naming the column and exit 7',
    () => {
      const schema = join(tmp, 'schema.sql');
      const binlog = join(tmp, 'binlog.000002');
      writeFileSync(schema, schemaSql);
      writeFileSync(binlog, noLog);
      const dump = (args: string[]) =>
        spawnSync(process.execPath, [join(ROOT, 'bin', 'binlog'), 'dump', ...args], {
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        });
      const ok = dump(['--schema-file', schema, binlog]);
      expect([ok.status, ok.stderr]).toEqual([0, '']);
      const fromCli = ok.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => Array.isArray(e.rows));
      expect(fromCli.flatMap((e) => e.rows)).toEqual(
        JSON.parse(toJsonLine(changes(decodeBinlog(full)).map(({ type: _t, table: _n, ...c }) => c))),
      );
      const other = join(tmp, 'other.sql');
      expect(schemaSql).toContain('`qty` smallint(6)');
      writeFileSync(other, schemaSql.replace('`qty` smallint(6)', '`qty` int(11)'));
      const bad = dump(['--schema-file', other, binlog]);
      // The contradicted definition leaves the schema history: the dump goes on without it and exits 7.
      expect(bad.status).toBe(7);
      expect(bad.stderr).toMatch(
        new RegExp(
          String.raw`^binlog: table shop\.items, column qty: the TABLE_MAP logs SHORT, ` +
            String.raw`the definition says INT \(logged as LONG\) \[in shop\.items\.qty\] ` +
            String.raw`\(the definition from the definitions given at the start\); ` +
            String.raw`it leaves the schema history and its rows are read without one\n$`,
        ),
      );
      expect(
        bad.stdout
          .trim()
          .split('\n')
          .filter((l) => l.includes('"rows"')).length,
      ).toBe(fromCli.length);
    },
  );
});
