/**
 * Lazy rows (`rows: 'lazy'`): every cell read from a view is the eager decode's value, by name and by the
 * column's index in the table, on every fixture with rows and on a MariaDB server's binlogs; the dump's
 * JSON of a lazy event is the eager one's; a malformed image fails as it does eagerly.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BinlogError,
  BinlogWriter,
  decodeBinlog,
  InvalidValueError,
  iterateBinlog,
  LazyRow,
  toJsonLine,
  type BinlogEvent,
  type LazyBinlogEvent,
  type Row,
} from '../index.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

interface Compared {
  cells: number;
  rowEvents: number;
  types: Set<string>;
  differences: string[];
}

const skip = () => 'skip' as const;

/** Each cell of each lazy row against the eager row of the same event; the events' JSON lines too. */
function compare(bytes: Uint8Array, seen: Compared): void {
  const [eager, eagerEnd] = upToFraming(() => iterateBinlog(bytes, { onError: skip, payloads: 'nested' }));
  const [lazy, lazyEnd] = upToFraming(() => iterateBinlog(bytes, { onError: skip, payloads: 'nested', rows: 'lazy' }));
  expect(lazyEnd).toBe(eagerEnd);
  expect(lazy.length).toBe(eager.length);
  const pairs = eager.flatMap((e, i): [BinlogEvent, LazyBinlogEvent][] => [
    [e, lazy[i]!],
    ...(e.events ?? []).map((inner, k): [BinlogEvent, LazyBinlogEvent] => [
      inner,
      (lazy[i] as BinlogEvent).events![k] as LazyBinlogEvent,
    ]),
  ]);
  for (const [e, l] of pairs) {
    expect(toJsonLine(l)).toBe(toJsonLine(e));
    if (!('rows' in e) || !e.rows || !('rows' in l) || !l.rows) continue;
    seen.rowEvents++;
    seen.types.add(e.type);
    e.rows.forEach((change, i) => {
      for (const image of ['before', 'after'] as const) {
        const row = change[image];
        const view = l.rows![i]![image];
        expect(view === undefined).toBe(row === undefined);
        if (row && view) seen.cells += sameCells(row, view, e.columnCount, seen.differences);
      }
    });
  }
}

/** The events before a framing error (damaged fixtures end inside an event), and its message. */
function upToFraming<E>(read: () => Iterable<E>): [E[], string | undefined] {
  const out: E[] = [];
  try {
    for (const e of read()) out.push(e);
  } catch (e) {
    return [out, (e as Error).message];
  }
  return [out, undefined];
}

/**
 * Every cell of the view against the row, by name, and by table index when every column is present; each
 * difference named (one expect per cell would be slow over the fixtures' cells).
 */
function sameCells(row: Row, view: LazyRow, columnCount: number, differences: string[]): number {
  const names = Object.keys(row);
  const differ = (what: string, a: unknown, b: unknown) => {
    if (!isDeepStrictEqual(a, b)) differences.push(`${what}: ${String(a)} is not ${String(b)}`);
  };
  differ('names', view.names, names);
  for (const name of names) differ(name, view.get(name), row[name]);
  if (names.length === columnCount) names.forEach((name, i) => differ(`#${i}`, view.get(i), row[name]));
  differ('an unknown name', view.get('no such column'), undefined);
  differ('an index past the columns', view.get(columnCount), undefined);
  differ('materialize()', view.materialize(), row);
  return names.length;
}

describeWithFixtures('lazy rows on the fixtures', () => {
  it('give the eager value of every cell of every fixture with rows', () => {
    const seen: Compared = { cells: 0, rowEvents: 0, types: new Set(), differences: [] };
    let files = 0;
    for (const f of fixtures()) {
      if (!/ROWS/.test(f.notes)) continue;
      compare(new Uint8Array(readFileSync(f.path)), seen);
      files++;
    }
    expect(seen.differences).toEqual([]);
    expect(files).toBeGreaterThan(50);
    expect(seen.rowEvents).toBeGreaterThan(1000);
    expect(seen.types).toContain('PARTIAL_UPDATE_ROWS_EVENT');
    expect(seen.cells).toBeGreaterThan(10_000);
  });
});

describeWithServer('lazy rows on a MariaDB server’s binlogs', () => {
  let server: MariadbServer;
  let binlogs: Uint8Array[];
  beforeAll(async () => {
    server = await startMariadb({ extraArgs: ['--log-bin-compress=ON', '--log-bin-compress-min-len=10'] });
    await server.sql(`CREATE DATABASE z; USE z;
      CREATE TABLE t (id INT PRIMARY KEY, ti TINYINT, bi BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(20,6), \
dt DATETIME(3),
        ts TIMESTAMP(6) NULL, tm TIME(2), da DATE, y YEAR, b BIT(13), e ENUM('a','b','c'), s SET('x','y','z'),
        c CHAR(5), vc VARCHAR(300) CHARACTER SET utf8mb4, l VARCHAR(20) CHARACTER SET latin1, bin BINARY(4), \
tx TEXT, bl BLOB,
        j JSON, cz VARCHAR(100) COMPRESSED);
      INSERT INTO t VALUES (1, -5, 18446744073709551615, 1.5, -2.25, '-12345678901234.123456', \
'2024-02-29 13:14:15.678',
        '2020-01-01 00:00:00.5', '-838:59:59.99', '1000-01-01', 2155, b'1010101010101', 'b', 'x,z',
        'ab', 'Grüße, 世界 🚀', 'façade', 'ab', REPEAT('t', 1000), X'00ff10', '{"a": [1, 2]}', REPEAT('zip', 30));
      INSERT INTO t (id) VALUES (2), (3);
      UPDATE t SET vc = 'changed', dt = NULL WHERE id = 1;
      SET SESSION binlog_row_image = MINIMAL;
      UPDATE t SET ti = 7 WHERE id = 2;
      DELETE FROM t WHERE id = 3;
      SET SESSION binlog_row_image = NOBLOB;
      UPDATE t SET bl = X'01' WHERE id = 1;`);
    binlogs = (await server.stopAndReadBinlogs()).map((b) => new Uint8Array(b.bytes));
  }, 120_000);
  afterAll(async () => server?.stop());

  it('give the eager value of every cell, full, minimal and noblob images, compressed events included', () => {
    const seen: Compared = { cells: 0, rowEvents: 0, types: new Set(), differences: [] };
    for (const bytes of binlogs) compare(bytes, seen);
    expect(seen.differences).toEqual([]);
    expect(seen.rowEvents).toBe(6);
    // The small images are left uncompressed (log_bin_compress_min_len).
    for (const type of [
      'WRITE_ROWS_COMPRESSED_EVENT_V1',
      'UPDATE_ROWS_COMPRESSED_EVENT_V1',
      'UPDATE_ROWS_EVENT_V1',
      'DELETE_ROWS_EVENT_V1',
    ])
      expect(seen.types).toContain(type);
    expect(seen.cells).toBeGreaterThan(100);
  });
});

describe('a malformed image under lazy rows', () => {
  /** A binlog of one row (id, a DATETIME) and where in it the DATETIME's first byte is. */
  function oneRow(): { bytes: Uint8Array; at: number } {
    const w = new BinlogWriter({ timestamp: 1_700_000_000 });
    const t = w.table({
      schema: 's',
      name: 't',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'at', type: 'datetime' },
        { name: 'v', type: 'varchar(10)' },
      ],
    });
    w.insert(t, [{ id: 7, at: '2024-01-02 03:04:05', v: 'abc' }]).commit();
    const bytes = w.toBytes();
    const events = decodeBinlog(bytes);
    const rows = events.find((e) => /^WRITE_ROWS/.test(e.type))!;
    // The row's last bytes: the DATETIME (5 bytes), then 'abc' after its 1-byte length; a CRC32 ends the event.
    const at = rows.pos + rows.header.eventSize - 4 - 4 - 5;
    return { bytes, at };
  }

  it(
    'a value that does not read fails when its cell is read, ' + 'with the error the eager decode keeps the images for',
    () => {
      const { bytes, at } = oneRow();
      bytes[at] &= 0x7f; // the DATETIME's sign bit cleared: a negative DATETIME
      const options = { verifyChecksum: false } as const;
      const eager = decodeBinlog(bytes, options).find((e) => /^WRITE_ROWS/.test(e.type))!;
      const lazy = decodeBinlog(bytes, { ...options, rows: 'lazy' }).find((e) => /^WRITE_ROWS/.test(e.type))!;
      expect('rowImagesUndecoded' in eager && eager.rowImagesUndecoded).toMatch(
        /negative DATETIME \(RowsEvent\.rows\.at\)/,
      );
      const row = 'rows' in lazy ? lazy.rows![0]!.after! : undefined;
      expect(row!.get('id')).toBe(7);
      expect(row!.get('v')).toBe('abc');
      const failure = (read: () => unknown) => {
        try {
          read();
        } catch (e) {
          return e as BinlogError;
        }
        throw new Error('no error');
      };
      for (const e of [failure(() => row!.get('at')), failure(() => row!.materialize())]) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect(e.problem).toBe('negative DATETIME');
        expect(e.schemaPath).toBe('RowsEvent.rows.at');
        // The DATETIME2's error is placed after its 5 bytes.
        expect(e.offset).toBe(at + 5);
      }
    },
  );

  it('images that do not split fail the split, as eagerly, with the same error', () => {
    const { bytes, at } = oneRow();
    bytes[at + 5] = 200; // the VARCHAR's length runs past the event
    const options = { verifyChecksum: false } as const;
    const eager = decodeBinlog(bytes, options).find((e) => /^WRITE_ROWS/.test(e.type))!;
    const lazy = decodeBinlog(bytes, { ...options, rows: 'lazy' }).find((e) => /^WRITE_ROWS/.test(e.type))!;
    const undecoded = (e: object) => ('rowImagesUndecoded' in e ? e.rowImagesUndecoded : undefined);
    expect(undecoded(eager)).toMatch(/length 200 runs past the end .*RowsEvent\.rows\.v/);
    expect(undecoded(lazy)).toBe(undecoded(eager));
    expect(toJsonLine(lazy)).toBe(toJsonLine(eager));
  });
});
