/**
 * The inference of MariaDB's own fractional digits (runtime/rows/fractions.ts) on images laid out by hand:
 * Field_timestamp_hires stores 4 bytes big-endian of the seconds, then the fraction in (n+1)/2 bytes; the
 * seconds 0x60000000 are 2021-01-14 08:25:36 UTC.
 */
import { describe, expect, it } from 'vitest';
import { RowImages, type TableMapEvent } from '../../generated/rows.js';
import { EncodeError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import type { RowChange } from '../../runtime/core/values.js';
import { Writer } from '../../runtime/core/writer.js';
import type { RowLayout, RowTables } from '../../runtime/core/tables.js';
import { rowTables as tablesOf } from '../../runtime/rows/row-tables.js';
import { TableRegistry } from '../../runtime/tables/registry.js';
import { caught, hex, spaced } from './helpers.js';

/** Table 7 of a binlog of `version`: an INT id and a TIMESTAMP s, or `count` TIMESTAMPs; `named`: with COLUMN_NAME. */
function rowTables(version: string, count = 0, named = true): RowTables {
  const tables = new TableRegistry();
  tables.newFormat('mariadb', version);
  const types = count ? Array.from({ length: count }, () => 'TIMESTAMP' as const) : (['LONG', 'TIMESTAMP'] as const);
  const names = count ? types.map((_, i) => `s${i}`) : ['id', 's'];
  const map: TableMapEvent = {
    tableId: 7,
    flags: 1,
    schemaName: 'db',
    tableName: 't',
    columnCount: types.length,
    columnTypes: [...types],
    columnMetadata: types.map(() => ({})),
    nullable: types.map(() => true),
    optionalMetadata: named ? [{ code: 'COLUMN_NAME', names }] : [],
  };
  tables.register(map);
  return tablesOf(tables, {});
}

const layout = (columns = [true, true]): RowLayout => ({
  tableId: 7,
  columns,
  images: RowImages.AFTER,
  path: 'T.rows',
});
const split = (t: RowTables, bytes: string, columns = [true, true]) =>
  t.splitRows(new Reader(hex(bytes)), layout(columns));
// One row: its null bitmap (none NULL, the spare bits set), id 1, then s.
const row = (fraction: string) => `fc 01 00 00 00 60 00 00 00 ${fraction}`;

describe('fraction digits inferred from the images', () => {
  it('infers TIMESTAMP(2) from .57 (57 is no 1-digit fraction) and writes the row back with it', () => {
    const t = rowTables('10.0.11-MariaDB-log');
    const got = split(t, row('39'));
    expect([got.rows, got.inferred]).toEqual([[{ after: { id: 1, s: '2021-01-14 08:25:36.57' } }], { s: 2 }]);
    const w = new Writer();
    t.encodeRows(w, got.rows!, layout(), got.inferred);
    expect(spaced(w.view())).toBe(spaced(hex(row('39'))));
  });

  it('keys the digits by @N where the TABLE_MAP names no columns', () => {
    const t = rowTables('10.0.11-MariaDB-log', 0, false);
    const got = split(t, row('39'));
    expect([got.rows, got.inferred]).toEqual([[{ after: { '@1': 1, '@2': '2021-01-14 08:25:36.57' } }], { '@2': 2 }]);
  });

  it('keeps .05 as bytes, saying it reads as TIMESTAMP(1) and (2); after .57 the kept 2 reads it', () => {
    const t = rowTables('10.0.11-MariaDB-log');
    expect(split(t, row('05'))).toEqual({
      undecoded:
        'the row images do not split into rows: ' +
        'more than one choice of fraction digits for s makes every image read and end with the event ({"s":1} ' +
        'and {"s":2}); give the table\'s definition; kept as bytes',
      bytes: hex(row('05')),
    });
    split(t, row('39'));
    const got = split(t, row('05'));
    expect([got.rows![0]!.after!.s, got.inferred]).toEqual(['2021-01-14 08:25:36.05', { s: 2 }]);
  });

  it(
    'infers nothing before MariaDB 5.3, which has no such forms: the ' +
      'row reads as TIMESTAMP(0), and its last byte as a row of a NULL id',
    () => {
      // 0x39 as a null bitmap: id NULL (bit 0), s not (bit 1), whose 4 bytes are not there.
      expect(split(rowTables('5.2.14-MariaDB-log'), row('39')).undecoded).toBe(
        'the row images do not split into rows: need 4 bytes, 0 left (T.rows.s); kept as bytes',
      );
    },
  );

  it('stops at its bound: a row of 30 such columns', () => {
    const t = rowTables('10.0.11-MariaDB-log', 30);
    const bytes = `00 00 00 c0 ${Array.from({ length: 30 }, () => '60 00 00 00 39').join(' ')}`;
    expect(
      split(
        t,
        bytes,
        Array.from({ length: 30 }, () => true),
      ).undecoded,
    ).toMatch(
      /^the row images do not split into rows: more than 4096 choices of fraction digits for s0, s1, .*, s29 \(/,
    );
  });

  it('refuses to write with digits for a column that is no such temporal, or digits past 6', () => {
    const t = rowTables('10.0.11-MariaDB-log');
    const rows: RowChange[] = [{ after: { id: 1, s: '2021-01-14 08:25:36.57' } }];
    const write = (digits: Record<string, number>) =>
      caught(EncodeError, () => t.encodeRows(new Writer(), rows, layout(), digits));
    expect([write({ id: 2 }).problem, write({ id: 2 }).schemaPath]).toEqual([
      "column 'id' is no TIME, DATETIME or TIMESTAMP whose fraction digits the binlog leaves unsaid",
      'T.rows.inferredFractionDigits.id',
    ]);
    expect(write({ s: 7 }).problem).toBe('7 is no number of fraction digits (1 to 6)');
  });
});
