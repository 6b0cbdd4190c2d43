/**
 * The multi-byte character sets without a server: codes whose meaning is quoted from MariaDB's
 * strings/ctype-*.c tables. test/mariadb-charsets.test.ts checks every code against a real server.
 */
import { describe, expect, it } from 'vitest';
import { decodeText, encodeText } from '../../runtime/values/charsets.js';

const bytes = (...b: number[]) => Uint8Array.from(b);

describe('decodeText in the multi-byte character sets', () => {
  it("gives the character each charset's own table gives a code", () => {
    // One code, two tables: sjis_to_unicode[0x8160] is U+301C, cp932_to_unicode[0x8160] U+FF5E.
    expect(decodeText(bytes(0x81, 0x60), 'sjis')).toBe('\u301C');
    expect(decodeText(bytes(0x81, 0x60), 'cp932')).toBe('\uFF5E');
    expect(decodeText(bytes(0xa1, 0xc1), 'ujis')).toBe('\u301C');
    expect(decodeText(bytes(0xa1, 0xc1), 'eucjpms')).toBe('\uFF5E');
    // One byte (sjis half-width katakana), two (ujis 8E), three (ujis 8F: JIS X 0212).
    expect(decodeText(bytes(0xb1, 0x61), 'sjis')).toBe('\uFF71a');
    expect(decodeText(bytes(0x8e, 0xb1), 'ujis')).toBe('\uFF71');
    expect(decodeText(bytes(0x8f, 0xb0, 0xa1, 0x41), 'ujis')).toBe('\u4E02A');
    expect(decodeText(bytes(0x81, 0x40), 'gbk')).toBe('\u4E02');
    expect(decodeText(bytes(0xb0, 0xa1), 'gb2312')).toBe('\u554A');
  });

  it('keeps the bytes of a code that is no character', () => {
    const asBytes = (cs: string, ...b: number[]) =>
      expect(decodeText(bytes(...b), cs), `${cs} ${b}`).toEqual(bytes(...b));
    asBytes('sjis', 0x81, 0x20); // a trail byte no code has
    asBytes('sjis', 0x85, 0x40); // a code the table leaves empty
    asBytes('sjis', 0x61, 0x81); // a lead byte at the end
    asBytes('ujis', 0x8f, 0xb0); // a three-byte code cut short
    asBytes('ujis', 0x8f, 0x00, 0x41); // 8F with bytes outside A1-FE
    asBytes('gbk', 0x80); // no character to the server ('€' in Windows' cp936)
    asBytes('big5', 0xa1, 0x5a); // one of seven codes for U+FFFD, and not the one the server writes
  });

  it('keeps the bytes of a code for a character the server writes otherwise', () => {
    // cp932 ED40 and FA5C are both U+7E8A; unicode_to_cp932 gives FA5C.
    expect(decodeText(bytes(0xfa, 0x5c), 'cp932')).toBe('\u7E8A');
    expect(decodeText(bytes(0xed, 0x40), 'cp932')).toEqual(bytes(0xed, 0x40));
    // ujis 8F A2 B7 is '~', which is written as ASCII.
    expect(decodeText(bytes(0x8f, 0xa2, 0xb7), 'ujis')).toEqual(bytes(0x8f, 0xa2, 0xb7));
    // sjis 81 5F is '\' to the server, which writes '\' as 81 5F too; but ASCII stays ASCII here.
    expect(decodeText(bytes(0x81, 0x5f), 'sjis')).toEqual(bytes(0x81, 0x5f));
    expect(decodeText(bytes(0x5c), 'sjis')).toBe('\\');
    // The server's own U+FFFD (big5 A2CE, the one of seven it writes) is its text.
    expect(decodeText(bytes(0xa2, 0xce), 'big5')).toBe('\uFFFD');
  });
});

describe('encodeText in the multi-byte character sets', () => {
  it('writes each character as the server does, ASCII as ASCII', () => {
    expect(encodeText('\u301Ca\\', 'sjis')).toEqual(bytes(0x81, 0x60, 0x61, 0x5c));
    expect(encodeText('\u7E8A', 'cp932')).toEqual(bytes(0xfa, 0x5c));
    expect(encodeText('\u4E02\uFF71', 'ujis')).toEqual(bytes(0x8f, 0xb0, 0xa1, 0x8e, 0xb1));
  });
});

describe('decodeText in swe7', () => {
  it('reads the bytes 00-7F as its table does, not as ASCII', () => {
    // to_uni_swe7 of ctype-extra.c: 40 is U+00C9, 5B-5E U+00C4 U+00D6 U+00C5 U+00DC.
    expect(decodeText(bytes(0x40, 0x5b, 0x41), 'swe7')).toBe('\u00C9\u00C4A');
    expect(encodeText('\u00C9\u00C4A', 'swe7')).toEqual(bytes(0x40, 0x5b, 0x41));
  });
});

describe('the character sets read through iconv-lite (schemas/charsets.yaml ENCODING_*)', () => {
  it('have the byte order and encoding MySQL gives them, both ways', () => {
    const both = (text: string, cs: string, b: Uint8Array) => {
      expect(encodeText(text, cs), `${text} in ${cs}`).toEqual(b);
      expect(decodeText(b, cs), `${text} in ${cs}`).toBe(text);
    };
    both('\u00E9', 'ucs2', bytes(0x00, 0xe9));
    both('\u00E9', 'utf16', bytes(0x00, 0xe9));
    both('\u00E9', 'utf16le', bytes(0xe9, 0x00));
    both('\u00E9', 'utf32', bytes(0x00, 0x00, 0x00, 0xe9));
    both('\u20AC', 'gb18030', bytes(0xa2, 0xe3)); // GB 18030-2005: € is A2E3
    both('\u{1F600}', 'gb18030', bytes(0x94, 0x39, 0xfc, 0x36)); // four bytes: U+10000 is 90 30 81 30
    both('\uAC00', 'euckr', bytes(0xb0, 0xa1)); // 가, KS X 1001 row 16 cell 1
  });
});

describe('text a charset cannot hold', () => {
  it('is refused on encoding, naming the path, never written as other bytes', () => {
    const refused = (text: string, cs: string) =>
      expect(() => encodeText(text, cs, 'rows.after.c'), `${text} in ${cs}`).toThrow(
        expect.objectContaining({ kind: 'encode', schemaPath: 'rows.after.c' }),
      );
    refused('\u6F22', 'latin1'); // was written as its UTF-8
    refused('\u00E9', 'ascii');
    refused('\u00E9', 'sjis');
    refused('\u{1F600}', 'euckr'); // iconv-lite would write '?'
    refused('\u{1F600}', 'utf8mb3');
    refused('\u{1F600}', 'ucs2');
    refused('a\uD83D', 'utf8mb4'); // a lone surrogate: TextEncoder would write U+FFFD
    refused('\u00E9', 'no-such-charset');
  });

  it('is still written where the charset holds it', () => {
    expect(encodeText('\u20AC', 'latin1')).toEqual(bytes(0x80)); // MySQL's latin1 is cp1252
    expect(encodeText('\u{1F600}', 'utf8mb4')).toEqual(bytes(0xf0, 0x9f, 0x98, 0x80));
    expect(encodeText('\u{1F600}', 'utf16')).toEqual(bytes(0xd8, 0x3d, 0xde, 0x00));
    expect(encodeText('abc', 'no-such-charset')).toEqual(bytes(0x61, 0x62, 0x63));
  });

  it('stays bytes on decoding: a 4-byte UTF-8 sequence is not utf8mb3', () => {
    const emoji = bytes(0x61, 0xf0, 0x9f, 0x98, 0x80);
    expect(decodeText(emoji, 'utf8mb3')).toEqual(emoji);
    expect(decodeText(emoji, 'utf8mb4')).toBe('a\u{1F600}');
  });
});
