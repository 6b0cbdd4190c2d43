/**
 * protocol/snapshot-rows.ts without a server: the keyset condition of a composite key, and cells read from
 * the text protocol's bytes into the dump's values and into SQL literals (expected values written by hand).
 */
import { describe, expect, it } from 'vitest';
import { ColumnType } from '../generated/rows.js';
import type { ResultColumn } from '../protocol/mysql2-adapter.js';
import { after, cellJson, cellSql } from '../protocol/snapshot-rows.js';

const column = (columnType: number, more: Partial<ResultColumn> = {}): ResultColumn => ({
  name: 'c',
  columnType,
  flags: 0,
  characterSet: 45,
  decimals: 0,
  ...more,
});
const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('snapshot rows', () => {
  it('writes (a, b, c) > (1, 2, 3) as ranges of the key', () => {
    expect(after(['a', 'b', 'c'], ['1', '2', '3'])).toBe(
      '(`a` > 1) OR (`a` = 1 AND `b` > 2) OR (`a` = 1 AND `b` = 2 AND `c` > 3)',
    );
  });

  it('reads cells as the dump writes row values', () => {
    expect(cellJson(column(ColumnType.LONGLONG), bytes('18446744073709551615'))).toBe(18446744073709551615n);
    expect(cellJson(column(ColumnType.LONG), bytes('-7'))).toBe(-7);
    expect(cellJson(column(ColumnType.NEWDECIMAL), bytes('-0.50'))).toBe('-0.50');
    // 1.1 as a float32, widened to a double by the SELECT: the shortest text of that float32.
    expect(cellJson(column(ColumnType.FLOAT), bytes('1.100000023841858'))).toBe(1.1);
    expect(cellJson(column(ColumnType.DOUBLE), bytes('-0'))).toBe(-0);
    expect(cellJson(column(ColumnType.BIT, { characterSet: 63 }), Buffer.from([0x01, 0x02]))).toBe(258n);
    expect(cellJson(column(ColumnType.STRING, { flags: 2048 }), bytes('a,c'))).toEqual(['a', 'c']);
    expect(cellJson(column(ColumnType.STRING, { flags: 2048 }), bytes(''))).toEqual([]);
    expect(cellJson(column(ColumnType.VAR_STRING, { characterSet: 63 }), Buffer.from([0, 255]))).toEqual(
      Buffer.from([0, 255]),
    );
    expect(cellJson(column(ColumnType.VAR_STRING), bytes('é😀'))).toBe('é😀');
    expect(cellJson(column(ColumnType.LONG), null)).toBe(null);
  });

  it('writes cells as literals the server reads back as the same value', () => {
    expect(cellSql(column(ColumnType.LONGLONG), bytes('-9'))).toBe('-9');
    expect(cellSql(column(ColumnType.DATETIME), bytes('2024-01-02 03:04:05.5'))).toBe("'2024-01-02 03:04:05.5'");
    expect(cellSql(column(ColumnType.VAR_STRING), bytes("it's"))).toBe("_utf8mb4 X'69742773'");
    expect(cellSql(column(ColumnType.BLOB, { characterSet: 63 }), Buffer.from([0, 1]))).toBe("X'0001'");
    expect(cellSql(column(ColumnType.LONG), null)).toBe('NULL');
  });
});
