/**
 * protocol/snapshot-rows.ts without a server: the keyset condition of a composite key, and cells read from
 * the text protocol's bytes into the dump's values and into SQL literals (expected values written by hand).
 */
import { describe, expect, it } from 'vitest';
import { ColumnType } from '../generated/rows.js';
import type { ClientConnection, ResultColumn } from '../protocol/mysql2-adapter.js';
import { after, cellJson, cellSql, tablePages } from '../protocol/snapshot-rows.js';

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

/**
 * A connection whose every SELECT answers `rows` rows of one INT column (ids from `first`), counting the
 * rows it has given: what tablePages holds is at most what it has handed on.
 */
function fakeConnection(rowsPerQuery: number[], sent: { rows: number; queries: string[] }): ClientConnection {
  const selectRows = async (sql: string) => {
    const n = rowsPerQuery[sent.queries.length] ?? 0;
    sent.queries.push(sql);
    async function* rows() {
      for (let i = 0; i < n; i++) {
        sent.rows++;
        yield [Buffer.from(String(sent.rows))];
      }
    }
    return { columns: [column(ColumnType.LONG, { name: 'id' })], rows: rows() };
  };
  // The snapshot's pages need only selectRows of a connection.
  return { selectRows } as unknown as ClientConnection;
}

it('hands a page of the default 10 000 rows on in pieces of at most 1000 as it streams, one query a page', async () => {
  const sent = { rows: 0, queries: [] as string[] };
  const table = {
    schema: 'd',
    name: 't',
    qualified: 'd.t',
    createSql: '',
    columns: [column(ColumnType.LONG, { name: 'id' })],
    key: ['id'],
  };
  const pieces: number[] = [];
  for await (const piece of tablePages(fakeConnection([10_000, 2_500], sent), table, 10_000)) {
    // The rows read from the server so far are the pieces handed on, and this one: none held beyond it.
    expect(sent.rows).toBe(pieces.reduce((a, b) => a + b, 0) + piece.length);
    pieces.push(piece.length);
  }
  expect(pieces).toEqual([...Array<number>(12).fill(1000), 500]);
  expect(sent.queries).toEqual([
    'SELECT `id` FROM `d`.`t` ORDER BY `id` LIMIT 10000',
    'SELECT `id` FROM `d`.`t` WHERE (`id` > 10000) ORDER BY `id` LIMIT 10000',
  ]);
});
