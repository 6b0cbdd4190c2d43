/**
 * A cell's value as an SQL literal the server reads back as the same value: the bytes of strings in
 * the column's character set (never re-encoded by the connection's), numbers in forms that parse to the
 * same bits, temporals with their fraction. What no literal can say exactly is refused (SqlError).
 */
import { ColumnType } from '../generated/rows.js';
import { BinlogError } from '../runtime/core/errors.js';
import type { Text } from '../runtime/core/reader.js';
import { textToBytes } from '../runtime/core/writer.js';
import type { CellValue, JsonTree } from '../runtime/core/values.js';
import { encodeText, isText } from '../runtime/values/charsets.js';
import type { Column, Flavor } from '../runtime/values/column.js';

/** A row change that cannot be written as SQL, or undone: the message names the event, table and column. */
export class SqlError extends BinlogError {
  constructor(problem: string, where: string) {
    super('encode', problem, { offset: -1, schemaPath: where });
  }
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex').toUpperCase();

/** Printable ASCII without a quote's escapes: safe as plain text whatever sql_mode says of backslashes. */
const PLAIN = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;

/**
 * A string in `charset`: plain text with the charset's introducer where it is printable ASCII (the same
 * bytes in every ASCII-compatible charset), else its bytes as `_charset X'…'`.
 */
export function textLiteral(value: Text, charset: string, where: string): string {
  if (typeof value === 'string' && PLAIN.test(value) && asciiCompatible(charset)) return `_${charset}'${value}'`;
  try {
    return `_${charset} X'${hex(encodeText(value, charset, where))}'`;
  } catch (e) {
    throw new SqlError((e as Error).message, where);
  }
}

function asciiCompatible(charset: string): boolean {
  return !(charset === 'ucs2' || charset === 'swe7' || charset.startsWith('utf16') || charset.startsWith('utf32'));
}

/** A number that the server parses as a DOUBLE (an exponent makes it one, not a DECIMAL) of the same bits. */
function doubleLiteral(v: number): string {
  if (Object.is(v, -0)) return '-0e0';
  const s = String(v);
  return /e/i.test(s) ? s : `${s}e0`;
}

const TEMPORAL: ReadonlySet<number> = new Set([
  ColumnType.DATE,
  ColumnType.NEWDATE,
  ColumnType.TIME,
  ColumnType.TIME2,
  ColumnType.DATETIME,
  ColumnType.DATETIME2,
  ColumnType.TIMESTAMP,
  ColumnType.TIMESTAMP2,
]);

/** The literal for a column's value; `flavor` says how JSON is written (MySQL's JSON type, MariaDB's text). */
export function sqlLiteral(v: CellValue, column: Column, flavor: Flavor, where: string): string {
  if (v === null) return 'NULL';
  const type = column.realType;
  if (typeof v === 'object' && !(v instanceof Uint8Array) && !Array.isArray(v)) {
    if ('signed' in v)
      throw new SqlError(
        `an integer of unknown signedness (${v.signed} or ${v.unsigned}): give the table's definition ` +
          `(--schema-file, tableDefinitions) or columnHints to say which`,
        where,
      );
    if ('value' in v) return sqlLiteral(v.value, column, flavor, where); // MariaDB's compressed column: its text
    if ('diff' in v)
      throw new SqlError(
        'a partial JSON update (PARTIAL_UPDATE_ROWS) is a diff, not a value: ' +
          "write the binlog with binlog_row_value_options=''",
        where,
      );
    const text = jsonText(v.json, where);
    return flavor === 'mysql'
      ? `CAST(${textLiteral(text, 'utf8mb4', where)} AS JSON)`
      : textLiteral(text, 'utf8mb4', where);
  }
  if (type === ColumnType.FLOAT) return doubleLiteral(Math.fround(v as number)); // the float32, exact as a double
  if (type === ColumnType.DOUBLE) return doubleLiteral(v as number);
  if (type === ColumnType.BIT) return `b'${BigInt(v as number | bigint).toString(2)}'`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v); // integers, YEAR, ENUM index, SET mask
  if (type === ColumnType.NEWDECIMAL || type === ColumnType.DECIMAL) return v as string;
  if (TEMPORAL.has(type)) return `'${v as string}'`;
  if (type === ColumnType.SET) return stringLiteral(setText(v as Text[]), column, where);
  // The VECTOR type code is MySQL's (MariaDB logs its vectors as VARBINARY): each float32 as the decimal of
  // its exact double, which STRING_TO_VECTOR rounds back to the same float32.
  if (type === ColumnType.VECTOR)
    return `STRING_TO_VECTOR('[${(v as number[]).map((x) => String(Math.fround(x))).join(',')}]')`;
  if (Array.isArray(v)) throw new SqlError(`an array value in a ${column.realType} column`, where);
  return stringLiteral(v as Text, column, where);
}

/** Text in the column's charset; bytes where it has none (binary strings, or no charset metadata). */
function stringLiteral(v: Text, column: Column, where: string): string {
  return isText(column.charset) ? textLiteral(v, column.charset, where) : `X'${hex(textToBytes(v))}'`;
}

/** A SET's members as the server writes the set: names joined by commas (bytes when some name is). */
function setText(members: Text[]): Text {
  if (members.every((m) => typeof m === 'string')) return members.join(',');
  const parts = members.map((m) => textToBytes(m));
  return Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from(','), p] : [p])));
}

/**
 * A MySQL JSON document as JSON text that the server parses back to the same scalars: its integers of
 * either sign and its integral doubles keep their type; DECIMAL, temporal and opaque scalars have no
 * JSON text of their own type, and are refused.
 */
function jsonText(t: JsonTree, where: string): string {
  if (t === null || typeof t !== 'object') return JSON.stringify(t);
  if (Array.isArray(t)) return `[${t.map((x) => jsonText(x, where)).join(',')}]`;
  if ('$uint' in t || '$int' in t) return String(t.$uint ?? t.$int);
  if ('$double' in t) return /e/.test(String(t.$double)) ? String(t.$double) : `${String(t.$double)}.0`;
  const custom = Object.keys(t).find((k) => k.startsWith('$'));
  if (custom) throw new SqlError(`a JSON ${custom.slice(1)} scalar has no JSON text that reads back as one`, where);
  return `{${Object.entries(t)
    .map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x, where)}`)
    .join(',')}}`;
}
