import { describe, expect, it } from 'vitest';
import { EncodeError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { Writer, textToBytes } from '../../runtime/core/writer.js';
import { bigCases, caseName, numberCases, packedCases } from './int-cases.js';
import { caught, hex, rep, spaced } from './helpers.js';

/** Bytes written by `fn` on a fresh writer, as spaced hex. */
function written(fn: (w: Writer) => void, capacity?: number): string {
  const w = new Writer(capacity);
  fn(w);
  return spaced(w.finish());
}

describe('Writer: fixed-width integers', () => {
  describe('widths of 1-6 bytes (numbers)', () => {
    it.each(numberCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
      expect(written((w) => w[c.method](c.value))).toBe(c.bytes);
    });
  });

  describe('widths of 7-8 bytes (bigints)', () => {
    it.each(bigCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
      expect(written((w) => w[c.method](c.value))).toBe(c.bytes);
    });
  });

  it('writes consecutive fields one after another', () => {
    // u8 1 | u16 0x0302 | u24be 0x040506 | i32 -2 | u48 2^48-1
    const out = written((w) => {
      w.u8(1);
      w.u16(0x0302);
      w.u24be(0x040506);
      w.i32(-2);
      w.u48(2 ** 48 - 1);
    });
    expect(out).toBe('01 02 03 04 05 06 fe ff ff ff ff ff ff ff ff ff');
  });

  // Each of these was written cut short, in silence, until the fuzzer's case E3 (issue 41).
  it.each([
    ['u8(256)', (w: Writer) => w.u8(256, 'T.a'), '256 does not fit 1 bytes'],
    ['u16(-1)', (w: Writer) => w.u16(-1, 'T.a'), '-1 does not fit 2 bytes'],
    ['u24be(2^24)', (w: Writer) => w.u24be(2 ** 24, 'T.a'), '16777216 does not fit 3 bytes'],
    ['u32(-1)', (w: Writer) => w.u32(-1, 'T.a'), '-1 does not fit 4 bytes'],
    ['u32(2^40)', (w: Writer) => w.u32(2 ** 40, 'T.a'), '1099511627776 does not fit 4 bytes'],
    ['u32(1.5)', (w: Writer) => w.u32(1.5, 'T.a'), '1.5 does not fit 4 bytes'],
    ['i8(-129)', (w: Writer) => w.i8(-129, 'T.a'), '-129 does not fit 1 bytes'],
    ['i32(2^32)', (w: Writer) => w.i32(2 ** 32, 'T.a'), '4294967296 does not fit 4 bytes'],
    ['u48(2^48)', (w: Writer) => w.u48(2 ** 48, 'T.a'), '281474976710656 does not fit 6 bytes'],
    ['u64(2^64)', (w: Writer) => w.u64(2n ** 64n, 'T.a'), '18446744073709551616 does not fit 8 bytes'],
    ['i56(2^56)', (w: Writer) => w.i56(2n ** 56n, 'T.a'), '72057594037927936 does not fit 7 bytes'],
    ['patchU32(2^32)', (w: Writer) => w.patchU32(w.reserve(4), 2 ** 32, 'T.a'), '4294967296 does not fit 4 bytes'],
  ])('refuses %s with an EncodeError naming the field', (_, write, problem) => {
    const e = caught(EncodeError, () => write(new Writer()));
    expect([e.problem, e.schemaPath]).toEqual([problem, 'T.a']);
  });

  it('a signed writer takes the same bits given as unsigned, and the eight-byte ones either reading', () => {
    expect(written((w) => (w.i8(255), w.i8(-1), w.i16(0xffff), w.u64(-1n)))).toBe(
      'ff ff ff ff ff ff ff ff ff ff ff ff',
    );
  });
});

describe('Writer → Reader round trips of integers', () => {
  it.each(numberCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
    const w = new Writer(1);
    w.u8(0xaa); // something before, so the value is not at offset 0
    w[c.method](c.value);
    const r = new Reader(w.finish());
    expect(r.u8()).toBe(0xaa);
    expect(Object.is(r[c.method](), c.value)).toBe(true);
    expect(r.remaining).toBe(0);
  });

  it.each(bigCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
    const w = new Writer(1);
    w.u8(0xaa);
    w[c.method](c.value);
    const r = new Reader(w.finish());
    expect(r.u8()).toBe(0xaa);
    expect(r[c.method]()).toBe(c.value);
    expect(r.remaining).toBe(0);
  });

  it('a u48 table id survives a round trip at every power of two', () => {
    const w = new Writer();
    for (let k = 0; k < 48; k++) w.u48(2 ** k);
    const r = new Reader(w.finish());
    for (let k = 0; k < 48; k++) expect(r.u48()).toBe(2 ** k);
  });

  it('i48 and i48be survive a round trip at ±2^k', () => {
    const w = new Writer();
    for (let k = 0; k < 47; k++) (w.i48(-(2 ** k)), w.i48(2 ** k), w.i48be(-(2 ** k)), w.i48be(2 ** k));
    const r = new Reader(w.finish());
    for (let k = 0; k < 47; k++) {
      expect([r.i48(), r.i48(), r.i48be(), r.i48be()]).toEqual([-(2 ** k), 2 ** k, -(2 ** k), 2 ** k]);
    }
  });
});

describe('Writer: packed (length-encoded) integers choose the shortest form', () => {
  it.each(packedCases.map((c) => [`${c.value} is ${c.bytes} (${c.note})`, c] as const))('number %s', (_, c) => {
    expect(written((w) => w.packed(Number(c.value), 'P'))).toBe(c.bytes);
  });

  it.each(packedCases.map((c) => [`${c.value}n is ${c.bytes} (${c.note})`, c] as const))('bigint %s', (_, c) => {
    expect(written((w) => w.packed(c.value, 'P'))).toBe(c.bytes);
  });

  it('2^64-1 as a bigint is fe ff ff ff ff ff ff ff ff', () => {
    expect(written((w) => w.packed(0xffff_ffff_ffff_ffffn, 'P'))).toBe('fe ' + rep('ff', 8));
  });

  it('2^53 as a bigint is fe 00 00 00 00 00 00 20 00', () => {
    expect(written((w) => w.packed(2n ** 53n, 'P'))).toBe('fe 00 00 00 00 00 00 20 00');
  });

  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ['NaN', NaN],
    ['2^53 (not a safe integer)', 2 ** 53],
    ['-1n', -1n],
    ['2^64', 2n ** 64n],
  ])('rejects %s with EncodeError naming the path', (_, v) => {
    const w = new Writer();
    const e = caught(EncodeError, () => w.packed(v, 'Ev.count'));
    expect(e.kind).toBe('encode');
    expect(e.schemaPath).toBe('Ev.count');
    expect(w.pos).toBe(0);
  });

  it('round trips through the reader, numbers and bigints', () => {
    const w = new Writer();
    for (const c of packedCases) w.packed(Number(c.value), 'P');
    w.packed(0xffff_ffff_ffff_ffffn, 'P');
    const r = new Reader(w.finish());
    for (const c of packedCases) expect(r.packed('P')).toBe(Number(c.value));
    expect(r.packedBig('P')).toBe(0xffff_ffff_ffff_ffffn);
    expect(r.remaining).toBe(0);
  });
});

describe('Writer: strings', () => {
  describe('textToBytes', () => {
    it('encodes a string as UTF-8', () => {
      expect(spaced(textToBytes('hé€'))).toBe('68 c3 a9 e2 82 ac');
    });

    it('keeps a leading BOM', () => {
      expect(spaced(textToBytes('\ufeffa'))).toBe('ef bb bf 61');
    });

    it('passes bytes through as the same array', () => {
      const b = hex('ff 00');
      expect(textToBytes(b)).toBe(b);
    });

    it('encodes the empty string as no bytes', () => {
      expect(textToBytes('')).toEqual(new Uint8Array(0));
    });
  });

  describe('cstring', () => {
    it('appends a NUL', () => {
      expect(written((w) => w.cstring('ab', 'S'))).toBe('61 62 00');
    });

    it('writes the empty string as a lone NUL', () => {
      expect(written((w) => w.cstring('', 'S'))).toBe('00');
    });

    it('writes raw bytes as given', () => {
      expect(written((w) => w.cstring(hex('ff fe'), 'S'))).toBe('ff fe 00');
    });

    it('rejects a NUL inside, in text or bytes, with EncodeError', () => {
      expect(caught(EncodeError, () => new Writer().cstring('a\0b', 'Ev.name')).schemaPath).toBe('Ev.name');
      caught(EncodeError, () => new Writer().cstring(hex('61 00'), 'Ev.name'));
    });

    it('round trips through Reader.cstring', () => {
      const w = new Writer();
      w.cstring('héllo', 'S');
      w.cstring('', 'S');
      const r = new Reader(w.finish());
      expect(r.cstring('S')).toEqual(hex('68 c3 a9 6c 6c 6f'));
      expect(r.cstring('S')).toEqual(new Uint8Array(0));
      expect(r.remaining).toBe(0);
    });
  });

  describe('prefixedUtf8', () => {
    // Short strings are written by a loop, long ones by Buffer's native code: both must give Node's UTF-8.
    const pieces = [
      'a',
      '~',
      '\u0080',
      'é',
      '\u07ff',
      '\u0800',
      '名',
      '\ud7ff',
      '\ue000',
      '\uffff',
      '😀',
      '\u{10ffff}',
      '\u{10000}',
    ];
    const texts = [
      '',
      ...pieces,
      pieces.join(''),
      'x'.repeat(31) + '😀',
      'é'.repeat(32),
      'é'.repeat(33),
      pieces.join('').repeat(4),
    ];

    it.each(texts.map((t) => [t.length, t]))('a text of %i UTF-16 units is its UTF-8 after its length', (_n, text) => {
      const utf8 = new Uint8Array(Buffer.from(text, 'utf8'));
      const w = new Writer(1);
      w.u8(0xee);
      w.prefixedUtf8(text, 2, 'S');
      expect(w.finish()).toEqual(Uint8Array.of(0xee, utf8.length & 0xff, utf8.length >> 8, ...utf8));
    });

    it.each([
      '\ud800',
      '\udc00\udc00',
      'a\ud800',
      '\ud800a',
      '\udc00',
      'a\udc00\ud800b',
      '😀\ud83d',
      'x'.repeat(40) + '\udfff',
    ])('refuses the lone surrogate in %j', (text) => {
      expect(caught(EncodeError, () => new Writer().prefixedUtf8(text, 1, 'Q.text')).message).toMatch(
        /has a lone surrogate, which no charset can store \[in Q\.text\]/,
      );
    });

    it('refuses a text whose length does not fit its prefix', () => {
      expect(caught(EncodeError, () => new Writer().prefixedUtf8('é'.repeat(128), 1, 'S')).problem).toBe(
        '256 bytes do not fit a 1-byte length',
      );
    });
  });

  describe('padded', () => {
    it('pads with NULs to the field size', () => {
      expect(written((w) => w.padded('ab', 5, 'S'))).toBe('61 62 00 00 00');
    });

    it('writes the empty string as all NULs', () => {
      expect(written((w) => w.padded('', 3, 'S'))).toBe('00 00 00');
    });

    it('writes a value of exactly the field size with no padding', () => {
      expect(written((w) => w.padded('abcde', 5, 'S'))).toBe('61 62 63 64 65');
    });

    it('counts UTF-8 bytes, not characters', () => {
      expect(written((w) => w.padded('é', 3, 'S'))).toBe('c3 a9 00');
      caught(EncodeError, () => new Writer().padded('éé', 3, 'S'));
    });

    it('rejects a value longer than the field with EncodeError', () => {
      const e = caught(EncodeError, () => new Writer().padded('abcdef', 5, 'Fde.serverVersion'));
      expect(e.schemaPath).toBe('Fde.serverVersion');
      expect(e.message).toBe('6 bytes do not fit in 5 [in Fde.serverVersion]');
    });

    it('pads with real zeros even when the buffer held other bytes before a reset', () => {
      const w = new Writer(4);
      w.u32(0xffffffff);
      w.reset();
      w.padded('a', 4, 'S');
      expect(spaced(w.finish())).toBe('61 00 00 00');
    });

    it.each([
      ['61 62 00 00 00', 'text and padding'],
      ['00 00 00 00 00', 'all padding'],
      ['61 62 63 64 65', 'no padding'],
      ['61 62 00 63 00', 'bytes after the NUL that are not padding'],
      ['ff 61 00 00 00', 'invalid UTF-8 before the padding'],
      ['ef bb bf 61 00', 'a leading BOM'],
    ])('decoding then encoding %s (%s) gives the same bytes', (bytes) => {
      const v = new Reader(hex(bytes)).padded(5, 'S');
      expect(written((w) => w.padded(v, 5, 'S'))).toBe(bytes);
    });
  });

  describe('prefixed', () => {
    const abc = hex('61 62 63');
    it.each([
      [1, '03 61 62 63'],
      [2, '03 00 61 62 63'],
      [3, '03 00 00 61 62 63'],
      [4, '03 00 00 00 61 62 63'],
      [0, '03 61 62 63'],
    ])('a %i-byte length (0 = packed) before the bytes', (width, bytes) => {
      expect(written((w) => w.prefixed(abc, width, 'S'))).toBe(bytes);
    });

    it.each([
      [1, '00'],
      [2, '00 00'],
      [3, '00 00 00'],
      [4, '00 00 00 00'],
      [0, '00'],
    ])('an empty value with a %i-byte length is just a zero length', (width, bytes) => {
      expect(written((w) => w.prefixed(new Uint8Array(0), width, 'S'))).toBe(bytes);
    });

    it('a packed length of 251 bytes is fc fb 00', () => {
      const w = new Writer();
      w.prefixed(new Uint8Array(251).fill(0x78), 0, 'S');
      const out = w.finish();
      expect(out.length).toBe(3 + 251);
      expect(spaced(out.subarray(0, 4))).toBe('fc fb 00 78');
    });

    it('the largest length each width holds is accepted: 255 and 65535', () => {
      const w1 = new Writer();
      w1.prefixed(new Uint8Array(255), 1, 'S');
      expect(spaced(w1.finish().subarray(0, 1))).toBe('ff');
      expect(w1.pos).toBe(256);
      const w2 = new Writer();
      w2.prefixed(new Uint8Array(65535), 2, 'S');
      expect(spaced(w2.finish().subarray(0, 2))).toBe('ff ff');
      expect(w2.pos).toBe(65537);
    });

    it.each([
      [1, 256],
      [2, 65536],
      [3, 2 ** 24],
    ])('a %i-byte length rejects %i bytes with EncodeError', (width, n) => {
      const w = new Writer();
      const e = caught(EncodeError, () => w.prefixed(new Uint8Array(n), width, 'Ev.data'));
      expect(e.schemaPath).toBe('Ev.data');
      expect(w.pos).toBe(0);
    });

    it('round trips through the reader for every width', () => {
      const w = new Writer();
      for (const width of [1, 2, 3, 4, 0]) w.prefixed(textToBytes('héllo'), width, 'S');
      const r = new Reader(w.finish());
      expect(r.bytes(r.u8(), 'S')).toEqual(textToBytes('héllo'));
      expect(r.bytes(r.u16(), 'S')).toEqual(textToBytes('héllo'));
      expect(r.bytes(r.u24(), 'S')).toEqual(textToBytes('héllo'));
      expect(r.bytes(r.u32(), 'S')).toEqual(textToBytes('héllo'));
      expect(r.bytes(r.packed('S'), 'S')).toEqual(textToBytes('héllo'));
      expect(r.remaining).toBe(0);
    });
  });
});

describe('Writer: bitmaps (least significant bit of the first byte first)', () => {
  const T = true;
  const F = false;

  it('1 bit: [true] is 01, [false] is 00', () => {
    expect(written((w) => w.bitmap([T], 1, 'B'))).toBe('01');
    expect(written((w) => w.bitmap([F], 1, 'B'))).toBe('00');
  });

  it('8 bits: bits 0, 2, 5, 7 are a5', () => {
    expect(written((w) => w.bitmap([T, F, T, F, F, T, F, T], 8, 'B'))).toBe('a5');
  });

  it('9 bits: bits 0 and 8 are 01 01', () => {
    expect(written((w) => w.bitmap([T, F, F, F, F, F, F, F, T], 9, 'B'))).toBe('01 01');
  });

  it('65 bits: bits 0, 63 and 64 are 01 00 00 00 00 00 00 80 01', () => {
    const bits = Array.from({ length: 65 }, (_, i) => i === 0 || i === 63 || i === 64);
    expect(written((w) => w.bitmap(bits, 65, 'B'))).toBe('01 00 00 00 00 00 00 80 01');
  });

  it('all 9 bits set leave the 7 spare bits zero: ff 01', () => {
    expect(written((w) => w.bitmap(new Array(9).fill(true), 9, 'B'))).toBe('ff 01');
  });

  it('spare bits are zero even when the buffer held set bits before a reset', () => {
    const w = new Writer(2);
    w.u16(0xffff);
    w.reset();
    w.bitmap([T], 1, 'B');
    w.bitmap([F, F, F, F, F, F, F, F, F], 9, 'B');
    expect(spaced(w.finish())).toBe('01 00 00');
  });

  it('0 bits write nothing', () => {
    expect(written((w) => w.bitmap([], 0, 'B'))).toBe('');
  });

  it.each([
    [[T, T], 1],
    [[T], 9],
    [new Array(64).fill(false), 65],
  ])('rejects %j with a declared %i bits with EncodeError', (bits, n) => {
    const w = new Writer();
    const e = caught(EncodeError, () => w.bitmap(bits, n, 'Rows.columns'));
    expect(e.schemaPath).toBe('Rows.columns');
    expect(w.pos).toBe(0);
  });

  it.each([1, 8, 9, 65])('%i bits round trip through the reader', (n) => {
    const bits = Array.from({ length: n }, (_, i) => i % 3 === 0);
    const w = new Writer();
    w.bitmap(bits, n, 'B');
    const r = new Reader(w.finish());
    expect(r.bitmap(n, 'B')).toEqual(bits);
    expect(r.remaining).toBe(0);
  });

  it('what the writer writes never trips the reader spare-bit check', () => {
    const w = new Writer();
    w.bitmap(new Array(3).fill(true), 3, 'B');
    expect(spaced(w.finish())).toBe('07');
    expect(new Reader(w.finish()).bitmap(3, 'B')).toEqual([true, true, true]);
  });
});

describe('Writer: buffer management', () => {
  it('grows past the initial capacity and keeps what was written', () => {
    const w = new Writer(2);
    for (let i = 0; i < 10; i++) w.u32(0x01020300 + i);
    const out = w.finish();
    expect(out.length).toBe(40);
    expect(spaced(out.subarray(0, 8))).toBe('00 03 02 01 01 03 02 01');
    expect(spaced(out.subarray(36))).toBe('09 03 02 01');
    expect(w.buf.length).toBeGreaterThanOrEqual(40);
  });

  it('grows for a single write far larger than the capacity', () => {
    const w = new Writer(4);
    w.u8(0x11);
    w.bytes(new Uint8Array(1000).fill(0x22));
    w.u64be(1n);
    const out = w.finish();
    expect(out.length).toBe(1 + 1000 + 8);
    expect(out[0]).toBe(0x11);
    expect(out[1000]).toBe(0x22);
    expect(spaced(out.subarray(1001))).toBe('00 00 00 00 00 00 00 01');
  });

  it('multi-byte writes that straddle the capacity land correctly (DataView follows the new buffer)', () => {
    const w = new Writer(3);
    w.u16(0x0201);
    w.u32be(0x03040506);
    w.u64(0x0e0d0c0b0a090807n);
    w.f64(1);
    expect(spaced(w.finish())).toBe('01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 00 00 00 00 00 00 f0 3f');
  });

  it('a writer created with capacity 0 still grows', () => {
    const w = new Writer(0);
    w.u8(1);
    w.u32(0x05040302);
    expect(spaced(w.finish())).toBe('01 02 03 04 05');
  });

  it('finish returns a copy; view shares the buffer', () => {
    const w = new Writer();
    w.u16(0x0201);
    const copy = w.finish();
    const view = w.view();
    w.patchU16(0, 0xffff);
    expect(spaced(copy)).toBe('01 02');
    expect(spaced(view)).toBe('ff ff');
  });

  it('reset starts over at position 0', () => {
    const w = new Writer();
    w.u32(1);
    w.reset();
    expect(w.pos).toBe(0);
    w.u8(7);
    expect(spaced(w.finish())).toBe('07');
  });

  describe('reserve and patch', () => {
    it('reserve leaves zeroed bytes and returns where they start', () => {
      const w = new Writer();
      w.u8(0xaa);
      const at = w.reserve(3);
      expect(at).toBe(1);
      w.u8(0xbb);
      expect(spaced(w.finish())).toBe('aa 00 00 00 bb');
    });

    it('patchU16 fills a reserved 2-byte length after the payload', () => {
      const w = new Writer();
      const at = w.reserve(2);
      w.bytes(hex('61 62 63'));
      w.patchU16(at, w.pos - at - 2);
      expect(spaced(w.finish())).toBe('03 00 61 62 63');
    });

    it('patchU32 fills a reserved 4-byte length after the buffer has grown', () => {
      const w = new Writer(4);
      w.u8(0xee);
      const at = w.reserve(4);
      w.bytes(new Uint8Array(300).fill(0x55));
      w.patchU32(at, 0x12345678);
      const out = w.finish();
      expect(out.length).toBe(305);
      expect(spaced(out.subarray(0, 6))).toBe('ee 78 56 34 12 55');
    });

    it('patchU32 writes values with the top bit set', () => {
      const w = new Writer();
      const at = w.reserve(4);
      w.patchU32(at, 0xfffffffe);
      expect(spaced(w.finish())).toBe('fe ff ff ff');
    });

    it('patchU8 fills one reserved byte', () => {
      const w = new Writer();
      const at = w.reserve(1);
      w.u8(2);
      w.patchU8(at, 0x7f);
      expect(spaced(w.finish())).toBe('7f 02');
    });

    it('reserve(0) writes nothing', () => {
      const w = new Writer();
      expect(w.reserve(0)).toBe(0);
      expect(w.pos).toBe(0);
    });
  });

  describe('fixed', () => {
    it('writes bytes of exactly the declared size', () => {
      expect(written((w) => w.fixed(hex('01 02 03 04'), 4, 'F'))).toBe('01 02 03 04');
    });

    it.each([
      [3, 4],
      [5, 4],
      [0, 1],
    ])('rejects %i bytes for a %i-byte field with EncodeError', (len, n) => {
      const w = new Writer();
      const e = caught(EncodeError, () => w.fixed(new Uint8Array(len), n, 'Gtid.sid'));
      expect(e.kind).toBe('encode');
      expect(e.schemaPath).toBe('Gtid.sid');
      expect(e.message).toBe(`expected ${n} bytes, got ${len} [in Gtid.sid]`);
      expect(w.pos).toBe(0);
    });
  });
});
