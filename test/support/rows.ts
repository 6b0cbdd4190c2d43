/**
 * Helpers for test/mariadb-rows.test.ts: column specs, the SQL that reads each cell back from the server
 * exactly, and the value the contract says a decoded cell must have, built from the server's
 * answer (never from our decoder's output).
 */
import { expect } from 'vitest';
import type { RowsEvent } from '../../generated/rows.js';
import type { RowChange } from '../../runtime/core/values.js';
import type { BinlogEvent } from '../../runtime/events/event-codec.js';
import type { HintFn } from '../../runtime/values/column.js';
import { expectSameEventJson } from './dump-json.js';

/** How a column is read back and what its decoded value must be. */
export type Kind =
  | { k: 'int'; bytes: 1 | 2 | 3 | 4 | 8; unsigned?: boolean }
  | { k: 'decimal' }
  | { k: 'float' }
  | { k: 'double' }
  | { k: 'temporal' }
  | { k: 'year' }
  | { k: 'bit' }
  | { k: 'enum' }
  | { k: 'set' }
  /** Character data in `charset` (its MariaDB name). */
  | { k: 'text'; charset: string }
  /** Binary data; `fixed` for BINARY(n)-like types, whose stored form drops trailing 0x00 bytes. */
  | { k: 'binary'; fixed?: boolean; hexExpr?: string }
  /** A MariaDB COMPRESSED column over `charset` ('binary' for VARBINARY/BLOB). */
  | { k: 'compressed'; charset: string };

export interface Col {
  name: string;
  ddl: string;
  kind: Kind;
}

export interface TableSpec {
  name: string;
  cols: Col[];
  /** Table options after the columns, e.g. ', PRIMARY KEY (a, b)'. */
  keys?: string;
  /** Row tuples, SQL, in column order. */
  rows: string[];
  /** The UPDATE's SET clause; it must keep the ORDER BY order of the rows. */
  update: string;
  /** ORDER BY for reading back (defaults to every column in order). */
  orderBy?: string;
  /** Statements run (in the same session) before CREATE TABLE, and after it. */
  before?: string;
  after?: string;
}

/** What the TABLE_MAP carries (or the caller's hints supply). */
export interface Meta {
  names: boolean;
  members: boolean;
  charsets: boolean;
  signedness: boolean;
}

export const FULL_META: Meta = { names: true, members: true, charsets: true, signedness: true };
export const MINIMAL_META: Meta = { names: false, members: false, charsets: true, signedness: true };
export const NO_META: Meta = { names: false, members: false, charsets: false, signedness: false };
/** NO_LOG decoded with columnHints giving every column's signedness and charset. */
export const HINTED_META: Meta = { names: false, members: false, charsets: true, signedness: true };

export const q = (name: string) => `\`${name}\``;

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex').toUpperCase();
}
export function fromHex(h: string): Uint8Array {
  return Uint8Array.from(Buffer.from(h, 'hex'));
}

/** The SQL expressions that read one cell back exactly. */
export function refExprs(c: Col): string[] {
  const n = q(c.name);
  switch (c.kind.k) {
    case 'int':
    case 'decimal':
    case 'temporal':
      return [`CAST(${n} AS CHAR)`];
    case 'float':
      return [`CAST(${n} AS DOUBLE)`]; // the float's exact value, printed as the shortest double
    case 'double':
      return [n];
    case 'year':
      return [`${n}+0`];
    case 'bit':
      return [`CAST(${n} AS UNSIGNED)`];
    case 'enum':
      return [`HEX(CONVERT(${n} USING utf8mb4))`, `CAST(${n}+0 AS CHAR)`];
    case 'set':
      // SET+0 is a signed BIGINT (a 64-member SET with every member is -1): read its bits unsigned.
      return [`HEX(CONVERT(${n} USING utf8mb4))`, `CAST(CAST(${n}+0 AS UNSIGNED) AS CHAR)`];
    case 'text':
    case 'compressed':
      // The text, the stored bytes, and the stored bytes again after a trip through Unicode: they
      // differ when a byte is no character of the charset (the server converts it to '?').
      if (c.kind.charset === 'binary') return [`HEX(${n})`, `HEX(${n})`, `HEX(${n})`];
      return [
        `HEX(CONVERT(${n} USING utf8mb4))`,
        `HEX(${n})`,
        `HEX(CONVERT(CONVERT(${n} USING utf8mb4) USING ${c.kind.charset}))`,
      ];
    case 'binary':
      return [c.kind.hexExpr ? c.kind.hexExpr.replaceAll('$', n) : `HEX(${n})`];
  }
}

export function selectSql(t: TableSpec, db: string): string {
  const exprs = t.cols.flatMap(refExprs);
  const order = t.orderBy ?? t.cols.map((c) => q(c.name)).join(', ');
  return `SET time_zone = '+00:00'; SELECT ${exprs.join(', ')} FROM ${q(db)}.${q(t.name)} ORDER BY ${order}`;
}

const utf8 = (h: string) => new TextDecoder('utf-8', { fatal: true }).decode(fromHex(h));

/** The shortest decimal that reads back as the same float32 (the contract's FLOAT form). */
function shortestFloat(x: number): number {
  if (Math.fround(x) !== x) throw new Error(`server's FLOAT value ${x} is not a float32`);
  for (let p = 1; p <= 9; p++) {
    const y = Number(x.toPrecision(p));
    if (Math.fround(y) === x) return y;
  }
  return x;
}

/**
 * A decoded cell in a comparable form: bytes as 'hex:…', SET bitmasks as bigint, compressed cells' stored bytes as a
 * marker.
 */
export type Norm =
  | null
  | number
  | bigint
  | string
  | Norm[]
  | { value: Norm; stored: string }
  | { signed: number | bigint; unsigned: number | bigint };

function normBytes(v: unknown): Norm {
  if (v instanceof Uint8Array) return `hex:${toHex(v)}`;
  return v as Norm;
}

/** Normalizes one decoded cell (Buffers leaking out would fail: only plain Uint8Array is accepted). */
export function normCell(c: Col, v: unknown, meta: Meta): Norm {
  if (v === null || v === undefined) return v as null;
  if (v instanceof Uint8Array && v.constructor !== Uint8Array) return `not a plain Uint8Array: ${v.constructor.name}`;
  if (c.kind.k === 'set' && !meta.members) {
    if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : `unsafe number ${v}`;
    return v as bigint;
  }
  if (c.kind.k === 'compressed') {
    if (typeof v !== 'object' || !('value' in v) || !('stored' in v)) return `not a compressed cell: ${String(v)}`;
    const cell = v as { value: unknown; stored: unknown };
    return {
      value: normBytes(cell.value),
      stored: cell.stored instanceof Uint8Array ? 'bytes' : `stored is ${typeof cell.stored}`,
    };
  }
  return normBytes(v);
}

const signed = (v: bigint, bits: number) => (v >= 1n << BigInt(bits - 1) ? v - (1n << BigInt(bits)) : v);

/** The value the contract gives a cell, from the server's read-back of it (`refs`, as refExprs). */
export function expectedCell(c: Col, refs: (string | null)[], meta: Meta): Norm {
  if (refs[0] === null) return null;
  const r = refs[0]!;
  const k = c.kind;
  switch (k.k) {
    case 'int': {
      const v = BigInt(r);
      const n = (x: bigint) => (k.bytes === 8 ? x : Number(x));
      const s = signed(v, 8 * k.bytes);
      // Without signedness, a value whose high bit is set is given both ways.
      if (meta.signedness || s >= 0n) return n(v);
      return { signed: n(s), unsigned: n(s + (1n << BigInt(8 * k.bytes))) };
    }
    case 'decimal':
    case 'temporal':
      return r;
    case 'float':
      return shortestFloat(Number(r));
    case 'double':
      return Number(r);
    case 'year':
      return Number(r);
    case 'bit':
      return BigInt(r);
    case 'enum':
      return meta.members ? utf8(r) : Number(refs[1]);
    case 'set':
      if (!meta.members) return BigInt(refs[1]!);
      return utf8(r) === '' ? [] : utf8(r).split(',');
    case 'text':
      return meta.charsets && decodesAsText(k.charset, refs[1]!) && refs[2] === refs[1] ? utf8(r) : `hex:${refs[1]}`;
    case 'binary': {
      // Without charsets BINARY(n) cannot be told from CHAR(n): its stored bytes come back as they are.
      const stored = k.fixed && !meta.charsets ? r.replace(/(00)+$/, '') : r;
      return `hex:${stored}`;
    }
    case 'compressed':
      return {
        value: meta.charsets && decodesAsText(k.charset, refs[1]!) && refs[2] === refs[1] ? utf8(r) : `hex:${refs[1]}`,
        stored: 'bytes',
      };
  }
}

/**
 * The character sets the decoder gives text for: those whose tables agree with the server's byte for
 * byte (runtime/values/charsets.ts). Values in any other charset come back as their stored bytes.
 */
const TEXT_CHARSETS = [
  ...['utf8mb4', 'utf8mb3', 'utf8', 'ascii', 'ucs2', 'utf16', 'utf16le', 'utf32', 'gb18030', 'euckr'],
  // The multi-byte sets decoded through the servers' own tables.
  ...['sjis', 'cp932', 'ujis', 'eucjpms', 'big5', 'gbk', 'gb2312'],
  // The single-byte sets, decoded through the servers' own tables.
  ...[
    'latin1',
    'latin2',
    'latin5',
    'latin7',
    'cp850',
    'cp852',
    'koi8r',
    'koi8u',
    'cp1250',
    'cp1251',
    'cp1256',
    'cp1257',
  ],
  ...[
    'cp866',
    'dec8',
    'hp8',
    'swe7',
    'hebrew',
    'greek',
    'tis620',
    'armscii8',
    'keybcs2',
    'macce',
    'macroman',
    'geostd8',
  ],
];
const WIDE = ['ucs2', 'utf16', 'utf16le', 'utf32'];
/** Text for the charsets above, and for ASCII-only bytes in any charset that is not UTF-16/32. */
const decodesAsText = (charset: string, hex: string) =>
  TEXT_CHARSETS.includes(charset) ||
  (charset !== 'binary' && !WIDE.includes(charset) && /^([0-7][0-9a-fA-F])*$/.test(hex));

/** The key a column has in a decoded row. */
export const keyOf = (t: TableSpec, i: number, meta: Meta) => (meta.names ? t.cols[i]!.name : `@${i + 1}`);

/** Server rows (flat, as selectSql returns them) → expected rows keyed as decoded rows are. */
export function expectedRows(t: TableSpec, serverRows: (string | null)[][], meta: Meta): Record<string, Norm>[] {
  return serverRows.map((flat) => {
    const row: Record<string, Norm> = {};
    let at = 0;
    t.cols.forEach((c, i) => {
      const n = refExprs(c).length;
      row[keyOf(t, i, meta)] = expectedCell(c, flat.slice(at, at + n), meta);
      at += n;
    });
    return row;
  });
}

export function normRow(t: TableSpec, row: Record<string, unknown>, meta: Meta): Record<string, Norm> {
  const out: Record<string, Norm> = {};
  t.cols.forEach((c, i) => {
    const key = keyOf(t, i, meta);
    if (key in row) out[key] = normCell(c, row[key], meta);
  });
  for (const key of Object.keys(row)) if (!(key in out)) out[key] = `unexpected column ${key}`;
  return out;
}

/** A stable text of a normalized row, to sort rows by. */
export function canon(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

export const sortRows = <T>(rows: T[]): T[] =>
  [...rows].sort((a, b) => (canon(a) < canon(b) ? -1 : canon(a) > canon(b) ? 1 : 0));

/** A v1/v2 row event (its rows may be kept as bytes: see rowEvents). */
export type RowsEventAny = Exclude<Extract<BinlogEvent, RowsEvent>, { type: `PRE_GA_${string}` }>;
/**
 * An event, its rows split where it is a v1/v2 row event: what the tests' own binlogs hold (their images always split).
 */
export type Split<E> = E extends RowsEvent ? E & { rows: RowChange[] } : E;
/** A v1/v2 row event whose images were split into rows. */
export type RowsEventOf = Split<RowsEventAny>;

export const ROW_TYPES = {
  write: ['WRITE_ROWS_EVENT_V1', 'WRITE_ROWS_COMPRESSED_EVENT_V1'],
  update: ['UPDATE_ROWS_EVENT_V1', 'UPDATE_ROWS_COMPRESSED_EVENT_V1'],
  delete: ['DELETE_ROWS_EVENT_V1', 'DELETE_ROWS_COMPRESSED_EVENT_V1'],
} as const;

export function rowEvents(events: BinlogEvent[]): RowsEventOf[] {
  return events.filter((e): e is RowsEventOf => 'rows' in e && Array.isArray((e as { rows?: unknown }).rows));
}

/** Column hints from the specs: each column's declared signedness and charset (for NO_LOG binlogs). */
export function hintsFrom(db: string, tables: TableSpec[]): HintFn {
  const byName = new Map(tables.map((t) => [t.name, t]));
  return (table, column) => {
    if (table.schema !== db || typeof table.table !== 'string') return undefined;
    const k = byName.get(table.table)?.cols[column.index]?.kind;
    if (!k) return undefined;
    if (k.k === 'int') return { unsigned: k.unsigned ?? false };
    if (k.k === 'text' || k.k === 'compressed') return { charset: k.charset };
    if (k.k === 'binary') return { charset: 'binary' };
    return undefined;
  };
}

/**
 * Every file re-encodes to its identical bytes, and the dump's JSON of its events is the same both ways
 * (test/dump-json.test.ts).
 */
export function expectRoundTrip(
  files: { path: string; bytes: Uint8Array }[],
  encode: (b: Uint8Array) => Uint8Array,
): void {
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    const again = encode(f.bytes);
    const same = again.length === f.bytes.length && Buffer.compare(Buffer.from(again), Buffer.from(f.bytes)) === 0;
    if (!same) {
      let i = 0;
      while (i < again.length && i < f.bytes.length && again[i] === f.bytes[i]) i++;
      expect.fail(`${f.path}: re-encoded bytes differ from offset ${i} (${again.length} vs ${f.bytes.length} bytes)`);
    }
    expectSameEventJson(f.bytes, f.path);
  }
}
