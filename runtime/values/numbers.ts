/**
 * The values of the number cells (schemas/cells.yaml: the integer types, FLOAT and DOUBLE, YEAR): what an
 * encoder accepts for each, how a float32 prints, and arrays of little-endian float32s (VECTOR). Widths,
 * signedness and ranges are the schema's.
 */
import { EncodeError } from '../core/errors.js';
import { shown } from '../core/dump-json.js';
import type { CellValue, EitherSignCell } from '../core/values.js';
import { expect, isBig, isNumber } from './cell-codec.js';

/** The shortest decimal that reads back as the same float32 (what FLOAT prints as). */
export function shortestFloat32(f: number): number {
  for (let p = 1; p < 10; p++) {
    const x = Number(f.toPrecision(p));
    if (Math.fround(x) === f) return x;
  }
  return f;
}

/** A number; '-0' is negative zero, as the dump writes it (JSON has no -0). */
export function numberOf(v: CellValue, path: string): number {
  return typeof v === 'string' && v === '-0' ? -0 : expect(v, isNumber, 'a number', path);
}

/** One integer: a number, or at 8 bytes (`big`) a bigint, a safe number or a decimal string as a bigint. */
function oneInteger(v: CellValue | undefined, big: boolean, path: string): number | bigint {
  if (!big) return expect(v ?? null, isNumber, 'a number', path);
  return typeof v === 'bigint' ? v : BigInt(expect(v ?? null, isBig, 'an integer', path));
}

const isReadings = (v: CellValue): v is EitherSignCell =>
  typeof v === 'object' && v !== null && 'signed' in v && 'unsigned' in v;

/** 2^bits of a `bytes`-byte integer. */
const span = (bytes: number) => 1n << BigInt(8 * bytes);

/** An integer as a bigint (undefined for a number that is none). */
const bigOf = (n: number | bigint) => (typeof n === 'bigint' ? n : Number.isInteger(n) ? BigInt(n) : undefined);

/**
 * An integer cell's value as its `bytes`-byte column stores it (schemas/cells.yaml's `int`): the reading
 * `unsigned` says of a {signed, unsigned} pair, which must be the two readings of the same bytes; where the
 * signedness is not `known`, a number either reading gives as its signed reading, which is what is written.
 */
export function integerOf(
  v: CellValue,
  bytes: number,
  unsigned: boolean,
  known: boolean,
  path: string,
): number | bigint {
  const big = bytes === 8;
  if (isReadings(v)) {
    const s = oneInteger(v.signed, big, `${path}.signed`);
    const u = oneInteger(v.unsigned, big, `${path}.unsigned`);
    const [bs, bu] = [bigOf(s), bigOf(u)];
    if (bs === undefined || bu === undefined || bs >= 0n || bu !== bs + span(bytes)) {
      throw new EncodeError(
        `expected the signed and unsigned readings of the same ${bytes} bytes, found ${shown(v)}`,
        path,
      );
    }
    return known && unsigned ? u : s;
  }
  const n = oneInteger(v, big, path);
  const b = bigOf(n);
  // The unsigned reading of a high value, as the signed reading that is written; the writer checks the rest.
  if (known || b === undefined || b < span(bytes) >> 1n || b >= span(bytes)) return n;
  return big ? b - span(bytes) : Number(b - span(bytes));
}

/**
 * Both readings of a `bytes`-byte integer whose signed reading is n (< 0), for a column of unknown
 * signedness; an unsigned reading beyond a number's exact integers as a bigint (the JSON writer reads a
 * safe 8-byte n as a number).
 */
export function bothReadings(n: number | bigint, bytes: number): EitherSignCell {
  if (typeof n === 'bigint') return { signed: n, unsigned: n + span(bytes) };
  const unsigned = n + Number(span(bytes));
  return { signed: n, unsigned: Number.isSafeInteger(unsigned) ? unsigned : BigInt(n) + span(bytes) };
}

/** Little-endian IEEE 754 float32 values, each its shortest decimal. */
export function float32s(raw: Uint8Array): number[] {
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return Array.from({ length: raw.length >>> 2 }, (_, i) => shortestFloat32(dv.getFloat32(4 * i, true)));
}

/** An array of numbers as little-endian IEEE 754 float32 values. */
export function float32Bytes(v: CellValue, path: string): Uint8Array {
  const values = expect(
    v,
    (x): x is number[] => Array.isArray(x) && x.every((e) => typeof e === 'number'),
    'an array of numbers',
    path,
  );
  const out = new Uint8Array(values.length * 4);
  const dv = new DataView(out.buffer);
  values.forEach((x, i) => dv.setFloat32(4 * i, x, true));
  return out;
}
