/**
 * MySQL's binary JSON (the storage form of JSON columns), both ways. Source: MySQL
 * sql-common/json_binary.h (the grammar) and json_binary.cc (serialize_*, parse_*).
 *
 * A document decodes to a tree that keeps every scalar's exact binary type, so that encoding gives back
 * the same bytes: plain JSON for null, booleans, strings, arrays and objects; a plain integer for a
 * signed integer that is safe; {"$uint": n} for an unsigned one; {"$int": "…"} / {"$uint": "…"} for
 * 64-bit values beyond 2^53; a plain non-integral number for a double, {"$double": n} for an integral
 * one; {"$decimal": "1.50", "precision": p, "scale": s}; {"$date" | "$time" | "$datetime" |
 * "$timestamp": "…"}; {"$opaque": type, "hex": "…"} for any other opaque value. Integer widths and the
 * small or large container form are the server's canonical choices (the smallest that fits); a
 * document stored otherwise is kept with its bytes (see runtime/values/json-cells.ts).
 */
import { ColumnType } from '../../generated/rows.js';
import { InvalidValueError } from '../core/errors.js';
import type { JsonTree } from '../core/values.js';
import { decimalSize, decodeDecimal, encodeDecimal } from './decimal.js';
import { pad } from './digits.js';

const T = {
  SMALL_OBJECT: 0x00,
  LARGE_OBJECT: 0x01,
  SMALL_ARRAY: 0x02,
  LARGE_ARRAY: 0x03,
  LITERAL: 0x04,
  INT16: 0x05,
  UINT16: 0x06,
  INT32: 0x07,
  UINT32: 0x08,
  INT64: 0x09,
  UINT64: 0x0a,
  DOUBLE: 0x0b,
  STRING: 0x0c,
  OPAQUE: 0x0f,
} as const;

const LITERAL = { null: 0x00, true: 0x01, false: 0x02 } as const;

class Bad extends Error {}

function fail(problem: string): never {
  throw new Bad(problem);
}

// ---- decoding -----------------------------------------------------------------------------------------

export function decodeJsonb(b: Uint8Array, offset: number, path: string): JsonTree {
  if (b.length === 0) return null; // what the server stores for NULL in a NOT NULL column, non-strict
  try {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return value(b, dv, b[0]!, 1, b.length - 1);
  } catch (e) {
    if (e instanceof Bad || e instanceof RangeError) throw new InvalidValueError(`binary JSON: ${e.message}`, { offset, schemaPath: path });
    throw e;
  }
}

function need(at: number, n: number, end: number): void {
  if (at + n > end) fail('runs past its end');
}

function value(b: Uint8Array, dv: DataView, type: number, at: number, len: number): JsonTree {
  const end = at + len;
  switch (type) {
    case T.SMALL_OBJECT:
    case T.LARGE_OBJECT:
    case T.SMALL_ARRAY:
    case T.LARGE_ARRAY:
      return container(b, dv, type, at, end);
    case T.LITERAL:
      need(at, 1, end);
      return literal(b[at]!);
    case T.INT16:
      need(at, 2, end);
      return dv.getInt16(at, true);
    case T.UINT16:
      need(at, 2, end);
      return { $uint: dv.getUint16(at, true) };
    case T.INT32:
      need(at, 4, end);
      return dv.getInt32(at, true);
    case T.UINT32:
      need(at, 4, end);
      return { $uint: dv.getUint32(at, true) };
    case T.INT64: {
      need(at, 8, end);
      const v = dv.getBigInt64(at, true);
      return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : { $int: v.toString() };
    }
    case T.UINT64: {
      need(at, 8, end);
      const v = dv.getBigUint64(at, true);
      return { $uint: v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString() };
    }
    case T.DOUBLE: {
      need(at, 8, end);
      const v = dv.getFloat64(at, true);
      return Number.isInteger(v) || Object.is(v, -0) ? { $double: Object.is(v, -0) ? '-0' : v } : v;
    }
    case T.STRING: {
      const [n, at2] = varlen(b, at, end);
      need(at2, n, end);
      return utf8(b.subarray(at2, at2 + n));
    }
    case T.OPAQUE: {
      need(at, 1, end);
      const kind = b[at]!;
      const [n, at2] = varlen(b, at + 1, end);
      need(at2, n, end);
      return opaque(kind, b.subarray(at2, at2 + n));
    }
    default:
      return fail(`unknown value type 0x${type.toString(16)}`);
  }
}

function literal(v: number): JsonTree {
  if (v === LITERAL.null) return null;
  if (v === LITERAL.true) return true;
  if (v === LITERAL.false) return false;
  return fail(`unknown literal ${v}`);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function utf8(b: Uint8Array): string {
  try {
    return decoder.decode(b);
  } catch {
    return fail('a string that is not UTF-8');
  }
}

/** The string and opaque lengths: 7 bits a byte, least significant first, the top bit meaning more. */
function varlen(b: Uint8Array, at: number, end: number): [number, number] {
  let n = 0;
  for (let i = 0; i < 5; i++) {
    need(at + i, 1, end);
    const x = b[at + i]!;
    n += (x & 0x7f) * 2 ** (7 * i);
    if (!(x & 0x80)) return [n, at + i + 1];
  }
  return fail('a length of more than 5 bytes');
}

function container(b: Uint8Array, dv: DataView, type: number, at: number, end: number): JsonTree {
  const large = type === T.LARGE_OBJECT || type === T.LARGE_ARRAY;
  const object = type === T.SMALL_OBJECT || type === T.LARGE_OBJECT;
  const w = large ? 4 : 2;
  const word = (p: number) => (need(p, w, end), large ? dv.getUint32(p, true) : dv.getUint16(p, true));
  const count = word(at);
  const size = word(at + w);
  if (size > end - at) fail(`a container of ${size} bytes in ${end - at}`);
  const base = at;
  const keysAt = at + 2 * w;
  const valuesAt = keysAt + (object ? count * (w + 2) : 0);
  need(valuesAt, count * (1 + w), base + size);
  const entry = (i: number): JsonTree => {
    const p = valuesAt + i * (1 + w);
    const t = b[p]!;
    if (isInlined(t, large)) return value(b, dv, t, p + 1, w);
    const off = word(p + 1);
    return value(b, dv, t, base + off, size - off);
  };
  if (!object) return Array.from({ length: count }, (_, i) => entry(i));
  const members: [string, JsonTree][] = [];
  for (let i = 0; i < count; i++) {
    const p = keysAt + i * (w + 2);
    const off = word(p);
    need(p + w, 2, end);
    const klen = dv.getUint16(p + w, true);
    need(base + off, klen, base + size);
    members.push([utf8(b.subarray(base + off, base + off + klen)), entry(i)]);
  }
  // fromEntries defines each key, so that `__proto__` is a key like any other, not the prototype.
  return Object.fromEntries(members);
}

function isInlined(t: number, large: boolean): boolean {
  return t === T.LITERAL || t === T.INT16 || t === T.UINT16 || (large && (t === T.INT32 || t === T.UINT32));
}

function opaque(kind: number, data: Uint8Array): JsonTree {
  // A decimal is its precision, its scale and exactly decimal2bin's bytes for them; anything else stays opaque.
  if (kind === ColumnType.NEWDECIMAL && data.length >= 2 && data[1]! <= data[0]! && data.length === 2 + decimalSize(data[0]!, data[1]!)) {
    const [precision, scale] = [data[0]!, data[1]!];
    return { $decimal: decodeDecimal(data.subarray(2), precision, scale), precision, scale };
  }
  if ((kind === ColumnType.DATE || kind === ColumnType.TIME || kind === ColumnType.DATETIME || kind === ColumnType.TIMESTAMP) && data.length === 8) {
    const packed = new DataView(data.buffer, data.byteOffset, 8).getBigInt64(0, true);
    return { [temporalKey(kind)]: temporalText(kind, packed) };
  }
  return { $opaque: kind, hex: Buffer.from(data).toString('hex') };
}

function temporalKey(kind: number): string {
  return kind === ColumnType.DATE ? '$date' : kind === ColumnType.TIME ? '$time' : kind === ColumnType.DATETIME ? '$datetime' : '$timestamp';
}

/** MySQL's packed longlong temporal: (ymd << 17 | hms) << 24 | microseconds, negated when negative. */
function temporalText(kind: number, packed: bigint): string {
  const neg = packed < 0n;
  const a = neg ? -packed : packed;
  const micro = Number(a & 0xffffffn);
  const ymdhms = a >> 24n;
  const frac = micro ? `.${pad(micro, 6)}` : '';
  if (kind === ColumnType.TIME) {
    const hms = Number(ymdhms % (1n << 24n));
    return `${neg ? '-' : ''}${pad(hms >> 12, 2)}:${pad((hms >> 6) & 63, 2)}:${pad(hms & 63, 2)}${frac}`;
  }
  const ymd = Number(ymdhms >> 17n);
  const hms = Number(ymdhms % (1n << 17n));
  const ym = ymd >> 5;
  const date = `${pad(Math.floor(ym / 13), 4)}-${pad(ym % 13, 2)}-${pad(ymd & 31, 2)}`;
  return kind === ColumnType.DATE ? date : `${date} ${pad(hms >> 12, 2)}:${pad((hms >> 6) & 63, 2)}:${pad(hms & 63, 2)}${frac}`;
}

// ---- encoding ---------------------------------------------------------------------------------------

/** The server's canonical binary form of a decoded tree. */
export function encodeJsonb(tree: JsonTree, path: string): Uint8Array {
  try {
    const [type, body] = encodeValue(tree, false)!;
    return Uint8Array.from([type, ...body]);
  } catch (e) {
    if (e instanceof Bad) throw new InvalidValueError(`binary JSON: ${e.message}`, { offset: -1, schemaPath: path });
    throw e;
  }
}

type Encoded = [type: number, bytes: number[]];

function le(v: number | bigint, n: number): number[] {
  let x = BigInt.asUintN(8 * n, BigInt(v));
  const out: number[] = [];
  for (let i = 0; i < n; i++, x >>= 8n) out.push(Number(x & 0xffn));
  return out;
}

function varlenBytes(n: number): number[] {
  const out: number[] = [];
  do {
    let x = n % 128;
    n = Math.floor(n / 128);
    if (n) x |= 0x80;
    out.push(x);
  } while (n);
  return out;
}

function intEncoded(v: bigint, unsigned: boolean): Encoded {
  if (unsigned) {
    if (v <= 0xffffn) return [T.UINT16, le(v, 2)];
    if (v <= 0xffff_ffffn) return [T.UINT32, le(v, 4)];
    return [T.UINT64, le(v, 8)];
  }
  if (v >= -0x8000n && v <= 0x7fffn) return [T.INT16, le(v, 2)];
  if (v >= -0x8000_0000n && v <= 0x7fff_ffffn) return [T.INT32, le(v, 4)];
  return [T.INT64, le(v, 8)];
}

const TAGS = ['$uint', '$int', '$double', '$decimal', '$opaque', '$date', '$time', '$datetime', '$timestamp'];

/** Whether a tree node is an object of the document (not a scalar written as an object of $-keys). */
export function isJsonObject(v: JsonTree): v is { [key: string]: JsonTree } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).some((k) => TAGS.includes(k));
}

/**
 * A value's type and bytes. `smallOnly`: inside a container being tried in the small form, where a
 * nested container that needs the large form makes the whole attempt fail (undefined), as the server's
 * serializer does; the large retry then tries each child small again.
 */
function encodeValue(v: JsonTree, smallOnly: boolean): Encoded | undefined {
  if (v === null) return [T.LITERAL, [LITERAL.null]];
  if (v === true) return [T.LITERAL, [LITERAL.true]];
  if (v === false) return [T.LITERAL, [LITERAL.false]];
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return intEncoded(BigInt(v), false);
    return [T.DOUBLE, doubleBytes(v)];
  }
  if (typeof v === 'string') {
    const s = new TextEncoder().encode(v);
    return [T.STRING, [...varlenBytes(s.length), ...s]];
  }
  if (Array.isArray(v)) return containerEncoded(v.map((x) => [undefined, x] as const), false, smallOnly);
  if (!isJsonObject(v)) return tagged(v);
  return containerEncoded(Object.keys(v).sort(compareKeys).map((k) => [k, v[k]!] as const), true, smallOnly);
}

function doubleBytes(v: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, v, true);
  return [...b];
}

/** MySQL's key order: by byte length, then by bytes. */
export function compareKeys(a: string, b: string): number {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length - y.length || Buffer.compare(x, y);
}

function tagged(v: { [key: string]: JsonTree }): Encoded {
  if ('$uint' in v) return intEncoded(BigInt(v.$uint as number | string), true);
  if ('$int' in v) return intEncoded(BigInt(v.$int as number | string), false);
  if ('$double' in v) return [T.DOUBLE, doubleBytes(v.$double === '-0' ? -0 : (v.$double as number))];
  if ('$decimal' in v) {
    const data = [v.precision as number, v.scale as number, ...encodeDecimal(v.$decimal as string, v.precision as number, v.scale as number, '$decimal')];
    return opaqueEncoded(ColumnType.NEWDECIMAL, data);
  }
  for (const [key, kind] of [['$date', ColumnType.DATE], ['$time', ColumnType.TIME], ['$datetime', ColumnType.DATETIME], ['$timestamp', ColumnType.TIMESTAMP]] as const) {
    if (key in v) return opaqueEncoded(kind, le(temporalPacked(kind, v[key] as string), 8));
  }
  if ('$opaque' in v) return opaqueEncoded(v.$opaque as number, [...Buffer.from(v.hex as string, 'hex')]);
  return fail(`an object of $-keys that is no known scalar: ${Object.keys(v).join(', ')}`);
}

function opaqueEncoded(kind: number, data: number[]): Encoded {
  return [T.OPAQUE, [kind, ...varlenBytes(data.length), ...data]];
}

function temporalPacked(kind: number, text: string): bigint {
  const m = /^(-)?(?:(\d{4})-(\d{2})-(\d{2}))?[ ]?(?:(\d{2,3}):(\d{2}):(\d{2}))?(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) return fail(`'${text}' is not a temporal value`);
  const [, neg, y, mo, d, h, mi, s, f] = m;
  const micro = BigInt(Number((f ?? '').padEnd(6, '0')));
  const hms = BigInt((Number(h ?? 0) << 12) | (Number(mi ?? 0) << 6) | Number(s ?? 0));
  const ymd = BigInt(((Number(y ?? 0) * 13 + Number(mo ?? 0)) << 5) | Number(d ?? 0));
  const packed = kind === ColumnType.TIME ? (hms << 24n) + micro : (((ymd << 17n) | hms) << 24n) + micro;
  return neg ? -packed : packed;
}

function containerEncoded(entries: readonly (readonly [string | undefined, JsonTree])[], object: boolean, smallOnly: boolean): Encoded | undefined {
  // The server tries the small form first and takes the large one only when something does not fit.
  return containerIn(entries, object, false) ?? (smallOnly ? undefined : containerIn(entries, object, true));
}

/** The integer an inlined value's slot holds: literals and unsigned values zero-, signed ones sign-extended. */
function inlinedValue(type: number, body: number[]): bigint {
  const u = body.reduce((x, b, i) => x + (BigInt(b) << BigInt(8 * i)), 0n);
  return type === T.INT16 || type === T.INT32 ? BigInt.asIntN(8 * body.length, u) : u;
}

function containerIn(entries: readonly (readonly [string | undefined, JsonTree])[], object: boolean, large: boolean): Encoded | undefined {
  const w = large ? 4 : 2;
  const max = large ? 0xffff_ffff : 0xffff;
  const count = entries.length;
  const keys = entries.map(([k]) => (k === undefined ? new Uint8Array(0) : new TextEncoder().encode(k)));
  const header = 2 * w + (object ? count * (w + 2) : 0) + count * (1 + w);
  let at = header + keys.reduce((n, k) => n + k.length, 0);
  const keyEntries: number[] = [];
  let keyAt = header;
  for (const k of object ? keys : []) {
    if (k.length > 0xffff) return fail('a key of more than 65535 bytes');
    keyEntries.push(...le(keyAt, w), ...le(k.length, 2));
    keyAt += k.length;
  }
  const valueEntries: number[] = [];
  const values: number[] = [];
  for (const [, v] of entries) {
    const encoded = encodeValue(v, !large);
    if (!encoded) return undefined;
    const [type, body] = encoded;
    if (isInlined(type, large)) {
      valueEntries.push(type, ...le(inlinedValue(type, body), w));
      continue;
    }
    valueEntries.push(type, ...le(at, w));
    values.push(...body);
    at += body.length;
  }
  if (at > max || count > max) return undefined;
  const type = object ? (large ? T.LARGE_OBJECT : T.SMALL_OBJECT) : large ? T.LARGE_ARRAY : T.SMALL_ARRAY;
  return [type, [...le(count, w), ...le(at, w), ...keyEntries, ...valueEntries, ...keys.flatMap((k) => [...k]), ...values]];
}
