/**
 * JsonBytes is the one definition of the dump's JSON form (runtime/core/dump-json.ts says what the form
 * is). It writes UTF-8 bytes straight into a buffer, so no JS string of a whole line is made and then
 * encoded. The generated writers build on it: they put their member names in as bytes encoded once and
 * their numbers in as ASCII digits. `value` writes any other value by following it, and toJsonLine is the
 * text of what it writes.
 */

import { asciiAt, digitCount, digitsBefore, eightDigitsBefore } from './ascii-digits.js';
import { DOUBLE_TEXT_MAX, writeDouble } from './double-text.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Each byte's two hex digits as one little-endian 16-bit store: the high digit first in the output. */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, b) => HEX[b >> 4]! | (HEX[b & 15]! << 8));
/** JSON.stringify escapes these codes with a letter, and any other code below 0x20 as \u00XX. */
const SHORT_ESCAPES: Record<number, number> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72 };
/**
 * A string from this length on is checked by one regular expression, and Buffer.write copies it when
 * nothing in it needs an escape.
 */
const LONG_STRING = 24;
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * What JSON makes of each byte of UTF-8 text: an ASCII character kept as it is (0), one that is escaped (1), or the
 * first byte of a sequence of 2 to 4 bytes (its length); 5 for a byte no well-formed sequence starts with.
 */
const [PLAIN, ESCAPED, BROKEN] = [0, 1, 5];
const BYTE_KIND = Uint8Array.from({ length: 256 }, (_, c) => {
  if (c < 0x80) return c < 0x20 || c === QUOTE || c === BACKSLASH ? ESCAPED : PLAIN;
  return c < 0xc2 || c > 0xf4 ? BROKEN : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
});
/**
 * The range of the second byte after each first byte of a sequence, from the Unicode standard's table of well-formed
 * byte sequences (no overlong forms, no surrogates, nothing past U+10FFFF); every later byte is 0x80 to 0xbf.
 */
const SECOND_LOW = Uint8Array.from({ length: 256 }, (_, c) => (c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80));
const SECOND_HIGH = Uint8Array.from({ length: 256 }, (_, c) => (c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf));

/**
 * The cache keeps the field names met so far as the bytes of `"name":`; it is bounded, since row names come from the
 * input.
 */
const KEYS = new Map<string, Uint8Array>();
const KEYS_MAX = 4096;

/** Encodes a member name as the bytes of `"name":`, which the writers put in before its value. */
export function jsonKey(name: string): Uint8Array {
  const w = new JsonBytes(name.length * 6 + 3);
  w.string(name);
  w.byte(0x3a);
  return w.take();
}

/**
 * Says whether an object given these keys in this order keeps that order (a JS object moves integer-like keys first).
 */
export function keepsKeyOrder(names: readonly string[]): boolean {
  const keys = Object.keys(Object.fromEntries(names.map((name) => [name, 0])));
  return keys.every((k, i) => k === names[i]);
}

/** Encodes a value's JSON once, for values that are written often, such as an ENUM's member names. */
export function jsonValue(v: unknown): Uint8Array {
  const w = new JsonBytes(64);
  w.value(v);
  return w.buf.subarray(0, w.pos);
}

function cachedKey(name: string): Uint8Array {
  let k = KEYS.get(name);
  if (k === undefined) {
    k = jsonKey(name);
    if (KEYS.size < KEYS_MAX) KEYS.set(name, k);
  }
  return k;
}

/**
 * JSON already written as bytes, which a writer copies as it is: the dump's rows, written from their
 * images before the event's line (runtime/rows/json-rows.ts).
 */
export class JsonText {
  /** The text is buf[start, end); a view would cost more to make than the copy it is for. */
  constructor(
    readonly buf: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}
}

/** Bytes as little-endian 32-bit words, the last one padded with zeros, for JsonBytes.words. */
export class JsonWords {
  readonly words: Int32Array;
  readonly length: number;

  constructor(bytes: Uint8Array) {
    const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
    padded.set(bytes);
    const view = viewOf(padded);
    this.words = Int32Array.from({ length: padded.length / 4 }, (_, i) => view.getInt32(4 * i, true));
    this.length = bytes.length;
  }
}

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

const HEX_OPEN = new JsonWords(Buffer.from('{"hex":"', 'latin1'));
const HEX_CLOSE = new JsonWords(Buffer.from('"}', 'latin1'));
/** JSON's null, one word. */
export const NULL_WORDS = new JsonWords(Buffer.from('null', 'latin1'));

/**
 * JSON that writes itself at a writer's end when the line reaches it: the dump's rows, written from their
 * images straight into the event's line (runtime/rows/json-rows.ts), so that they are not written elsewhere
 * first and copied.
 */
export interface JsonInPlace {
  writeJson(w: JsonBytes): void;
}

export class JsonBytes {
  buf: Buffer;
  /** A view of `buf`, for stores of two and four bytes at once (words, hex, text); `use` changes both together. */
  private view: DataView;
  pos = 0;

  constructor(private readonly capacity = 1 << 17) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.view = viewOf(this.buf);
  }

  /** Makes room for n more bytes. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.use(bigger);
  }

  /**
   * Gives the bytes written so far and starts again on a new buffer of the first size, so that one long
   * line does not keep a large buffer alive.
   */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.use(Buffer.allocUnsafe(this.capacity));
    this.pos = 0;
    return out;
  }

  /** Writes on into `buf` from now on (the bytes already written are the caller's to keep). */
  use(buf: Buffer): void {
    this.buf = buf;
    this.view = viewOf(buf);
  }

  /**
   * Writes bytes given as little-endian 32-bit words (JsonWords) a word at a time: a member's name costs a few
   * stores instead of one per byte. The last word may write up to 3 bytes past the text, which the next write
   * overwrites.
   */
  words(text: JsonWords): void {
    const { words, length } = text;
    this.room(length + 3);
    const view = this.view;
    const p = this.pos;
    for (let i = 0; i < words.length; i++) view.setInt32(p + 4 * i, words[i]!, true);
    this.pos = p + length;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.pos = copy(bytes, 0, bytes.length, this.buf, this.pos);
  }

  /** Copies JSON already written as bytes. */
  text(t: JsonText): void {
    this.room(t.end - t.start);
    this.pos = copy(t.buf, t.start, t.end, this.buf, this.pos);
  }

  /** Writes ASCII text as it is, such as digits or a number's text. */
  ascii(s: string): void {
    this.room(s.length);
    this.pos = asciiAt(this.buf, this.pos, s);
  }

  /**
   * Writes quoted text whose ASCII characters JSON leaves as they are (digits, signs, separators), so no
   * escape is looked for.
   */
  quotedAscii(s: string): void {
    this.room(s.length + 2);
    const buf = this.buf;
    buf[this.pos] = QUOTE;
    const end = asciiAt(buf, this.pos + 1, s);
    buf[end] = QUOTE;
    this.pos = end + 1;
  }

  /**
   * Writes a JSON number in the dump's form: -0 as "-0", NaN and the infinities as null, and any other
   * double as String writes it. writeDouble writes the digits, so no string is made.
   */
  number(n: number): void {
    if (Number.isSafeInteger(n) && n !== 0) this.integer(n);
    else if (Object.is(n, -0)) this.ascii('"-0"');
    else if (Number.isFinite(n)) {
      this.room(DOUBLE_TEXT_MAX);
      this.pos = writeDouble(this.buf, this.pos, n);
    } else this.ascii('null');
  }

  /** Writes a safe integer's digits without making its string. It works in 32-bit steps, since a double's % is slow. */
  integer(n: number): void {
    this.room(17);
    if (n < 0) {
      this.buf[this.pos++] = 0x2d;
      n = -n;
    }
    if (n <= 0x7fffffff) {
      this.pos += digitCount(n);
      digitsBefore(this.buf, this.pos, n);
      return;
    }
    // Above 2^31 it writes the digits above the last 8, then those 8; n < 2^53, so the high part fits too.
    let high = Math.floor(n / 1e8);
    let low = n - high * 1e8;
    if (low < 0) (high--, (low += 1e8));
    else if (low >= 1e8) (high++, (low -= 1e8));
    this.pos += digitCount(high) + 8;
    eightDigitsBefore(this.buf, this.pos, low);
    digitsBefore(this.buf, this.pos - 8, high);
  }

  /**
   * Writes a fixed-point number's text quoted, as a DECIMAL's: a minus sign where it is negative (even "-0.00"),
   * the whole part's digits, then the fraction's in exactly `scale` digits, zeros first (none where scale is 0).
   */
  fixedPoint(negative: boolean, whole: number, fraction: number, scale: number): void {
    this.room(scale + 20);
    this.buf[this.pos++] = QUOTE;
    if (negative) this.buf[this.pos++] = 0x2d;
    this.integer(whole);
    if (scale) {
      const buf = this.buf;
      buf[this.pos] = 0x2e;
      const end = this.pos + 1 + scale;
      for (let p = digitsBefore(buf, end, fraction); p > this.pos + 1;) buf[--p] = 0x30;
      this.pos = end;
    }
    this.buf[this.pos++] = QUOTE;
  }

  /** Writes a 64-bit integer as a number when it is safe, and as its decimal string otherwise. */
  bigint(n: bigint): void {
    // A bigint beyond the safe range converts to ±2^53 or further, which is never safe, so one conversion
    // replaces two bigint comparisons.
    const x = Number(n);
    if (Number.isSafeInteger(x)) this.integer(x);
    else {
      this.byte(QUOTE);
      this.ascii(n.toString());
      this.byte(QUOTE);
    }
  }

  /** Writes the bytes b[start, end) as {"hex":"…"}, each byte's two digits in one store. */
  hex(b: Uint8Array, start = 0, end = b.length): void {
    this.words(HEX_OPEN);
    this.room((end - start) * 2 + HEX_CLOSE.length + 3);
    const view = this.view;
    let p = this.pos;
    for (let i = start; i < end; i++, p += 2) view.setUint16(p, HEX_PAIRS[b[i]!]!, true);
    this.pos = p;
    this.words(HEX_CLOSE);
  }

  /** Writes a string quoted and escaped in UTF-8 as JSON.stringify does it, with lone surrogates as \udXXX. */
  string(s: string): void {
    this.room(s.length * 6 + 2);
    this.buf[this.pos++] = QUOTE;
    if (s.length >= LONG_STRING && !NEEDS_ESCAPE.test(s)) this.pos += this.buf.write(s, this.pos, 'utf8');
    else this.escaped(s);
    this.buf[this.pos++] = QUOTE;
  }

  /**
   * Writes UTF-8 bytes as the JSON string of the text they decode to, which is what `string` writes of the
   * reader's text, and makes no JS string. Where the bytes are not strict UTF-8 it writes nothing and
   * returns false, since the reader's text is then the bytes themselves. A well-formed sequence from 0x80
   * is a whole character, which JSON.stringify leaves unescaped, so each byte is checked and copied in the
   * same pass (a scan for the run, then a copy of it, cost a second pass over the text), four at a time
   * where the four are ASCII that JSON keeps as it is. `view` is a DataView of `src`'s bytes, at its indexes.
   */
  utf8(src: Uint8Array, view: DataView, start: number, end: number): boolean {
    this.room((end - start) * 6 + 2);
    const buf = this.buf;
    const out = this.view;
    let p = this.pos;
    buf[p++] = QUOTE;
    let i = start;
    while (i < end) {
      if (i + 4 <= end) {
        const x = view.getInt32(i, true);
        if (plainAscii(x)) {
          out.setInt32(p, x, true);
          p += 4;
          i += 4;
          continue;
        }
      }
      const c = src[i]!;
      const kind = BYTE_KIND[c]!;
      if (kind === PLAIN) {
        buf[p++] = c;
        i++;
      } else if (kind === ESCAPED) {
        p = asciiEscaped(buf, p, c);
        i++;
      } else if (kind === 2) {
        if (i + 2 > end) return false;
        const d = src[i + 1]!;
        if ((d & 0xc0) !== 0x80) return false;
        buf[p] = c;
        buf[p + 1] = d;
        p += 2;
        i += 2;
      } else {
        if (kind === BROKEN || !wellFormed(src, i, kind, end)) return false;
        for (let k = 0; k < kind; k++) buf[p + k] = src[i + k]!;
        p += kind;
        i += kind;
      }
    }
    buf[p++] = QUOTE;
    this.pos = p;
    return true;
  }

  private escaped(s: string): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) p = asciiEscaped(buf, p, c);
      else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 63);
      } else if (c < 0xd800 || c > 0xdfff) {
        p = utf8Three(buf, p, c);
      } else {
        const next = s.charCodeAt(i + 1);
        if (c < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[p++] = 0xf0 | (cp >> 18);
          buf[p++] = 0x80 | ((cp >> 12) & 63);
          buf[p++] = 0x80 | ((cp >> 6) & 63);
          buf[p++] = 0x80 | (cp & 63);
          i++;
        } else {
          buf[p++] = BACKSLASH;
          p = unicodeEscape(buf, p, c);
        }
      }
    }
    this.pos = p;
  }

  /**
   * Writes a rows event's changes. The images of a rows event share their columns, so each name is encoded
   * once for the event, and only a name that differs from the last image's at its place is looked up
   * again. Anything else of a change is written as a value. Rows the dump wrote from their images before
   * the line (JsonText) are copied as they are, and rows it writes from their images in the line
   * (JsonInPlace) write themselves.
   */
  rows(changes: readonly object[] | JsonText | JsonInPlace): void {
    if (changes instanceof JsonText) return this.text(changes);
    if (!Array.isArray(changes)) return (changes as JsonInPlace).writeJson(this);
    const names: string[] = [];
    const keys: Uint8Array[] = [];
    this.byte(0x5b);
    for (let i = 0; i < changes.length; i++) {
      if (i) this.byte(0x2c);
      const change = changes[i] as Record<string, unknown>;
      if (Object.getPrototypeOf(change) !== Object.prototype) {
        this.value(change);
        continue;
      }
      this.byte(0x7b);
      const start = this.pos;
      for (const k in change) {
        const v = change[k];
        if (
          (k === 'before' || k === 'after') &&
          typeof v === 'object' &&
          v !== null &&
          Object.getPrototypeOf(v) === Object.prototype
        ) {
          this.member(cachedKey(k), start);
          this.image(v as Record<string, unknown>, names, keys);
        } else this.entry(k, v, start);
      }
      this.byte(0x7d);
    }
    this.byte(0x5d);
  }

  /** Writes a row image (a plain object), taking its names' bytes from `keys` while its names are those of `names`. */
  private image(row: Record<string, unknown>, names: string[], keys: Uint8Array[]): void {
    this.byte(0x7b);
    const start = this.pos;
    let i = 0;
    for (const k in row) {
      if (names[i] !== k) {
        names[i] = k;
        keys[i] = cachedKey(k);
      }
      const v = row[k];
      if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol') {
        this.member(keys[i]!, start);
        this.value(v);
      }
      i++;
    }
    this.byte(0x7d);
  }

  /** Writes any value in the dump's form by following it. */
  value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return this.number(v);
      case 'bigint':
        return this.bigint(v);
      case 'boolean':
        return this.ascii(v ? 'true' : 'false');
      case 'object':
        if (v === null) return this.ascii('null');
        if (v instanceof Uint8Array) return this.hex(v);
        if (Array.isArray(v)) return this.array(v);
        if (v instanceof JsonText) return this.text(v);
        if (typeof (v as { toJSON?: unknown }).toJSON === 'function')
          return this.value((v as { toJSON(): unknown }).toJSON());
        return this.object(v as Record<string, unknown>);
      default:
        // Only an array's element gets here as undefined, a function or a symbol, since objects leave them out.
        return this.ascii('null');
    }
  }

  array(a: readonly unknown[]): void {
    this.byte(0x5b);
    for (let i = 0; i < a.length; i++) {
      if (i) this.byte(0x2c);
      this.value(a[i]);
    }
    this.byte(0x5d);
  }

  object(o: Record<string, unknown>): void {
    this.byte(0x7b);
    const start = this.pos;
    // for-in gives Object.keys' order without making its array, but only a plain object's keys are all its own.
    if (Object.getPrototypeOf(o) === Object.prototype) for (const k in o) this.entry(k, o[k], start);
    else for (const k of Object.keys(o)) this.entry(k, o[k], start);
    this.byte(0x7d);
  }

  /**
   * Writes `"k":v`, after a comma unless it is the first member of the object opened at `start`. It writes
   * nothing for the values JSON leaves out.
   */
  private entry(k: string, v: unknown, start: number): void {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return;
    this.member(cachedKey(k), start);
    this.value(v);
  }

  /**
   * Writes a member's name (`"name":` as jsonKey gives it), after a comma unless it is the first member of
   * the object whose members start at `start`.
   */
  member(key: Uint8Array, start: number): void {
    if (this.pos !== start) this.byte(0x2c);
    this.raw(key);
  }
}

/**
 * Copies src[start, end) to dst at p and returns the end. A loop copies short runs, since it beats set()'s call for
 * them.
 */
function copy(src: Uint8Array, start: number, end: number, dst: Uint8Array, p: number): number {
  if (end - start > 16) {
    dst.set(src.subarray(start, end), p);
    return p + end - start;
  }
  for (let i = start; i < end; i++) dst[p++] = src[i]!;
  return p;
}

/**
 * Says whether the four bytes of x are each ASCII that JSON keeps as it is: no high bit, none below 0x20, no
 * quote and no backslash (each test the classic one for a byte below a bound, or of zero after an XOR, over
 * the word at once; a byte from 0x80 sets the first test's bit, so the others need not be exact for it).
 */
function plainAscii(x: number): boolean {
  const quote = x ^ 0x22222222;
  const backslash = x ^ 0x5c5c5c5c;
  const below = (x - 0x20202020) & ~x;
  const quotes = (quote - 0x01010101) & ~quote;
  const backslashes = (backslash - 0x01010101) & ~backslash;
  return ((x | below | quotes | backslashes) & 0x80808080) === 0;
}

/** Says whether the n bytes at src[i] (its first byte one that starts a sequence of n) are a well-formed sequence. */
function wellFormed(src: Uint8Array, i: number, n: number, end: number): boolean {
  if (i + n > end) return false;
  const c = src[i]!;
  const second = src[i + 1]!;
  if (second < SECOND_LOW[c]! || second > SECOND_HIGH[c]!) return false;
  for (let k = 2; k < n; k++) if ((src[i + k]! & 0xc0) !== 0x80) return false;
  return true;
}

/** Writes an ASCII character as JSON.stringify does, escaping a quote, a backslash and the controls. */
function asciiEscaped(buf: Buffer, p: number, c: number): number {
  if (c >= 0x20) {
    if (c === QUOTE || c === BACKSLASH) buf[p++] = BACKSLASH;
    buf[p++] = c;
    return p;
  }
  buf[p++] = BACKSLASH;
  const short = SHORT_ESCAPES[c];
  if (short !== undefined) buf[p++] = short;
  else p = unicodeEscape(buf, p, c);
  return p;
}

function unicodeEscape(buf: Buffer, p: number, c: number): number {
  buf[p++] = 0x75;
  buf[p++] = HEX[c >> 12];
  buf[p++] = HEX[(c >> 8) & 15];
  buf[p++] = HEX[(c >> 4) & 15];
  buf[p++] = HEX[c & 15];
  return p;
}

function utf8Three(buf: Buffer, p: number, c: number): number {
  buf[p++] = 0xe0 | (c >> 12);
  buf[p++] = 0x80 | ((c >> 6) & 63);
  buf[p++] = 0x80 | (c & 63);
  return p;
}
