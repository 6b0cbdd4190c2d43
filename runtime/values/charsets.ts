/**
 * Text in a column's character set, losslessly: a value is a string only when its bytes decode and
 * re-encode to the same bytes in that character set; otherwise it stays bytes. Node decodes UTF-8 itself;
 * the single-byte sets and most multi-byte ones go through the servers' own tables (schemas/charset-tables.yaml,
 * schemas/multibyte-charsets.yaml); iconv-lite does the rest, in both directions, in the encodings
 * schemas/charsets.yaml names.
 */
import { createRequire } from 'node:module';
import * as singleByteTables from '../../generated/charset-tables.js';
import * as charsetFacts from '../../generated/charsets.js';
import * as multiByteTables from '../../generated/multibyte-charsets.js';
import { EncodeError } from '../core/errors.js';
import { builtOnFirstUse } from '../core/schema-helpers.js';
import { bytesToText, type Text } from '../core/reader.js';
import { textToBytes } from '../core/writer.js';

/**
 * iconv-lite, loaded on its first use: only the character sets without a table here need it, and a
 * CommonJS package can be required synchronously from the decoder that first meets one.
 */
const require = createRequire(import.meta.url);
const iconv = builtOnFirstUse(() => require('iconv-lite') as typeof import('iconv-lite'));

/**
 * The iconv-lite codec of each character set schemas/charsets.yaml gives an ENCODING_ of (the wide ones,
 * and the multi-byte ones without a table of the servers' here), by its MySQL name.
 */
const CODECS = new Map(
  Object.entries(charsetFacts).flatMap(([name, codec]) =>
    name.startsWith('ENCODING_') && typeof codec === 'string'
      ? [[name.slice('ENCODING_'.length).toLowerCase(), codec] as const]
      : [],
  ),
);

/**
 * A character set's characters both ways. A code is a character's bytes read as a big-endian number
 * (one to `longest` bytes); the character sets here are prefix-free, so a code is read by trying one
 * byte, then two, and so on. Code points are all in the BMP.
 */
interface Codes {
  /** Code point by code of one or two bytes; 0 (but for code 0) is none. */
  short: Uint16Array;
  /** Code point by code of three bytes. */
  long: Map<number, number>;
  /** Code by code point; 0 (but for U+0000) is none. */
  fromUnicode: Uint32Array;
  longest: number;
  /** Whether bytes 00-7F are ASCII both ways (all but swe7, whose 40 is 'É'). */
  ascii: boolean;
}

/**
 * Both ways from (code, code point) pairs. Where several codes mean one character the encoder writes the
 * one the server writes: the ASCII one if any (armscii8's 0x29 and A5 are both ')'), else the last not
 * in `decodeOnly` (tis620's A0 and FF are both U+FFFD; the multi-byte sets list theirs). The other codes
 * then stay bytes on decoding. One exception: sjis writes '\' as 81 5F, but ASCII stays ASCII here, as
 * ASCII-only bytes decode in every character set, so there 81 5F is what stays bytes.
 */
function buildCodes(pairs: Iterable<readonly [number, number]>, decodeOnly: ArrayLike<number> = []): Codes {
  const unwritten = new Set(Array.from(decodeOnly));
  const codes: Codes = {
    short: new Uint16Array(0x10000),
    long: new Map(),
    fromUnicode: new Uint32Array(0x10000),
    longest: 1,
    ascii: true,
  };
  for (const [code, cp] of pairs) {
    if (code > 0xffff) codes.long.set(code, cp);
    else codes.short[code] = cp;
    const written = codes.fromUnicode[cp]!;
    const asciiWritten = written < 0x80 && (written !== 0 || cp === 0);
    if (!unwritten.has(code) && !asciiWritten) codes.fromUnicode[cp] = code;
    codes.longest = Math.max(codes.longest, byteLength(code));
  }
  for (let b = 0; b < 0x80; b++) codes.ascii &&= codes.short[b] === b && codes.fromUnicode[b] === b;
  return codes;
}

const byteLength = (code: number): number => (code > 0xffff ? 3 : code > 0xff ? 2 : 1);

/** A single-byte table's pairs: byte → code point, 0 (but for byte 0) being no character. */
function* singleBytePairs(table: ArrayLike<number>): Generator<readonly [number, number]> {
  for (let b = 0; b < 256; b++) if (table[b] || b === 0) yield [b, table[b]!];
}

/**
 * A multi-byte table's pairs: ASCII, which every one of them leaves out, then its segments (first
 * code, count, then each code's code point, 0 being none; see schemas/multibyte-charsets.yaml).
 */
function* multiBytePairs(segments: ArrayLike<number>): Generator<readonly [number, number]> {
  for (let b = 0; b < 0x80; b++) yield [b, b];
  for (let i = 0; i < segments.length; i += 2 + segments[i + 1]!) {
    for (let k = 0; k < segments[i + 1]!; k++) {
      const cp = segments[i + 2 + k]!;
      if (cp) yield [segments[i]! + k, cp];
    }
  }
}

/** A generated table: its values, or (a large one, built on first use) the function that gives them. */
type Table = ArrayLike<number> | (() => ArrayLike<number>);
const MULTI_BYTE_TABLES: Record<string, Table> = multiByteTables;

function valuesOf(table: Table): ArrayLike<number>;
function valuesOf(table: Table | undefined): ArrayLike<number> | undefined;
function valuesOf(table: Table | undefined): ArrayLike<number> | undefined {
  return typeof table === 'function' ? table() : table;
}

/** How to build each table-driven character set's codes, by its MySQL name. */
const TABLES = new Map<string, () => Codes>([
  ...Object.entries(singleByteTables).map(
    ([name, table]) =>
      [name.slice('TO_UNICODE_'.length).toLowerCase(), () => buildCodes(singleBytePairs(table))] as const,
  ),
  ...Object.entries(MULTI_BYTE_TABLES)
    .filter(([name]) => name.startsWith('CODES_'))
    .map(([name, segments]) => {
      const charset = name.slice('CODES_'.length);
      return [
        charset.toLowerCase(),
        () => buildCodes(multiBytePairs(valuesOf(segments)), valuesOf(MULTI_BYTE_TABLES[`DECODE_ONLY_${charset}`])),
      ] as const;
    }),
]);

/** The codes of a table-driven character set, built on first use (the multi-byte ones are large). */
const BUILT = new Map<string, Codes>();
function codesOf(charset: string): Codes | undefined {
  let codes = BUILT.get(charset);
  if (!codes) {
    codes = TABLES.get(charset)?.();
    if (codes) BUILT.set(charset, codes);
  }
  return codes;
}

/** The code point of a code, or undefined when it is no character. */
function toUnicode(codes: Codes, code: number): number | undefined {
  if (code > 0xffff) return codes.long.get(code);
  const cp = codes.short[code]!;
  return cp || code === 0 ? cp : undefined;
}

/**
 * The text of bytes whose every code is a character and the code that character is written as (so the
 * text encodes back to the same bytes); undefined for any other bytes.
 */
function decodeCodes(bytes: Uint8Array, codes: Codes): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    let code = bytes[i]!;
    let length = 1;
    let cp = toUnicode(codes, code);
    while (cp === undefined && length < codes.longest && i + length < bytes.length) {
      code = code * 256 + bytes[i + length]!;
      length++;
      cp = toUnicode(codes, code);
    }
    if (cp === undefined || codes.fromUnicode[cp] !== code) return undefined;
    out += String.fromCharCode(cp);
    i += length;
  }
  return out;
}

function encodeCodes(value: string, codes: Codes): Uint8Array | undefined {
  const out = new Uint8Array(value.length * codes.longest);
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const code = codes.fromUnicode[c]!;
    if (code === 0 && c !== 0) return undefined;
    for (let k = byteLength(code) - 1; k >= 0; k--) out[n++] = (code >> (8 * k)) & 0xff;
  }
  return out.subarray(0, n);
}

/** The character set of a collation id, by the generated table; undefined when unknown. */
export function charsetOf(collation: number): string | undefined {
  return charsetFacts.CollationCharsets.get(collation);
}

/** Whether the character set stores text at all (binary is bytes). */
export function isText(charset: string | undefined): charset is string {
  return charset !== undefined && charset !== 'binary';
}

/** Whether the bytes in [start, end) are all ASCII. */
export function asciiOnly(b: Uint8Array, start = 0, end = b.length): boolean {
  for (let i = start; i < end; i++) if (b[i]! >= 0x80) return false;
  return true;
}

/**
 * Whether `charset`'s bytes below 0x80 are ASCII's characters, so that ASCII-only bytes are the same text: every
 * character set here but UTF-16, UTF-32 and those whose table says not.
 */
export function keepsAscii(charset: string): boolean {
  return asciiKept(charset, codesOf(charset));
}

/** keepsAscii, given the charset's table where it has one (looked up once by a caller that needs it too). */
function asciiKept(charset: string, codes: Codes | undefined): boolean {
  return codes ? codes.ascii : !(charset === 'ucs2' || charset.startsWith('utf'));
}

const latin1 = new TextDecoder('latin1');

/** The text the bytes hold in `charset`, or the bytes themselves when that would not be exact. */
export function decodeText(bytes: Uint8Array, charset: string): Text {
  if (charset === 'utf8mb4') return bytesToText(bytes);
  if (charset === 'utf8mb3') return utf8mb3Text(bytesToText(bytes), bytes);
  const codes = codesOf(charset);
  if (asciiKept(charset, codes) && asciiOnly(bytes)) return latin1.decode(bytes);
  return (codes ? decodeCodes(bytes, codes) : decodeIconv(bytes, charset)) ?? bytes;
}

/** UTF-8 text as utf8mb3 holds it: a 4-byte sequence is not utf8mb3, so such bytes stay bytes. */
export function utf8mb3Text(text: Text, bytes: Uint8Array): Text {
  return typeof text === 'string' && beyondBmp(text) ? bytes : text;
}

/** The text iconv-lite reads the bytes as, when it encodes back to them; undefined otherwise. */
function decodeIconv(bytes: Uint8Array, charset: string): string | undefined {
  const codec = CODECS.get(charset);
  if (codec === undefined) return undefined;
  const text = iconv().decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), codec, {
    stripBOM: false,
  });
  // iconv-lite writes U+FFFD for a sequence it does not know: not text the server means, keep the bytes.
  if (text.includes('\uFFFD')) return undefined;
  const back = iconvBytes(text, charset, codec);
  return back !== undefined && back.length === bytes.length && back.every((b, i) => b === bytes[i]) ? text : undefined;
}

/** iconv-lite's bytes of a text; undefined for characters beyond U+FFFF in ucs2, which has none. */
function iconvBytes(value: string, charset: string, codec: string): Uint8Array | undefined {
  if (charset === 'ucs2' && beyondBmp(value)) return undefined;
  const b = iconv().encode(value, codec, { addBOM: false });
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

const BEYOND_BMP = /[\uD800-\uDFFF]/;

/** Whether the text has a character beyond U+FFFF, which utf8mb3 and ucs2 cannot hold. */
export function beyondBmp(text: string): boolean {
  return BEYOND_BMP.test(text);
}

/**
 * The bytes of a text value in `charset` (bytes pass through). Text the charset cannot hold is refused,
 * never written as something it is not (UTF-8 in a latin1 column, iconv-lite's '?').
 */
export function encodeText(value: Text, charset: string, path = ''): Uint8Array {
  if (typeof value !== 'string') return value;
  const bytes = encodableText(value, charset, path);
  if (bytes === undefined)
    throw new EncodeError(
      `${JSON.stringify(value).slice(0, 60)} has characters ${charset} cannot hold: give its bytes`,
      path,
    );
  return bytes;
}

/** The text's bytes in `charset`, or undefined when the charset cannot hold it. */
export function encodableText(value: string, charset: string, path = ''): Uint8Array | undefined {
  const codes = codesOf(charset);
  if (codes) return encodeCodes(value, codes);
  const codec = CODECS.get(charset);
  if (codec !== undefined) {
    const bytes = iconvBytes(value, charset, codec);
    // iconv-lite writes '?' for a character it cannot encode: only reading the bytes back tells.
    return bytes !== undefined &&
      iconv().decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), codec, { stripBOM: false }) ===
        value
      ? bytes
      : undefined;
  }
  if (charset === 'utf8mb3' && beyondBmp(value)) return undefined;
  // 'binary' takes a string as its UTF-8; a charset with no table here only ASCII, the same in all of them.
  const utf8 = charset === 'utf8mb4' || charset === 'utf8mb3' || charset === 'binary';
  return utf8 || asciiOnlyText(value) ? textToBytes(value, path) : undefined;
}

function asciiOnlyText(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}
