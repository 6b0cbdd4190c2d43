/**
 * Text in a column's character set, losslessly: a value is a string only when its bytes decode and
 * re-encode to the same bytes in that character set; otherwise it stays bytes. Node decodes UTF-8 itself;
 * iconv-lite does the other character sets, in both directions.
 */
import iconv from 'iconv-lite';
import { CollationCharsets } from '../generated/charsets.js';
import { bytesToText, type Text } from './reader.js';

/**
 * MySQL's character set names → iconv-lite's codecs, for the character sets whose tables were checked
 * byte for byte against a real MariaDB server (test/mariadb-rows.test.ts). Others (cp1250, cp1251,
 * cp1256, cp1257, greek, hebrew, koi8u, cp866, macroman, armscii8, tis620, dec8, hp8, keybcs2, macce,
 * geostd8, and the Japanese and Chinese sjis, cp932, ujis, eucjpms and big5) map some bytes otherwise
 * than the servers do, so their values stay bytes rather than become the wrong text. MySQL's ucs2,
 * utf16 and utf32 are big-endian; its latin1 is Windows-1252 with the five bytes that code page leaves
 * undefined read as the C1 controls of the same number.
 */
const CODECS: Record<string, string> = {
  latin1: 'cp1252',
  latin2: 'iso-8859-2',
  latin5: 'iso-8859-9',
  latin7: 'iso-8859-13',
  ucs2: 'utf-16be',
  utf16: 'utf-16be',
  utf16le: 'utf-16le',
  utf32: 'utf-32be',
  gbk: 'gbk',
  gb2312: 'gb2312',
  gb18030: 'gb18030',
  euckr: 'euc-kr',
  cp850: 'cp850',
  cp852: 'cp852',
  koi8r: 'koi8-r',
};

/** Bytes Windows-1252 leaves undefined, which MySQL's latin1 reads as U+0081, U+008D, … */
const LATIN1_C1 = [0x81, 0x8d, 0x8f, 0x90, 0x9d];

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
  const codec = CODECS[charset];
  // ASCII is the same in every character set here that is not UTF-16 or UTF-32.
  const wide = charset === 'ucs2' || charset.startsWith('utf');
  if (!wide && asciiOnly(bytes)) return latin1.decode(bytes);
  if (codec === undefined) return bytes;
  let text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), codec, { stripBOM: false });
  if (charset === 'latin1') text = text.replace(/\uFFFD/g, (_, i: number) => String.fromCharCode(bytes[i]!));
  // A byte the codec does not know decodes to U+FFFD: that is not what the server means, keep bytes.
  if (text.includes('\uFFFD')) return bytes;
  const back = encodeText(text, charset);
  return back.length === bytes.length && back.every((b, i) => b === bytes[i]) ? text : bytes;
}

const utf8 = new TextEncoder();

/** The bytes of a text value in `charset`; bytes pass through as they are. */
export function encodeText(value: Text, charset: string): Uint8Array {
  if (typeof value !== 'string') return value;
  const codec = CODECS[charset];
  if (codec === undefined) return utf8.encode(value);
  if (charset === 'latin1') return latin1Bytes(value);
  const b = iconv.encode(value, codec, { addBOM: false });
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function latin1Bytes(value: string): Uint8Array {
  const out = iconv.encode(value, 'cp1252');
  // iconv writes '?' for the C1 controls; MySQL's latin1 has them at their own numbers.
  for (let i = 0, k = 0; i < value.length; i++, k++) {
    const c = value.charCodeAt(i);
    if (LATIN1_C1.includes(c)) out[k] = c;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
