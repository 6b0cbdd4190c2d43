/**
 * The rows a caller gives the builder, checked against their table before anything is written, each
 * value given back in the form its cell writer takes.
 *
 * One check per fact: each value is first written into a scratch buffer by its column's cell writer
 * (runtime/values/, chosen by cells.ts), which refuses what the column's binlog form cannot hold (an
 * integer out of range, a DECIMAL with too many digits, a fraction beyond the fsp, a BIT too wide, a YEAR
 * out of range, text its character set cannot hold, a BLOB longer than its length prefix) and gives the
 * bytes the image takes. The checks here are the SQL ones those writers cannot know: NOT NULL, a real
 * calendar date and time of day, TIME's and TIMESTAMP's ranges, FLOAT's range, UNSIGNED floats and
 * decimals, a CHAR or VARCHAR's length, text that reads back the same, JSON, geometry, ENUM indexes and
 * SET members.
 */
import { ColumnType, GeometryType, GeometryTypeNames } from '../generated/rows.js';
import { BinlogError, EncodeError } from '../runtime/core/errors.js';
import type { CellValue, Row } from '../runtime/core/values.js';
import { Writer } from '../runtime/core/writer.js';
import type { CellWriter } from '../runtime/values/cell-codec.js';
import { cellCodec } from '../runtime/values/cells.js';
import { beyondBmp, decodeText, encodableText, encodeText } from '../runtime/values/charsets.js';
import { cellColumn, sqlTypeFacts } from '../runtime/tables/sqltypes.js';
import type { Table } from '../runtime/tables/table.js';
import type { BuiltColumn, SqlKind } from '../runtime/tables/table-types.js';

/** A row as the caller gives it: column name → value, in the decoder's value forms; NULL is null. */
export type RowInput = Record<string, CellValue | undefined>;

/** Where a row comes from, for its errors. */
export interface RowSite {
  table: string;
  row: number;
  image?: 'before' | 'after';
}

/** A row value that its column cannot hold (out of range, too long, not a member, not NULL-able …). */
export class RowValueError extends EncodeError {
  readonly table: string;
  readonly column: string;
  /** Index of the row in the statement's rows (0-based). */
  readonly row: number;
  /** Which image of an UPDATE row, when it is one. */
  readonly image: 'before' | 'after' | undefined;
  readonly value: unknown;
  /** The problem alone, without the table, row and column the message names. */
  readonly reason: string;
  constructor(reason: string, where: RowSite, column: string, value: unknown) {
    const image = where.image ? ` (${where.image} image)` : '';
    super(
      `table ${where.table}, row ${where.row}${image}, column ${column}: ${reason}`,
      `${where.table}[${where.row}]${where.image ? `.${where.image}` : ''}.${column}`,
    );
    this.reason = reason;
    this.table = where.table;
    this.column = column;
    this.row = where.row;
    this.image = where.image;
    this.value = value;
  }
}

/** A value as an error message shows it. */
export function show(v: unknown): string {
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return JSON.stringify(v);
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** A row image, checked: its values as the cell writers take them, and its bytes in a v1 row event. */
export interface CheckedImage {
  row: Row;
  size: number;
}

/** Checks the row images of one table, with the cell writers of its columns. */
export class RowChecker {
  private readonly writers: CellWriter[];
  private readonly scratch = new Writer(1024);
  /** An image's null bitmap: a bit per column (all are present in the builder's row events). */
  private readonly bitmapBytes: number;

  constructor(private readonly table: Table) {
    this.writers = table.columns.map((b) => {
      const column = cellColumn(b);
      return cellCodec(column).writer(column, `${table.qualified}.${b.name}`);
    });
    this.bitmapBytes = (table.columns.length + 7) >> 3;
  }

  /**
   * A complete row image from a row given by the caller, each value checked against its column: every
   * column present, in column order, omitted ones at their default (or NULL).
   */
  image(row: RowInput, where: RowSite): CheckedImage {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new RowValueError(`expected a row object, got ${show(row)}`, where, '*', row);
    }
    for (const name of Object.keys(row)) {
      if (!this.table.column(name)) throw new RowValueError('no such column in the table', where, name, row[name]);
    }
    const out: Row = {};
    let size = this.bitmapBytes;
    this.table.columns.forEach((c, i) => {
      const given = Object.hasOwn(row, c.name) ? row[c.name] : undefined;
      const v = given === undefined ? defaultOf(c, where) : given;
      const value = checkValue(c, v, where);
      if (value !== null) size += this.written(i, value, where, v);
      out[c.name] = value;
    });
    return { row: out, size };
  }

  /** The bytes column i's cell writer makes of the value; its refusal, as the row's. */
  private written(i: number, value: CellValue, where: RowSite, given: CellValue): number {
    const w = this.scratch;
    w.reset();
    try {
      this.writers[i]!(w, value);
    } catch (e) {
      if (!(e instanceof BinlogError)) throw e;
      // The writer knows the binlog form only: the SQL type says whose limit it is.
      const c = this.table.columns[i]!;
      throw new RowValueError(`${e.problem} (${c.sqlType})`, where, c.name, given);
    }
    return w.pos;
  }
}

const checkers = new WeakMap<Table, RowChecker>();

/** The checker of a table's rows, made once per table (its cell writers are compiled for its columns). */
export function rowChecker(table: Table): RowChecker {
  let checker = checkers.get(table);
  if (!checker) checkers.set(table, (checker = new RowChecker(table)));
  return checker;
}

/** The value of a column the row leaves out: its default, NULL, or a refusal. */
function defaultOf(c: BuiltColumn, where: RowSite): CellValue {
  if (c.default !== undefined) return c.default;
  if (c.nullable) return null;
  throw new RowValueError(
    `the row has no value for this NOT NULL column (and it has no default)`,
    where,
    c.name,
    undefined,
  );
}

type Fail = (problem: string) => never;

function checkValue(c: BuiltColumn, v: CellValue, where: RowSite): CellValue {
  const fail: Fail = (problem) => {
    throw new RowValueError(problem, where, c.name, v);
  };
  if (v === null) {
    if (!c.nullable) fail(`NULL in a NOT NULL column (${c.sqlType})`);
    return null;
  }
  const check = CHECKS[c.kind];
  return check ? check(c, v, fail) : v;
}

/** Per kind, the SQL checks of a value and the form its cell writer takes; kinds without one go as given. */
const CHECKS: Partial<Record<SqlKind, (c: BuiltColumn, v: CellValue, fail: Fail) => CellValue>> = {
  int(c, v, fail) {
    // The range is the cell writer's, which would call a fraction out of range and take BIGINT's decimal strings.
    if (!(typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))))
      return fail(`expected an integer for ${c.sqlType}, got ${show(v)}`);
    // Only BIGINT's writer takes bigints.
    return typeof v === 'bigint' && c.columnType !== ColumnType.LONGLONG ? Number(v) : v;
  },
  float(c, v, fail) {
    // The cell writer writes any number; the server stores no NaN or infinity.
    if (typeof v !== 'number' || !Number.isFinite(v))
      return fail(`expected a finite number for ${c.sqlType}, got ${show(v)}`);
    if (c.realType === ColumnType.FLOAT && !Number.isFinite(Math.fround(v))) fail(`${v} is out of range for FLOAT`);
    if (c.unsigned && v < 0) fail(`${v} is negative, in ${c.sqlType}`);
    return v;
  },
  decimal: decimalText,
  date(_c, v, fail) {
    const m = typeof v === 'string' ? DATE_RE.exec(v) : null;
    if (!m) return fail(`expected a date 'YYYY-MM-DD', got ${show(v)}`);
    const problem = dateProblem(Number(m[1]), Number(m[2]), Number(m[3]));
    if (problem) fail(`${v}: ${problem}`);
    return v;
  },
  time(_c, v, fail) {
    const m = typeof v === 'string' ? TIME_RE.exec(v) : null;
    if (!m) return fail(`expected a time '[-]HH:MM:SS[.ffffff]', got ${show(v)}`);
    const [h, mi, s] = [Number(m[2]), Number(m[3]), Number(m[4])];
    if (mi > 59 || s > 59) fail(`${v}: minutes and seconds are at most 59`);
    if (h > MAX_HOURS) fail(`${v} is out of range for TIME (±${MAX_HOURS}:59:59)`);
    return v;
  },
  datetime: datetimeText,
  timestamp: datetimeText,
  year(_c, v, fail) {
    // The range is the cell writer's; a fraction it would write cut off.
    const y = typeof v === 'bigint' ? Number(v) : v;
    if (typeof y !== 'number' || !Number.isInteger(y)) return fail(`expected a year, got ${show(v)}`);
    return y;
  },
  enum(c, v, fail) {
    const members = c.members!;
    if (typeof v === 'number') {
      if (!Number.isInteger(v) || v < 0 || v > members.length) fail(`index ${v} is not 0 to ${members.length}`);
      return v;
    }
    if (typeof v !== 'string') return fail(`expected a member of ${c.sqlType}, got ${show(v)}`);
    const index = members.indexOf(v);
    if (index < 0) fail(`${show(v)} is not a member of ${c.sqlType}`);
    // Written by its index, which needs no matching of names in the column's character set.
    return index + 1;
  },
  set: setMask,
  char: checkString,
  varchar: checkString,
  blob: checkString,
  geometry(c, v, fail) {
    if (!(v instanceof Uint8Array)) return fail(`expected the bytes of a geometry (SRID and WKB), got ${show(v)}`);
    checkGeometry(c, v, fail);
    return v;
  },
};

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const TIME_RE = /^(-?)(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?$/;

const MAX_HOURS = sqlTypeFacts('time')!.maxHours!;
const MAX_TIMESTAMP_SECONDS = sqlTypeFacts('timestamp')!.maxSeconds!;

const daysIn = (y: number, m: number) =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

/** Checks a date's parts; '' when they are valid (or all zero, MySQL's zero date). */
function dateProblem(y: number, m: number, d: number): string {
  if (y === 0 && m === 0 && d === 0) return '';
  if (m < 1 || m > 12) return `month ${m} is not 1 to 12`;
  if (d < 1 || d > daysIn(y, m)) return `day ${d} is not in ${y}-${String(m).padStart(2, '0')}`;
  return '';
}

/**
 * A DECIMAL as the cell writer takes it, from a decimal string (with a sign, without digits on one side
 * of the point), a number or a bigint: '[-]digits[.digits]'. Whether its digits fit is the writer's.
 */
function decimalText(c: BuiltColumn, v: CellValue, fail: Fail): CellValue {
  const text =
    typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v) && !/e/i.test(String(v))) ? String(v) : v;
  const m = typeof text === 'string' ? DECIMAL_RE.exec(text) : null;
  if (!m || (m[2] === '' && !m[3])) return fail(`expected a decimal string for ${c.sqlType}, got ${show(v)}`);
  const whole = m[2]!.replace(/^0+(?=\d)/, '') || '0';
  const frac = m[3] ?? '';
  const negative = m[1] === '-' && !/^0*$/.test(whole + frac);
  if (negative && c.unsigned) fail(`${text} is negative, in ${c.sqlType}`);
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** DATETIME and TIMESTAMP: a calendar date and a time of day; TIMESTAMP within its seconds, or zero. */
function datetimeText(c: BuiltColumn, v: CellValue, fail: Fail): CellValue {
  const m = typeof v === 'string' ? DATETIME_RE.exec(v) : null;
  if (!m)
    return fail(`expected 'YYYY-MM-DD HH:MM:SS[.ffffff]'${c.kind === 'timestamp' ? ' (UTC)' : ''}, got ${show(v)}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const problem = dateProblem(y, mo, d);
  if (problem) fail(`${v}: ${problem}`);
  if (h > 23 || mi > 59 || s > 59) fail(`${v}: not a time of day`);
  if (c.kind === 'timestamp') {
    const zero = y === 0 && mo === 0 && d === 0;
    if (zero && (h || mi || s || /[1-9]/.test(m[7] ?? ''))) fail(`${v}: the zero TIMESTAMP has no time`);
    const seconds = zero ? 0 : Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
    if (!zero && (seconds < 1 || seconds > MAX_TIMESTAMP_SECONDS))
      fail(`${v} is out of range for TIMESTAMP (1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC)`);
  }
  return v;
}

/** A SET as its bitmask, from its member names (each once) or a bitmask of its members. */
function setMask(c: BuiltColumn, v: CellValue, fail: Fail): CellValue {
  const members = c.members!;
  if (typeof v === 'bigint' || typeof v === 'number') {
    if (
      (typeof v === 'number' && !Number.isSafeInteger(v)) ||
      BigInt(v) < 0n ||
      BigInt(v) >> BigInt(members.length) !== 0n
    )
      fail(`${v} is not a bitmask of ${members.length} members`);
    return v;
  }
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    return fail(`expected a list of members of ${c.sqlType}, got ${show(v)}`);
  let mask = 0n;
  for (const n of v as string[]) {
    const i = members.indexOf(n);
    if (i < 0) fail(`'${n}' is not a member of ${c.sqlType}`);
    if ((mask >> BigInt(i)) & 1n) fail(`'${n}' is given twice`);
    mask |= 1n << BigInt(i);
  }
  return mask;
}

/**
 * Strings: text its column's character set holds and reads back the same, JSON that parses, at most a
 * CHAR or VARCHAR's characters and bytes (a BLOB's bytes are its length prefix's, the cell writer's).
 */
function checkString(c: BuiltColumn, v: CellValue, fail: Fail): CellValue {
  const binary = c.charset === 'binary';
  if (typeof v === 'string') {
    if (!binary) checkText(c, v, fail);
  } else if (v instanceof Uint8Array) {
    if (c.json) fail(`expected JSON text, got ${show(v)}`);
  } else {
    return fail(`expected ${binary ? 'bytes' : 'text'} for ${c.sqlType}, got ${show(v)}`);
  }
  if (c.length !== undefined) {
    const bytes = typeof v === 'string' ? encodeText(v, binary ? 'binary' : c.charset!).length : v.length;
    if (bytes > c.maxBytes!) fail(`${show(v)} is ${bytes} bytes; ${c.sqlType} holds ${c.maxBytes}`);
  }
  return v;
}

function checkText(c: BuiltColumn, v: string, fail: Fail): void {
  const charset = c.charset!;
  if ((charset === 'utf8mb3' || charset === 'ucs2') && beyondBmp(v))
    fail(`${show(v)} has a character beyond U+FFFF, which ${charset} cannot hold`);
  const stored = encodableText(v, charset);
  // What the decoder gives back is the test: text that does not come back the same is given as bytes.
  if (stored === undefined || decodeText(stored, charset) !== v) {
    fail(`${show(v)} is not representable in ${charset} (as text that reads back the same; give its bytes)`);
  }
  if (c.json) {
    try {
      JSON.parse(v);
    } catch {
      fail(`${show(v)} is not valid JSON`);
    }
  }
  if (c.length !== undefined) {
    const chars = [...v].length;
    if (chars > c.length) fail(`${show(v)} has ${chars} characters; ${c.sqlType} holds ${c.length}`);
  }
}

/** MariaDB's geometry: a 4-byte SRID, then WKB (byte order, type, coordinates). */
function checkGeometry(c: BuiltColumn, v: Uint8Array, fail: Fail): void {
  if (v.length < 9) fail(`${v.length} bytes are too few for a geometry (SRID and WKB)`);
  if (v[4] !== 0 && v[4] !== 1) fail(`byte 4 is ${v[4]}, not a WKB byte order`);
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const wkbType = dv.getUint32(5, v[4] === 1);
  // WKB's type codes are GeometryType's, which names the column's (0, GEOMETRY, any of them) too.
  if (wkbType < GeometryType.POINT || wkbType > GeometryType.GEOMETRYCOLLECTION)
    fail(`WKB type ${wkbType} is not a geometry type`);
  if (c.geometryType && wkbType !== c.geometryType) {
    fail(`a ${GeometryTypeNames[wkbType]} in a ${c.sqlType} column`);
  }
}
