/**
 * Text in a column's character set, losslessly: a value is a string only when its bytes decode and
 * re-encode to the same bytes in that character set; otherwise it stays bytes. Node decodes UTF-8 itself;
 * iconv-lite does the other character sets, in both directions.
 */
import iconv from 'iconv-lite';
import { CollationCharsets } from '../generated/charsets.js';
import { bytesToText, type Text } from './reader.js';

/** MySQL's character set names → iconv-lite's codecs (MySQL's latin1 is Windows-1252; its ucs2, utf16, utf32 big-endian). */
const CODECS: Record<string, string> = {
  latin1: 'cp1252',
  latin2: 'iso-8859-2',
  latin5: 'iso-8859-9',
  latin7: 'iso-8859-13',
  greek: 'iso-8859-7',
  hebrew: 'iso-8859-8',
  ucs2: 'utf-16be',
  utf16: 'utf-16be',
  utf16le: 'utf-16le',
  utf32: 'utf-32be',
  gbk: 'gbk',
  gb2312: 'gb2312',
  gb18030: 'gb18030',
  big5: 'big5',
  sjis: 'shift_jis',
  cp932: 'cp932',
  ujis: 'euc-jp',
  eucjpms: 'euc-jp',
  euckr: 'euc-kr',
  cp1250: 'windows-1250',
  cp1251: 'windows-1251',
  cp1256: 'windows-1256',
  cp1257: 'windows-1257',
  cp850: 'cp850',
  cp852: 'cp852',
  cp866: 'cp866',
  koi8r: 'koi8-r',
  koi8u: 'koi8-u',
  macroman: 'macintosh',
  tis620: 'tis-620',
  armscii8: 'armscii8',
};

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
  // ASCII is the same in every character set above that is not UTF-16/32.
  if (asciiOnly(bytes) && charset !== 'ucs2' && !charset.startsWith('utf')) return latin1.decode(bytes);
  if (codec === undefined || !iconv.encodingExists(codec)) return bytes;
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), codec, { stripBOM: false });
  const back = iconv.encode(text, codec, { addBOM: false });
  return back.length === bytes.length && back.every((b, i) => b === bytes[i]) ? text : bytes;
}

const utf8 = new TextEncoder();

/** The bytes of a text value in `charset`; bytes pass through as they are. */
export function encodeText(value: Text, charset: string): Uint8Array {
  if (typeof value !== 'string') return value;
  if (charset === 'utf8mb4' || charset === 'utf8mb3' || charset === 'binary') return utf8.encode(value);
  const codec = CODECS[charset];
  if (charset === 'ascii' || codec === undefined || !iconv.encodingExists(codec)) return utf8.encode(value);
  const b = iconv.encode(value, codec, { addBOM: false });
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
