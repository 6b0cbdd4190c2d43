/**
 * A consistent snapshot's rows, as the capabilities that hand them on share them: what a snapshot is
 * (its binlog position and its tables), each table's rows read in keyset pages by primary key inside the
 * snapshot's transaction, and a row's cells as the dump's JSON values and as SQL literals. Cells come as
 * the text protocol's bytes (ClientConnection.selectRows): the server's own text of each value, in UTF-8
 * for text, so neither form is a guess of ours.
 */
import { ColumnType } from '../generated/rows.js';
import { shortestFloat32 } from '../runtime/values/numbers.js';
import type { ClientConnection, ResultColumn } from './mysql2-adapter.js';

/** Where a snapshot stands in the binlog: its changes are those after this point. */
export interface SnapshotPoint {
  file: string;
  position: number;
  /** The GTID state at that point: MariaDB's (BINLOG_GTID_POS) or MySQL's gtid_executed. */
  gtid: string;
}

/** A table as the snapshot reads it. */
export interface SnapshotTable {
  schema: string;
  name: string;
  /** 'schema.table', as the dump names tables. */
  qualified: string;
  /** SHOW CREATE TABLE inside the snapshot's transaction. */
  createSql: string;
  /** The columns read (generated ones left out: the server computes them), as the server describes them. */
  columns: ResultColumn[];
  /** The primary key's columns, in key order; empty for a table without one. */
  key: string[];
}

/** A row's cells, as the text protocol sends them (null for NULL), in the order of the table's columns. */
export type SnapshotRow = (Buffer | null)[];

/** ColumnDefinition flags. */
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
/** The collation id of binary strings. */
const BINARY_COLLATION = 63;

const INTEGERS = new Set<number>([
  ColumnType.TINY,
  ColumnType.SHORT,
  ColumnType.INT24,
  ColumnType.LONG,
  ColumnType.LONGLONG,
  ColumnType.YEAR,
]);
const DECIMALS = new Set<number>([ColumnType.DECIMAL, ColumnType.NEWDECIMAL]);
const TEMPORALS = new Set<number>([
  ColumnType.DATE,
  ColumnType.NEWDATE,
  ColumnType.TIME,
  ColumnType.DATETIME,
  ColumnType.TIMESTAMP,
]);

/** How a column's cells are read and written. */
type CellKind = 'integer' | 'decimal' | 'float' | 'double' | 'temporal' | 'bit' | 'enum' | 'set' | 'bytes' | 'text';

export function cellKind(c: ResultColumn): CellKind {
  if (INTEGERS.has(c.columnType)) return 'integer';
  if (DECIMALS.has(c.columnType)) return 'decimal';
  if (TEMPORALS.has(c.columnType)) return 'temporal';
  if (c.columnType === ColumnType.FLOAT) return 'float';
  if (c.columnType === ColumnType.DOUBLE) return 'double';
  if (c.columnType === ColumnType.BIT) return 'bit';
  if (c.flags & ENUM_FLAG) return 'enum';
  if (c.flags & SET_FLAG) return 'set';
  return c.characterSet === BINARY_COLLATION ? 'bytes' : 'text';
}

/**
 * The SELECT list of a table's columns. A FLOAT is read as the DOUBLE it widens to exactly, since the
 * servers print a FLOAT rounded to 6 digits, which may not read back as the same float.
 */
export function selectList(columns: ResultColumn[]): string {
  return columns
    .map((c) => (cellKind(c) === 'float' ? `CAST(${quoteName(c.name)} AS DOUBLE)` : quoteName(c.name)))
    .join(', ');
}

export function quoteName(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/** `schema`.`table`. */
export function tableName(t: { schema: string; name: string }): string {
  return `${quoteName(t.schema)}.${quoteName(t.name)}`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a cell sent as ASCII or UTF-8 text; bytes that are no UTF-8 stay bytes. */
function textOf(b: Buffer): string | Buffer {
  try {
    return utf8.decode(b);
  } catch {
    return b;
  }
}

/**
 * A cell as the dump writes a row event's value of the column (docs/json-format.md): integers as numbers
 * (bigints past 2^53), DECIMAL as its text, FLOAT as the shortest number of its float32, dates and times as
 * their text (TIMESTAMP in UTC: the snapshot's session is), ENUM as its member, SET as an array of members,
 * BIT as an integer, binary strings as bytes, text as a string.
 */
export function cellJson(c: ResultColumn, b: Buffer | null): unknown {
  if (b === null) return null;
  const text = () => b.toString('latin1');
  switch (cellKind(c)) {
    case 'integer': {
      const n = Number(text());
      return Number.isSafeInteger(n) ? n : BigInt(text());
    }
    case 'decimal':
    case 'temporal':
      return text();
    case 'float':
      return shortestFloat32(Math.fround(Number(text())));
    case 'double':
      return Number(text());
    case 'bit':
      return b.length === 0 ? 0 : BigInt(`0x${b.toString('hex')}`);
    case 'enum':
      return textOf(b);
    case 'set':
      return b.length === 0 ? [] : String(textOf(b)).split(',');
    case 'bytes':
      return b;
    case 'text':
      return textOf(b);
  }
}

/** A row as the dump's image: each column's value by name. */
export function rowJson(columns: ResultColumn[], row: SnapshotRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) out[columns[i]!.name] = cellJson(columns[i]!, row[i]!);
  return out;
}

/**
 * A cell as an SQL literal that gives the column the same value: numbers as the server's text, dates and
 * times quoted, BIT and binary strings in hex, text (ENUM and SET members too) as UTF-8 hex under
 * `_utf8mb4`, which the server converts to the column's character set and no SQL mode reads otherwise.
 */
export function cellSql(c: ResultColumn, b: Buffer | null): string {
  if (b === null) return 'NULL';
  switch (cellKind(c)) {
    case 'integer':
    case 'decimal':
    case 'float':
    case 'double':
      return b.toString('latin1');
    case 'temporal':
      return `'${b.toString('latin1')}'`;
    case 'bit':
    case 'bytes':
      return `X'${b.toString('hex')}'`;
    default:
      return `_utf8mb4 X'${b.toString('hex')}'`;
  }
}

/** A row as the parenthesised list of an INSERT's VALUES. */
export function rowSql(columns: ResultColumn[], row: SnapshotRow): string {
  return `(${row.map((b, i) => cellSql(columns[i]!, b)).join(',')})`;
}

/**
 * Whether keyset pages can follow the key: the server orders ENUM by index and compares it as text, and
 * floating-point text need not compare as the stored value, so such keys are read in one pass.
 */
function pageable(table: SnapshotTable): boolean {
  const kinds = table.key.map((k) => cellKind(table.columns.find((c) => c.name === k)!));
  return kinds.length > 0 && kinds.every((k) => ['integer', 'decimal', 'temporal', 'bytes', 'text'].includes(k));
}

/**
 * `(k1, k2) > (v1, v2)` written out as `k1 > v1 OR (k1 = v1 AND k2 > v2)`, which both servers read as
 * ranges of the key (MariaDB does not for a row comparison).
 */
export function after(key: string[], values: string[]): string {
  const terms = key.map((_, i) => {
    const equal = key.slice(0, i).map((k, j) => `${quoteName(k)} = ${values[j]}`);
    return [...equal, `${quoteName(key[i]!)} > ${values[i]}`].join(' AND ');
  });
  return terms.map((t) => `(${t})`).join(' OR ');
}

/**
 * The table's rows, by primary key in pages of at most `chunk`, each page a query that starts after the
 * last key read (`WHERE (key) > (last) ORDER BY key LIMIT chunk`); a table without a usable key in one
 * query. Either is read as it streams and handed on in pieces of at most PIECE_ROWS. Run inside the snapshot's
 * transaction, every page reads the same point in time.
 */
export async function* tablePages(
  conn: ClientConnection,
  table: SnapshotTable,
  chunk: number,
): AsyncGenerator<SnapshotRow[]> {
  const from = `SELECT ${selectList(table.columns)} FROM ${tableName(table)}`;
  if (!pageable(table)) {
    yield* pagesOf((await conn.selectRows(from)).rows, handed(chunk));
    return;
  }
  const keyAt = table.key.map((k) => table.columns.findIndex((c) => c.name === k));
  const order = ` ORDER BY ${table.key.map(quoteName).join(', ')} LIMIT ${chunk}`;
  let last: SnapshotRow | undefined;
  for (;;) {
    const where = last
      ? ` WHERE ${after(
          table.key,
          keyAt.map((i) => cellSql(table.columns[i]!, last![i]!)),
        )}`
      : '';
    let read = 0;
    for await (const piece of pagesOf((await conn.selectRows(from + where + order)).rows, handed(chunk))) {
      read += piece.length;
      last = piece.at(-1);
      yield piece;
    }
    if (read < chunk) return;
  }
}

/**
 * Rows handed on at a time, at most: a page of the server's is handed on in pieces as it streams, so that
 * what is held while a piece is written does not grow with --snapshot-chunk.
 */
const PIECE_ROWS = 1000;

const handed = (chunk: number) => Math.min(chunk, PIECE_ROWS);

/** A stream of rows handed on in pages of `chunk`. */
async function* pagesOf(rows: AsyncIterable<SnapshotRow>, chunk: number): AsyncGenerator<SnapshotRow[]> {
  let page: SnapshotRow[] = [];
  for await (const row of rows) {
    page.push(row);
    if (page.length === chunk) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
