/**
 * Real MySQL 8 binlogs with DDL and binlog_row_metadata=MINIMAL (the TABLE_MAPs carry signedness and
 * character sets, never column names), read with a schema history seeded with nothing: the names come from
 * the files' own CREATE and ALTER statements. Each expected value was read by hand from the row event's
 * bytes (offsets below) against the column types the file's CREATE TABLE gives, not from our output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { TableMapEvent } from '../generated/rows.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { SchemaHistory, type HistoryEntry } from '../runtime/tables/history.js';
import { describeWithFixtures, FIXTURES } from './support/fixtures.js';
import type { RowsEventOf as RowsEvent } from './support/rows.js';

const GIPK = 'enhancedformysql__mysql-8.0.40/mysql-test__std_data__rpl_binlog_with_gipk_info_minimal_metadata.000001';
const INT_TABLE = 'rust-us__mysql-cdc-rs/tests__events__8.0__32_delete_rows_v2__binlog.000001';
const CDC_META = 'rust-us__mysql-cdc-rs/tests__events__8.0__folder__binlog.000693';
const GTID_57 = 'rust-us__mysql-cdc-rs/tests__events__5.7__30_write_rows_v2__log.bin';
const HIDDEN_GCOL = 'blackbeam__rust_mysql_common/test-data__binlogs__rpl_unfiltered_hidden_gcol.000001';

/** 65 6d a1 59: 1701683545 big-endian seconds since the epoch, as the library writes a TIMESTAMP (UTC). */
const TIMESTAMP = '2023-12-04 09:52:25';

/** The file read with an empty history; its row changes, its TABLE_MAPs, the history's lines. */
function readWithHistory(name: string) {
  const lines: string[] = [];
  const history = new SchemaHistory({ report: (l) => lines.push(l) });
  const events = decodeBinlog(new Uint8Array(readFileSync(join(FIXTURES, 'binlogs', name))), {
    schemaHistory: history,
  });
  const rows = events
    .filter((e): e is RowsEvent => 'rows' in e && Array.isArray(e.rows))
    .flatMap((e) => e.rows!.map((r) => ({ table: e.table, before: r.before, after: r.after })));
  const maps = events.filter((e: BinlogEvent): e is BinlogEvent & TableMapEvent => e.type === 'TABLE_MAP_EVENT');
  return { rows, maps, lines, history };
}

/** MINIMAL metadata: no COLUMN_NAME entry in any TABLE_MAP, so no name can come from the binlog itself. */
function expectNoNamesLogged(maps: TableMapEvent[]): void {
  expect(maps.length).toBeGreaterThan(0);
  for (const m of maps) expect(m.optionalMetadata.map((o) => o.code)).not.toContain('COLUMN_NAME');
}

describeWithFixtures('MySQL 8 MINIMAL-metadata fixtures read with the schema history of their own DDL', () => {
  it('8.0.32 GIPK file: t1 and t2 (its generated invisible primary key logged in the CREATE) get their names', () => {
    const { rows, maps, lines, history } = readWithHistory(GIPK);
    expectNoNamesLogged(maps);
    // CREATE TABLE t1 (c1 BIGINT, c2 TEXT, ...); bytes at 584: c1 = 01 00 00 00 00 00 00 00, c2 = 01 00 '1'.
    // CREATE TABLE `t2` (`my_row_id` bigint unsigned ... INVISIBLE, `f1` int, `really_unique_column_name`
    // int); bytes at 1232: 1 (8 bytes), 1 (4 bytes), 1 (4 bytes).
    expect(rows).toEqual([
      { table: 'test.t1', before: undefined, after: { c1: 1n, c2: '1' } },
      { table: 'test.t2', before: undefined, after: { my_row_id: 1n, f1: 1, really_unique_column_name: 1 } },
    ]);
    expect([lines, history.contradictions]).toEqual([[], 0]);
  });

  it('8.2 file: a DROP of a table never seen, then CREATE TABLE int_table; insert, update, delete named', () => {
    const { rows, maps, lines, history } = readWithHistory(INT_TABLE);
    expectNoNamesLogged(maps);
    // The CREATE's columns: col1 tinyint, col2 smallint, col3 mediumint, col4 int, col5 bigint, col6
    // tinyint(1). Bytes at 1046: 01, 0b 00, 6f 00 00, 57 04 00 00, 67 2b 00.. (8), 01; the update at 1355
    // changes col2 to 16 00 and col3 to de 00 00.
    const first = { col1: 1, col2: 11, col3: 111, col4: 1111, col5: 11111n, col6: 1 };
    const second = { ...first, col2: 22, col3: 222 };
    expect(rows).toEqual([
      { table: 'test.int_table', before: undefined, after: first },
      { table: 'test.int_table', before: first, after: second },
      { table: 'test.int_table', before: second, after: undefined },
    ]);
    expect([lines, history.contradictions]).toEqual([[], 0]);
  });

  it('8.0.31 file of 140 CREATE TABLE IF NOT EXISTS / ALTER statements: every row of its 524 events named', () => {
    const { rows, maps, lines, history } = readWithHistory(CDC_META);
    expectNoNamesLogged(maps);
    expect(maps).toHaveLength(524);
    expect(rows.filter((r) => Object.keys(r.after ?? r.before ?? {}).some((k) => k.startsWith('@')))).toEqual([]);
    expect([lines, history.contradictions]).toEqual([[], 0]);
    // CREATE TABLE IF NOT EXISTS `table_analyze_history` (`CLUSTER_NAME` varchar(128), `TABLE_SCHEMA`
    // varchar(64), `TABLE_NAME` varchar(128), `CREATE_TIME` timestamp, `UPDATE_TIME` timestamp,
    // `ANALYZE_DURATION_TIME` bigint, `TOTAL_ROW_COUNT` bigint) DEFAULT CHARSET=utf8; the row at 127763:
    // 19 00 '1_hdb1_information_schema', 04 'tpch', 04 00 'part', 65 6d a1 59 twice (1701683545 seconds,
    // 2023-12-04 09:52:25 UTC), e5 31 00.. (12773), 80 96 98 00.. (10000000).
    const first = rows.find((r) => r.table === 'hdb_meta.table_analyze_history');
    expect(first?.after).toEqual({
      CLUSTER_NAME: '1_hdb1_information_schema',
      TABLE_SCHEMA: 'tpch',
      TABLE_NAME: 'part',
      CREATE_TIME: TIMESTAMP,
      UPDATE_TIME: TIMESTAMP,
      ANALYZE_DURATION_TIME: 12773n,
      TOTAL_ROW_COUNT: 10000000n,
    });
  });

  it('8.0.17 functional index: the hidden column the DDL does not show is caught by the TABLE_MAP check', () => {
    const { rows, maps, lines, history } = readWithHistory(HIDDEN_GCOL);
    expectNoNamesLogged(maps);
    // CREATE TABLE t (a INT, INDEX i((a+1))); ALTER TABLE t ADD COLUMN b TEXT: two columns by the DDL, but
    // the server logs three (a, the index's hidden BIGINT, b). Never guessed: one line names the table,
    // the counts and the ALTER, and the row keeps its positions.
    expect(maps[0]!.columnTypes).toEqual(['LONG', 'LONGLONG', 'BLOB']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/test\.t: the definition has 2 columns, the TABLE_MAP 3/);
    expect(lines[0]).toContain('ALTER TABLE t ADD COLUMN b TEXT');
    expect(history.contradictions).toBe(1);
    expect(rows.map((r) => Object.keys(r.after!))).toEqual([['@1', '@3']]);
  });
});

describeWithFixtures('MySQL GTIDs in the schema history', () => {
  it("keeps a DDL's MySQL GTID with its entry, and none for a DDL of an anonymous transaction", () => {
    const kept = (name: string) => {
      const entries: HistoryEntry[] = [];
      const history = new SchemaHistory({ record: (e) => entries.push(e), report: () => {} });
      decodeBinlog(new Uint8Array(readFileSync(join(FIXTURES, 'binlogs', name))), { schemaHistory: history });
      return entries.map((e) => ({ pos: e.pos, gtid: e.gtid }));
    };
    // The GTID events at 154 and 357: sid 80549ecc d2f211ea b7900242 ac130002 (bytes 174-189 and 377-392),
    // gno 1 and 2 (190-197, 393-400), before the DROP TABLE at 219 and the CREATE TABLE at 422.
    const uuid = '80549ecc-d2f2-11ea-b790-0242ac130002';
    expect(kept(GTID_57)).toEqual([
      { pos: 219, gtid: `${uuid}:1` },
      { pos: 422, gtid: `${uuid}:2` },
    ]);
    // The 8.2 file has gtid_mode OFF: its DDL comes after ANONYMOUS_GTID events.
    const anonymous = kept(INT_TABLE);
    expect(anonymous.length).toBeGreaterThan(0);
    expect(anonymous.every((e) => e.gtid === undefined)).toBe(true);
  });
});
