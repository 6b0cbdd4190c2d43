/**
 * Text in a column's character set, losslessly: a value is a string only when its bytes decode and
 * re-encode to the same bytes in that character set; otherwise it stays bytes. Node decodes UTF-8 itself;
 * iconv-lite does the other character sets, in both directions.
 */
import iconv from 'iconv-lite';
import * as tables from '../generated/charset-tables.js';
import { CollationCharsets } from '../generated/charsets.js';
import { bytesToText, type Text } from './reader.js';

/**
 * The multi-byte and wide character sets, through iconv-lite, for those whose tables were checked byte
 * for byte against a real MariaDB server (test/mariadb-rows.test.ts); the single-byte sets go through
 * the servers' own tables (schemas/charset-tables.yaml). Others — sjis, cp932, ujis, eucjpms and big5,
 * whose iconv-lite tables (Windows cp932, cp950) map some codes otherwise than the servers — stay
 * bytes rather than become the wrong text. MySQL's ucs2, utf16 and utf32 are big-endian.
 */
const CODECS: Record<string, string> = {
  ucs2: 'utf-16be',
  utf16: 'utf-16be',
  utf16le: 'utf-16le',
  utf32: 'utf-32be',
  gbk: 'gbk',
  gb2312: 'gb2312',
  gb18030: 'gb18030',
  euckr: 'euc-kr',
};

/** Byte → code point of each single-byte character set, by its MySQL name; 0 (but for byte 0) is no character. */
const SINGLE_BYTE = new Map<string, ArrayLike<number>>(
  Object.entries(tables).map(([name, table]) => [name.slice('TO_UNICODE_'.length).toLowerCase(), table]),
);

/**
 * Code point → byte, for encoding. Where two bytes mean one character the server's conversion takes the
 * ASCII one (armscii8's 0x29 and A5 are both ')'), else the last (tis620's A0 and FF are both U+FFFD);
 * so does this, and the other then stays bytes on decoding.
 */
const FROM_UNICODE = new Map<string, Map<number, number>>();
function fromUnicode(charset: string, table: ArrayLike<number>): Map<number, number> {
  let map = FROM_UNICODE.get(charset);
  if (!map) {
    map = new Map();
    for (let b = 0; b < 256; b++) {
      const c = table[b]!;
      if ((c || b === 0) && !(map.get(c)! < 0x80)) map.set(c, b);
    }
    FROM_UNICODE.set(charset, map);
  }
  return map;
}

function decodeSingleByte(bytes: Uint8Array, table: ArrayLike<number>): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = table[bytes[i]!]!;
    if (c === 0 && bytes[i] !== 0) return undefined;
    out += String.fromCharCode(c);
  }
  return out;
}

function encodeSingleByte(value: string, charset: string, table: ArrayLike<number>): Uint8Array | undefined {
  const map = fromUnicode(charset, table);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const b = map.get(value.charCodeAt(i));
    if (b === undefined) return undefined;
    out[i] = b;
  }
  return out;
}

/** The character set of a collation id, by the generated table; undefined when unknown. */
export function charsetOf(collation: number): string | undefined {
  return CollationCharsets.get(collation);
}

/** Whether the character set stores text at all (binary is bytes). */
export function isText(charset: string | undefined): charset is string {
  return charset !== undefined && charset !== 'binary';
}

function asciiOnly(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i]! >= 0x80) return false;
  return true;
}

const latin1 = new TextDecoder('latin1');

/** The text the bytes hold in `charset`, or the bytes themselves when that would not be exact. */
export function decodeText(bytes: Uint8Array, charset: string): Text {
  if (charset === 'utf8mb4' || charset === 'utf8mb3') return bytesToText(bytes);
  // ASCII is the same in every character set here that is not UTF-16 or UTF-32.
  const wide = charset === 'ucs2' || charset.startsWith('utf');
  if (!wide && asciiOnly(bytes)) return latin1.decode(bytes);
  const table = SINGLE_BYTE.get(charset);
  let text: string | undefined;
  if (table) text = decodeSingleByte(bytes, table);
  else if (CODECS[charset]) {
    text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), CODECS[charset], { stripBOM: false });
    // iconv-lite writes U+FFFD for a sequence it does not know: not text the server means, keep the bytes.
    if (text.includes('\uFFFD')) text = undefined;
  }
  if (text === undefined) return bytes;
  const back = encodeText(text, charset);
  return back.length === bytes.length && back.every((b, i) => b === bytes[i]) ? text : bytes;
}

const utf8 = new TextEncoder();

/** The bytes of a text value in `charset`; bytes pass through as they are. */
export function encodeText(value: Text, charset: string): Uint8Array {
  if (typeof value !== 'string') return value;
  const table = SINGLE_BYTE.get(charset);
  if (table) return encodeSingleByte(value, charset, table) ?? utf8.encode(value);
  const codec = CODECS[charset];
  if (codec === undefined) return utf8.encode(value);
  const b = iconv.encode(value, codec, { addBOM: false });
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
