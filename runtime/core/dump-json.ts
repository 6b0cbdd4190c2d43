import { EncodeError } from './errors.js';
import { JsonBytes } from './dump-json-bytes.js';
import type { Text } from './reader.js';

/**
 * The dump's JSON form of decoded values, as JsonBytes writes it: 64-bit integers are numbers when they
 * are safe and decimal strings otherwise, bytes are `{ "hex": "…" }`, and negative zero is "-0".
 * Everything else is plain JSON. JsonBytes is the one definition of this form: the generated writers of
 * the dump build on it, and toJsonLine is its text.
 */

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** A writer kept between calls while its buffer stays this small, so that a line does not cost an allocation. */
const KEPT_LINE_BYTES = 1 << 16;
let keptWriter: JsonBytes | undefined = new JsonBytes(1 << 12);

/**
 * What `take` makes of a value's JSON written by the kept writer. The kept writer is taken out while it is
 * in use, so that a toJSON method that writes JSON itself gets a writer of its own.
 */
function written<T>(value: unknown, take: (w: JsonBytes) => T): T {
  const w = keptWriter ?? new JsonBytes(1 << 12);
  keptWriter = undefined;
  w.value(value);
  const out = take(w);
  w.pos = 0;
  if (w.buf.length <= KEPT_LINE_BYTES) keptWriter = w;
  return out;
}

/** One value as a line of JSON. */
export function toJsonLine(value: unknown): string {
  return written(value, (w) => w.buf.toString('utf8', 0, w.pos));
}

/** One value's JSON line as UTF-8 bytes of its own (a record's body), without the string between. */
export function toJsonBytes(value: unknown): Buffer {
  return written(value, (w) => Buffer.from(w.buf.subarray(0, w.pos)));
}

/** An error shows this many characters of the value it found. */
const SHOWN_CHARS = 60;

/**
 * A writer that takes no more values once it holds more bytes than an error shows, so that a value
 * nested thousands of levels deep is not followed to its end (each level writes a bracket before the
 * next, so the depth followed is bounded too).
 */
class ShortJson extends JsonBytes {
  /** Four bytes per character cover any UTF-8 text of SHOWN_CHARS characters and the one after them. */
  private static readonly LIMIT = (SHOWN_CHARS + 1) * 4;

  constructor() {
    super(ShortJson.LIMIT * 2);
  }

  override value(v: unknown): void {
    if (this.pos <= ShortJson.LIMIT) super.value(v);
  }
}

/** A value as an error shows what it found: its JSON, cut short when long. */
export function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const w = new ShortJson();
  w.value(v);
  const json = w.buf.toString('utf8', 0, w.pos);
  return json.length > SHOWN_CHARS ? `${json.slice(0, SHOWN_CHARS)}…` : json;
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

/** Reads an object whose values are integers, such as a row event's inferred fraction digits by column. */
export function jNumbers(j: unknown, path: string): Record<string, number> {
  const o = jObject(j, path);
  return Object.fromEntries(Object.keys(o).map((k) => [k, jNum(o[k], `${path}.${k}`)]));
}

/** Reads a 64-bit integer, which the dump writes as a number when it is safe and as a decimal string otherwise. */
export function jBig(j: unknown, path: string): bigint {
  if (typeof j === 'number' && Number.isSafeInteger(j)) return BigInt(j);
  if (typeof j === 'string' && /^-?\d+$/.test(j)) return BigInt(j);
  throw wrong(path, 'an integer (a number, or a decimal string)', j);
}

/** Reads a float, which is a number, or "-0" for negative zero. */
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

/**
 * Bytes from `{"hex": "…"}`. Buffer's hex decoding stops at the first pair that is not two hex digits,
 * so the text is valid exactly when every pair decoded; no regular expression is run over it, since a
 * backtracking one overflows the stack on megabytes of text.
 */
export function jBytes(j: unknown, path: string): Uint8Array {
  const hex = typeof j === 'object' && j !== null ? (j as { hex?: unknown }).hex : undefined;
  if (typeof hex !== 'string' || hex.length % 2 !== 0) throw wrong(path, '{"hex": "…"}', j);
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length * 2 !== hex.length) throw wrong(path, '{"hex": "…"}', j);
  return Uint8Array.from(bytes);
}

/** Reads text, which is a string, or {"hex": …} where the bytes are not valid text. */
export function jText(j: unknown, path: string): Text {
  return typeof j === 'string' ? j : jBytes(j, path);
}

/** Reads an enum, given by its name or by its number. */
export function jEnum(j: unknown, path: string): string | number {
  if (typeof j === 'string') return j;
  return jNum(j, path);
}

/**
 * Cells hold arrays at most a level or two deep (a SET's members); deeper input is refused before it can
 * exhaust the stack.
 */
const MAX_CELL_DEPTH = 32;

/** A cell of a row image, as the dump writes it. The column's codec checks the value's type. */
export function jCell(j: unknown, path: string, depth = 0): unknown {
  if (j === null || typeof j === 'number' || typeof j === 'string') return j;
  if (Array.isArray(j)) {
    if (depth >= MAX_CELL_DEPTH) throw new EncodeError(`a cell's arrays nest more than ${MAX_CELL_DEPTH} deep`, path);
    return j.map((x, i) => jCell(x, `${path}[${i}]`, depth + 1));
  }
  const o = jObject(j, path);
  if ('hex' in o) return jBytes(o, path);
  if ('diff' in o) return jDiffCell(o, path);
  if ('json' in o) {
    return o.stored === undefined ? { json: o.json } : { json: o.json, stored: jBytes(o.stored, `${path}.stored`) };
  }
  if ('stored' in o) return { value: jText(o.value, `${path}.value`), stored: jBytes(o.stored, `${path}.stored`) };
  // An integer whose signedness is unknown carries both readings, and the column's codec checks them.
  if ('signed' in o && 'unsigned' in o) return { signed: o.signed, unsigned: o.unsigned };
  throw wrong(path, 'a cell value', j);
}

/** Reads a JSON diff cell. This checks the types of each diff's op, path and value; the codec checks the op's name. */
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
