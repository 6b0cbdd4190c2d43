import { EncodeError } from './errors.js';
import type { Text } from './reader.js';

/**
 * The dump's JSON form of decoded values: 64-bit integers as numbers when they are safe and as decimal
 * strings otherwise, bytes as `{ "hex": "…" }`, negative zero as "-0". Everything else is plain JSON.
 */

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function replacer(this: Record<string, unknown>, key: string, v: unknown): unknown {
  // A Buffer has already become { type, data } through its toJSON; the holder still has the bytes.
  const raw = this[key];
  if (raw instanceof Uint8Array) return { hex: toHex(raw) };
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return v;
}

/** One value as a line of JSON. */
export function toJsonLine(value: unknown): string {
  return JSON.stringify(value, replacer);
}

// ---- JSON back to values: what `binlog encode` reads, checked, with the JSON path of any problem ----

/** A value as an error shows what it found: its JSON, cut short when long. */
export function shown(v: unknown): string {
  const json = toJsonLine(v) as string | undefined;
  return json === undefined ? 'nothing' : json.length > 60 ? `${json.slice(0, 60)}…` : json;
}

function wrong(path: string, what: string, j: unknown): EncodeError {
  return new EncodeError(`expected ${what}, found ${shown(j)}`, path);
}

export function jObject(j: unknown, path: string): Record<string, unknown> {
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw wrong(path, 'an object', j);
  return j as Record<string, unknown>;
}

export function jArray(j: unknown, path: string): unknown[] {
  if (!Array.isArray(j)) throw wrong(path, 'an array', j);
  return j;
}

export function jNum(j: unknown, path: string): number {
  if (typeof j !== 'number' || !Number.isSafeInteger(j)) throw wrong(path, 'an integer', j);
  return j;
}

/** An object of integers by name (a row event's inferred fraction digits, by column). */
export function jNumbers(j: unknown, path: string): Record<string, number> {
  const o = jObject(j, path);
  return Object.fromEntries(Object.keys(o).map((k) => [k, jNum(o[k], `${path}.${k}`)]));
}

/** A 64-bit integer: a JSON number when it is safe, else a decimal string. */
export function jBig(j: unknown, path: string): bigint {
  if (typeof j === 'number' && Number.isSafeInteger(j)) return BigInt(j);
  if (typeof j === 'string' && /^-?\d+$/.test(j)) return BigInt(j);
  throw wrong(path, 'an integer (a number, or a decimal string)', j);
}

/** A float: a number, or "-0". */
export function jFloat(j: unknown, path: string): number {
  if (typeof j === 'number') return j;
  if (j === '-0') return -0;
  throw wrong(path, 'a number', j);
}

export function jBool(j: unknown, path: string): boolean {
  if (typeof j !== 'boolean') throw wrong(path, 'true or false', j);
  return j;
}

export function jBits(j: unknown, path: string): boolean[] {
  return jArray(j, path).map((b, i) => jBool(b, `${path}[${i}]`));
}

export function jBytes(j: unknown, path: string): Uint8Array {
  const hex = typeof j === 'object' && j !== null ? (j as { hex?: unknown }).hex : undefined;
  if (typeof hex !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(hex)) throw wrong(path, '{"hex": "…"}', j);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Text: a string, or {"hex": …} for bytes that are not valid text. */
export function jText(j: unknown, path: string): Text {
  return typeof j === 'string' ? j : jBytes(j, path);
}

/** An enum: its name, or a number. */
export function jEnum(j: unknown, path: string): string | number {
  if (typeof j === 'string') return j;
  return jNum(j, path);
}

/** A cell of a row image, as the dump writes it (the column's codec checks its type). */
export function jCell(j: unknown, path: string): unknown {
  if (j === null || typeof j === 'number' || typeof j === 'string') return j;
  if (Array.isArray(j)) return j.map((x, i) => jCell(x, `${path}[${i}]`));
  const o = jObject(j, path);
  if ('hex' in o) return jBytes(o, path);
  if ('diff' in o) return jDiffCell(o, path);
  if ('json' in o) return o.stored === undefined ? { json: o.json } : { json: o.json, stored: jBytes(o.stored, `${path}.stored`) };
  if ('stored' in o) return { value: jText(o.value, `${path}.value`), stored: jBytes(o.stored, `${path}.stored`) };
  // Both readings of an integer whose signedness is unknown: the column's codec checks them.
  if ('signed' in o && 'unsigned' in o) return { signed: o.signed, unsigned: o.unsigned };
  throw wrong(path, 'a cell value', j);
}

/** A JSON diff cell: each diff's op, path and value checked for their types here, the op's name by the codec. */
function jDiffCell(o: Record<string, unknown>, path: string): unknown {
  const diff = jArray(o.diff, `${path}.diff`).map((d, i) => {
    const at = `${path}.diff[${i}]`;
    const { op, path: where, value } = jObject(d, at);
    if (typeof op !== 'string') throw wrong(`${at}.op`, 'REPLACE, INSERT or REMOVE', op);
    if (typeof where !== 'string') throw wrong(`${at}.path`, 'a JSON path', where);
    if (op === 'REMOVE') return { op, path: where };
    if (value === undefined) throw wrong(`${at}.value`, `the ${op}'s value`, value);
    return { op, path: where, value };
  });
  return o.json === undefined ? { diff } : { diff, json: o.json };
}
