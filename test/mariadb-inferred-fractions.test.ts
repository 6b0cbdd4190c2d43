/**
 * MariaDB's own TIME(n), DATETIME(n), TIMESTAMP(n) read with no definition: the digits are inferred from
 * the images (runtime/rows/fractions.ts). A real MariaDB with mysql56_temporal_format=OFF writes the
 * binlog; every cell decoded with inferred digits is the server's CAST(… AS CHAR), the digits kept for a
 * table's later events; where the images fit more than one choice they stay bytes with the reason, and
 * every event encodes back to the file's bytes.
 *
 * The shared fixtures decode no further: none holds such a column (MariaDB 5.5's mariadb-5.5-binlog has no
 * row events, 10.0's mdev6020 no TIME, DATETIME or TIMESTAMP column), and each decodes as before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { type BinlogEvent, eventFromJson } from '../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { flashback } from '../tools/flashback.js';
import { SqlContext, toSql } from '../tools/sql.js';
import { describeWithServer, findMariadb, type MariadbServer, replay, startMariadb } from './support/mariadb.js';
import type { RowsEventAny } from './support/rows.js';

/** A rows v1 or v2 event: the workload logs WRITE, UPDATE and DELETE_ROWS, the undo the same. */
type Rows = RowsEventAny;

function isRows(e: BinlogEvent): e is Rows {
  return /^(WRITE|UPDATE|DELETE)_ROWS/.test(e.type) && 'columnsPresent' in e;
}

/** The workload, one statement (or a DDL and a statement) per step; `table` the one whose rows each step logs. */
const STEPS: { table: string; sql: string }[] = [
  // Two fractional columns, with a TIME and a TIME(6) beside them, several rows, NULLs, negative times, zero dates.
  {
    table: 'two',
    sql: `INSERT INTO inf.two VALUES
      (1, '2024-02-29 23:59:58.98765', '2001-09-09 01:46:40.57', '-12:34:56', '-838:59:59.999999'),
      (2, '1000-01-01 00:00:00.00001', '2038-01-19 03:14:07.99', '838:59:59', '00:00:00.000001'),
      (3, NULL, NULL, NULL, NULL),
      (4, '0000-00-00 00:00:00', '0000-00-00 00:00:00', '-00:00:01', '-00:00:00.5')`,
  },
  { table: 'two', sql: "UPDATE inf.two SET s2 = '2020-01-01 00:00:00.05', d5 = NULL WHERE id IN (1, 3)" },
  { table: 'two', sql: 'DELETE FROM inf.two WHERE id = 2' },
  // .05 reads as TIMESTAMP(1)'s .5 too: ambiguous alone; .57 is no TIMESTAMP(1); then the kept 2 reads .05.
  { table: 'amb', sql: "INSERT INTO inf.amb VALUES (1, '2020-01-01 00:00:00.05')" },
  { table: 'amb', sql: "INSERT INTO inf.amb VALUES (2, '2020-01-01 00:00:00.57')" },
  { table: 'amb', sql: "INSERT INTO inf.amb VALUES (3, '2020-01-01 00:00:00.05')" },
  // DATETIME(4) is DATETIME(5) of a tenth of its seconds (the same 7 bytes): never told apart by its values.
  { table: 'low', sql: "INSERT INTO inf.low VALUES (1, '2024-01-02 03:04:05.1234')" },
  // Digits that stop fitting: DATETIME(5), then the column made DATETIME(2), whose TABLE_MAP is the same.
  { table: 'alt', sql: "INSERT INTO inf.alt VALUES (1, '2024-01-02 03:04:05.12345')" },
  {
    table: 'alt',
    sql: "ALTER TABLE inf.alt MODIFY d DATETIME(2); INSERT INTO inf.alt VALUES (2, '2024-01-02 03:04:05.67')",
  },
  // TIMESTAMP(2) rows that also split as one more row of TIMESTAMP(0): each value's seconds 0x60000000, so
  // that the bytes where the 5-byte rows would start are even (a null bitmap saying not NULL). Before the
  // inference this event read as 6 rows of '1970-01-01 00:01:36' and the like, with no word of doubt.
  {
    table: 'ts',
    sql: `INSERT INTO inf.ts VALUES ${[12, 34, 56, 78, 90].map((f) => `(FROM_UNIXTIME(1610612736.${f}))`).join(', ')}`,
  },
];

const SCHEMA = `CREATE DATABASE inf;
  CREATE TABLE inf.two (id INT PRIMARY KEY, d5 DATETIME(5), s2 TIMESTAMP(2) NULL, t0 TIME, t6 TIME(6));
  CREATE TABLE inf.amb (id INT PRIMARY KEY, s TIMESTAMP(2) NULL);
  CREATE TABLE inf.low (id INT PRIMARY KEY, d4 DATETIME(4));
  CREATE TABLE inf.alt (id INT PRIMARY KEY, d DATETIME(5));
  CREATE TABLE inf.ts (s TIMESTAMP(2) NULL);`;

const COLUMNS: Record<string, string[]> = {
  two: ['id', 'd5', 's2', 't0', 't6'],
  amb: ['id', 's'],
  low: ['id', 'd4'],
  alt: ['id', 'd'],
  ts: ['s'],
};

describeWithServer('MariaDB’s own fractional temporals, their digits inferred without a definition', () => {
  let server: MariadbServer;
  let binlog: Uint8Array;
  let events: BinlogEvent[];
  /** The server's CAST(… AS CHAR) of each table's rows after each step, by the first column. */
  const seen: Record<string, string | null>[][] = [];

  beforeAll(async () => {
    server = await startMariadb({
      rowMetadata: 'FULL',
      extraArgs: ['--mysql56-temporal-format=OFF', '--default-time-zone=+00:00'],
    });
    await server.sql(SCHEMA);
    await server.flushLogs();
    for (const step of STEPS) {
      await server.sql(`SET sql_mode = ''; ${step.sql}`);
      const cols = COLUMNS[step.table]!;
      const rows = await server.query(
        `SELECT ${cols.map((c) => `CAST(${c} AS CHAR)`).join(', ')} FROM inf.${step.table} ORDER BY 1`,
      );
      seen.push(rows.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]!]))));
    }
    await server.flushLogs();
    binlog = new Uint8Array(readFileSync((await server.binlogFiles())[1]!));
    events = decodeBinlog(binlog);
  }, 120_000);
  afterAll(() => server?.stop());

  /** The row events, one per step, in order. */
  const rowEvents = () => events.filter(isRows);
  const text = (image: Record<string, unknown> | undefined) =>
    image && Object.fromEntries(Object.entries(image).map(([k, v]) => [k, v === null ? null : String(v)]));
  const afters = (e: Rows) => e.rows!.map((c) => text(c.after));
  const befores = (e: Rows) => e.rows!.map((c) => text(c.before));
  const ids = (rows: Record<string, string | null>[], keep: string[]) => rows.filter((r) => keep.includes(r.id!));

  it('one row event per step', () => {
    expect(rowEvents().map((e) => e.type.replace(/_ROWS_EVENT(_V1)?$/, ''))).toEqual([
      'WRITE',
      'UPDATE',
      'DELETE',
      'WRITE',
      'WRITE',
      'WRITE',
      'WRITE',
      'WRITE',
      'WRITE',
      'WRITE',
    ]);
  });

  it(
    'two fractional columns: the digits inferred, each cell ' + 'the server’s, and kept for the table’s later events',
    () => {
      const [write, update, del] = rowEvents();
      for (const e of [write, update, del]) expect(e!.inferredFractionDigits).toEqual({ d5: 5, s2: 2, t6: 6 });
      expect(afters(write!)).toEqual(seen[0]);
      expect(befores(update!)).toEqual(ids(seen[0]!, ['1', '3']));
      expect(afters(update!)).toEqual(ids(seen[1]!, ['1', '3']));
      expect(befores(del!)).toEqual(ids(seen[1]!, ['2']));
      // The workload's own literals, so that the server's reading is not taken on trust alone.
      expect(write!.rows![0]!.after).toEqual({
        id: 1,
        d5: '2024-02-29 23:59:58.98765',
        s2: '2001-09-09 01:46:40.57',
        t0: '-12:34:56',
        t6: '-838:59:59.999999',
      });
      expect(write!.rows![3]!.after).toEqual({
        id: 4,
        d5: '0000-00-00 00:00:00.00000',
        s2: '0000-00-00 00:00:00.00',
        t0: '-00:00:01',
        t6: '-00:00:00.500000',
      });
    },
  );

  it('images that fit two choices stay bytes, saying both; a later event decides, and its digits read the next', () => {
    const [first, second, third] = rowEvents().slice(3);
    expect(first!.rows).toBeUndefined();
    expect(first!.rowImagesUndecoded).toBe(
      'the row images do not split into rows: ' +
        'more than one choice of fraction digits for s makes every image read and end with the event ({"s":1} ' +
        'and {"s":2}); give the table\'s definition; kept as bytes',
    );
    expect([second!.inferredFractionDigits, afters(second!)]).toEqual([{ s: 2 }, ids(seen[4]!, ['2'])]);
    expect([third!.inferredFractionDigits, afters(third!)]).toEqual([
      { s: 2 },
      [{ id: '3', s: '2020-01-01 00:00:00.05' }],
    ]);
  });

  it('DATETIME(4) is ambiguous with DATETIME(5) whatever its values', () => {
    const low = rowEvents()[6]!;
    expect(low.rows).toBeUndefined();
    expect(low.rowImagesUndecoded).toContain('({"d4":4} and {"d4":5})');
  });

  it('digits that stop fitting after an ALTER TABLE are inferred again', () => {
    const [before, after] = rowEvents().slice(7, 9);
    expect([before!.inferredFractionDigits, afters(before!)]).toEqual([{ d: 5 }, seen[7]]);
    expect([after!.inferredFractionDigits, afters(after!)]).toEqual([{ d: 2 }, ids(seen[8]!, ['2'])]);
  });

  it('TIMESTAMP(2) rows that also read as more rows of TIMESTAMP(0) are not misread: kept as bytes', () => {
    const ts = rowEvents()[9]!;
    expect(seen[9]!.map((r) => r.s)).toEqual([
      '2021-01-14 08:25:36.12',
      '2021-01-14 08:25:36.34',
      '2021-01-14 08:25:36.56',
      '2021-01-14 08:25:36.78',
      '2021-01-14 08:25:36.90',
    ]);
    expect(ts.rows).toBeUndefined();
    expect(ts.rowImagesUndecoded).toContain('({"s":0} and {"s":2})');
  });

  it('dump | encode gives the file back, inferred events and kept ones alike', () => {
    const again = encodeBinlog(events.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`)));
    expect(Buffer.compare(Buffer.from(again), Buffer.from(binlog))).toBe(0);
    expect(toJsonLine(rowEvents()[0])).toContain('"inferredFractionDigits":{"d5":5,"s2":2,"t6":6}');
  });

  it('binlog sql writes the inferred rows, and refuses a kept event with a sentence naming it', () => {
    const context = new SqlContext();
    const kept = rowEvents()[3]!;
    const statements = events.slice(0, events.indexOf(kept)).flatMap((e) => toSql(e, context));
    expect(statements).toContain(
      "UPDATE `inf`.`two` SET `id`=1, `d5`=NULL, `s2`='2020-01-01 00:00:00.05', `t0`='-12:34:56', " +
        "`t6`='-838:59:59.999999' WHERE `id`=1 AND `d5`='2024-02-29 23:59:58.98765' AND `s2`='2001-09-09 " +
        "01:46:40.57' AND `t0`='-12:34:56' AND `t6`='-838:59:59.999999' LIMIT 1",
    );
    const sentence =
      `its row images were kept as bytes (${kept.rowImagesUndecoded}): ` +
      "give the table's definition (--schema-file, --table-def, tableDefinitions) to have its rows";
    expect(() => toSql(kept, context)).toThrow(sentence);
    expect(() => flashback(events)).toThrow(sentence);
  });

  it('flashback of the inferred events writes their undo with the same digits', () => {
    const upTo = events.indexOf(rowEvents()[3]!);
    const undone = decodeBinlog(encodeBinlog(flashback(events.slice(0, upTo)))).filter(isRows);
    expect(undone.map((e) => [e.type, e.inferredFractionDigits])).toEqual([
      ['WRITE_ROWS_EVENT_V1', { d5: 5, s2: 2, t6: 6 }],
      ['UPDATE_ROWS_EVENT_V1', { d5: 5, s2: 2, t6: 6 }],
      ['DELETE_ROWS_EVENT_V1', { d5: 5, s2: 2, t6: 6 }],
    ]);
    expect(undone[0]!.rows!.map((c) => text(c.after))).toEqual(ids(seen[1]!, ['2']));
  });

  // Last: it changes the server's table.
  it(
    'the undo binlog of the UPDATE and the DELETE, replayed by ' +
      'the server, gives back the table as the INSERT left it',
    async () => {
      const [write, , del] = rowEvents();
      // Each transaction: GTID … the row event, then its XID. Undone: the two after the INSERT's.
      const upTo = events.indexOf(del!) + 2;
      const writeAt = events.indexOf(write!);
      const writeStart = events.map((e) => e.type).lastIndexOf('GTID_EVENT', writeAt);
      const undo = flashback([...events.slice(0, writeStart), ...events.slice(writeAt + 2, upTo)]);
      const tmp = mkdtempSync(join(tmpdir(), 'binlog-inferred-undo-'));
      try {
        const file = join(tmp, 'undo.bin');
        writeFileSync(file, encodeBinlog(undo));
        const bin = findMariadb()!;
        const r = await replay(bin.binlogTool, bin.client, file, server.socket);
        expect([r.dump, r.client, r.stderr]).toEqual([0, 0, '']);
        const cols = COLUMNS.two!;
        const rows = await server.query(
          `SELECT ${cols.map((c) => `CAST(${c} AS CHAR)`).join(', ')} FROM inf.two ORDER BY 1`,
        );
        expect(rows.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]!])))).toEqual(seen[0]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
