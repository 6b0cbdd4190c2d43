import { describe, expect, it } from 'vitest';
import { InvalidValueError, LengthError, SchemaCheckError, TruncatedError } from '../../runtime/core/errors.js';
import { Reader, bytesToText } from '../../runtime/core/reader.js';
import { bigCases, caseName, numberCases, packedCases } from './int-cases.js';
import { caught, hex, rep } from './helpers.js';

describe('Reader: fixed-width integers', () => {
  describe('widths of 1-6 bytes read as numbers, least/most significant byte first', () => {
    it.each(numberCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
      const r = new Reader(hex(c.bytes));
      const v = r[c.method]();
      expect(typeof v).toBe('number');
      expect(Object.is(v, c.value), `${v} vs ${c.value}`).toBe(true);
      expect(r.pos).toBe(hex(c.bytes).length);
    });
  });

  describe('widths of 7-8 bytes read as bigints', () => {
    it.each(bigCases.map((c) => [caseName(c), c] as const))('%s', (_, c) => {
      const r = new Reader(hex(c.bytes));
      const v = r[c.method]();
      expect(typeof v).toBe('bigint');
      expect(v).toBe(c.value);
      expect(r.pos).toBe(hex(c.bytes).length);
    });
  });

  it('reads consecutive fields from where the previous one ended', () => {
    // u8 01 | u16 0x0302 | u24be 0x040506 | i32 -2 | u48 2^48-1
    const r = new Reader(hex('01  02 03  04 05 06  fe ff ff ff  ff ff ff ff ff ff'));
    expect(r.u8()).toBe(1);
    expect(r.u16()).toBe(0x0302);
    expect(r.u24be()).toBe(0x040506);
    expect(r.i32()).toBe(-2);
    expect(r.u48()).toBe(2 ** 48 - 1);
    expect(r.remaining).toBe(0);
  });

  it('reads a buffer that is a view into a larger ArrayBuffer (byteOffset honoured)', () => {
    const whole = hex('aa bb 34 12 ef cd ab 89 67 45 23 01 cc');
    const r = new Reader(whole.subarray(2, 12));
    expect(r.u16()).toBe(0x1234);
    expect(r.u64()).toBe(0x0123_4567_89ab_cdefn);
    expect(r.remaining).toBe(0);
  });

  it('starts at `start` and counts `pos` in the buffer', () => {
    const r = new Reader(hex('ff ff 78 56 34 12'), 2);
    expect(r.u32()).toBe(0x12345678);
    expect(r.pos).toBe(6);
  });
});

describe('Reader: packed (length-encoded) integers', () => {
  describe('packedBig decodes each width boundary', () => {
    it.each(packedCases.map((c) => [`${c.bytes} is ${c.value} (${c.note})`, c] as const))('%s', (_, c) => {
      const r = new Reader(hex(c.bytes));
      expect(r.packedBig('P')).toBe(c.value);
      expect(r.pos).toBe(hex(c.bytes).length);
    });

    it('fe ff ff ff ff ff ff ff ff is 2^64-1', () => {
      const r = new Reader(hex('fe ' + rep('ff', 8)));
      expect(r.packedBig('P')).toBe(0xffff_ffff_ffff_ffffn);
      expect(r.pos).toBe(9);
    });
  });

  describe('packed decodes each width boundary as a number', () => {
    it.each(packedCases.map((c) => [`${c.bytes} is ${c.value}`, c] as const))('%s', (_, c) => {
      const r = new Reader(hex(c.bytes));
      const v = r.packed('P');
      expect(typeof v).toBe('number');
      expect(v).toBe(Number(c.value));
      expect(r.pos).toBe(hex(c.bytes).length);
    });
  });

  it('packed throws LengthError for 2^53, one past Number.MAX_SAFE_INTEGER', () => {
    const e = caught(LengthError, () => new Reader(hex('fe 00 00 00 00 00 00 20 00')).packed('Ev.len'));
    expect(e.kind).toBe('length');
    expect(e.schemaPath).toBe('Ev.len');
  });

  it('packed throws LengthError for 2^64-1', () => {
    caught(LengthError, () => new Reader(hex('fe ' + rep('ff', 8))).packed('P'));
  });

  it.each([
    ['fb', 0xfb],
    ['ff', 0xff],
  ])('first byte %s is not a packed integer: InvalidValueError at its offset', (b) => {
    const r = new Reader(hex(`00 ${b} 00 00 00 00 00 00 00 00`), 1, 10, 500);
    const e = caught(InvalidValueError, () => r.packedBig('Ev.count'));
    expect(e.offset).toBe(501);
    expect(e.schemaPath).toBe('Ev.count');
    expect(r.pos).toBe(1);
    caught(InvalidValueError, () => new Reader(hex(b)).packed('P'));
  });

  it.each([
    ['', 'no first byte'],
    ['fc 01', '0xfc with 1 of 2 bytes'],
    ['fd 01 02', '0xfd with 2 of 3 bytes'],
    ['fe 01 02 03 04 05 06 07', '0xfe with 7 of 8 bytes'],
  ])('%s (%s) throws TruncatedError', (bytes) => {
    const r = new Reader(hex(bytes), 0, hex(bytes).length, 40);
    const e = caught(TruncatedError, () => r.packedBig('Ev.n'));
    expect(e.offset).toBe(40);
    expect(e.schemaPath).toBe('Ev.n');
  });

  it.each([
    ['fc 05 00', 'a value below 251 in the 3-byte form'],
    ['fd ff ff 00', 'a value below 2^16 in the 4-byte form'],
    ['fe ff ff ff 00 00 00 00 00', 'a value below 2^24 in the 9-byte form'],
  ])('%s (%s) is refused: re-encoding would not give it back', (b) => {
    const e = caught(InvalidValueError, () => new Reader(hex(b), 0, undefined, 50).packedBig('Ev.len'));
    expect(e.offset).toBe(50);
    expect(e.schemaPath).toBe('Ev.len');
  });

  it('a packed integer that would run past the window end is truncated even if the buffer continues', () => {
    const r = new Reader(hex('fc 01 02'), 0, 2);
    caught(TruncatedError, () => r.packedBig('P'));
  });
});

describe('Reader: strings', () => {
  describe('cstring', () => {
    it('returns the bytes before the NUL and consumes the NUL', () => {
      const r = new Reader(hex('61 62 00 63'));
      expect(r.cstring('S')).toEqual(hex('61 62'));
      expect(r.pos).toBe(3);
      expect(r.u8()).toBe(0x63);
    });

    it('reads an empty string as a lone NUL', () => {
      const r = new Reader(hex('00'));
      expect(r.cstring('S')).toEqual(new Uint8Array(0));
      expect(r.pos).toBe(1);
    });

    it('throws TruncatedError when there is no NUL', () => {
      const r = new Reader(hex('61 62 63'), 1, 3, 100);
      const e = caught(TruncatedError, () => r.cstring('Ev.name'));
      expect(e.offset).toBe(101);
      expect(e.schemaPath).toBe('Ev.name');
    });

    it('throws TruncatedError when the only NUL lies beyond the window end', () => {
      const r = new Reader(hex('61 62 00'), 0, 2);
      caught(TruncatedError, () => r.cstring('S'));
    });

    it('throws TruncatedError on an empty window', () => {
      caught(TruncatedError, () => new Reader(new Uint8Array(0)).cstring('S'));
    });
  });

  describe('padded (fixed-size NUL-padded field)', () => {
    it('strips NUL padding', () => {
      const r = new Reader(hex('61 62 00 00 00'));
      expect(r.padded(5, 'S')).toBe('ab');
      expect(r.pos).toBe(5);
    });

    it('an all-NUL field is the empty string', () => {
      expect(new Reader(hex('00 00 00 00')).padded(4, 'S')).toBe('');
    });

    it('a zero-size field is the empty string and consumes nothing', () => {
      const r = new Reader(hex('61'));
      expect(r.padded(0, 'S')).toBe('');
      expect(r.pos).toBe(0);
    });

    it('a field filled to the end (no NUL) is all text', () => {
      expect(new Reader(hex('61 62 63 64 65')).padded(5, 'S')).toBe('abcde');
    });

    it('decodes UTF-8 text before the padding', () => {
      // 'é' is c3 a9
      expect(new Reader(hex('c3 a9 00 00')).padded(4, 'S')).toBe('é');
    });

    it('keeps the raw bytes of the whole field when a non-zero byte follows the first NUL', () => {
      const r = new Reader(hex('61 62 00 63 00'));
      const v = r.padded(5, 'S');
      expect(v).toBeInstanceOf(Uint8Array);
      expect(v).toEqual(hex('61 62 00 63 00'));
    });

    it('keeps the raw bytes of the whole field when the text before the NUL is not UTF-8', () => {
      const v = new Reader(hex('ff 61 00 00')).padded(4, 'S');
      expect(v).toEqual(hex('ff 61 00 00'));
    });

    it('keeps raw bytes when a field with no NUL is not UTF-8', () => {
      expect(new Reader(hex('61 c3')).padded(2, 'S')).toEqual(hex('61 c3'));
    });

    it('throws LengthError naming the offset when the field runs past the end', () => {
      const e = caught(LengthError, () => new Reader(hex('61 62 00'), 0, 3, 10).padded(4, 'Fde.serverVersion'));
      expect(e.offset).toBe(10);
      expect(e.schemaPath).toBe('Fde.serverVersion');
    });
  });

  describe('bytesToText', () => {
    it('returns a string for valid UTF-8 (ASCII, 2-, 3- and 4-byte sequences)', () => {
      expect(bytesToText(hex('68 c3 a9 e2 82 ac f0 9f 98 80'))).toBe('hé€😀');
    });

    it('returns the empty string for no bytes', () => {
      expect(bytesToText(new Uint8Array(0))).toBe('');
    });

    it('keeps a leading BOM (EF BB BF) as U+FEFF instead of stripping it', () => {
      const t = bytesToText(hex('ef bb bf 61'));
      expect(t).toBe('\ufeffa');
      expect((t as string).length).toBe(2);
    });

    it('returns a lone BOM as the one-character string U+FEFF', () => {
      expect(bytesToText(hex('ef bb bf'))).toBe('\ufeff');
    });

    it.each([
      ['ff', 'a byte that never occurs in UTF-8'],
      ['c3 28', 'a lead byte without its continuation'],
      ['e2 82', 'a sequence cut short'],
      ['80', 'a stray continuation byte'],
      ['c0 80', 'an overlong NUL'],
      ['ed a0 80', 'an encoded surrogate'],
      ['f4 90 80 80', 'a code point above U+10FFFF'],
    ])('returns the very same Uint8Array for invalid UTF-8: %s (%s)', (b) => {
      const bytes = hex(b);
      expect(bytesToText(bytes)).toBe(bytes);
    });

    it('reads text in place as bytesToText does, from a window of a larger buffer', () => {
      const buf = hex('00 00 ef bb bf 61 c3 a9 ff 62 00');
      const r = new Reader(buf.subarray(1), 1, 9, 100);
      expect(r.text(4, 'T.bom')).toBe('\ufeffa');
      expect(r.text(2, 'T.e')).toBe('é');
      const bad = r.text(2, 'T.bad');
      expect(bad).toEqual(hex('ff 62'));
      expect(bad).not.toBeInstanceOf(Buffer);
      caught(LengthError, () => r.text(1, 'T.past'));
    });
  });

  describe('length-prefixed strings (prefix read first, then bytes)', () => {
    it.each([
      ['1-byte', '03 61 62 63', (r: Reader) => r.u8()],
      ['2-byte', '03 00 61 62 63', (r: Reader) => r.u16()],
      ['3-byte', '03 00 00 61 62 63', (r: Reader) => r.u24()],
      ['4-byte', '03 00 00 00 61 62 63', (r: Reader) => r.u32()],
      ['packed', '03 61 62 63', (r: Reader) => r.packed('S')],
    ])('%s length', (_, bytes, len) => {
      const r = new Reader(hex(bytes));
      const n = len(r);
      expect(n).toBe(3);
      expect(bytesToText(r.bytes(n, 'S'))).toBe('abc');
      expect(r.remaining).toBe(0);
    });

    it('a packed length of 251 uses fc fb 00 and is followed by 251 bytes', () => {
      const r = new Reader(hex('fc fb 00 ' + rep('78', 251)));
      const n = r.packed('S');
      expect(n).toBe(251);
      expect(bytesToText(r.bytes(n, 'S'))).toBe('x'.repeat(251));
      expect(r.remaining).toBe(0);
    });

    it('an empty prefixed string is a zero length and no bytes', () => {
      const r = new Reader(hex('00'));
      expect(r.bytes(r.packed('S'), 'S')).toEqual(new Uint8Array(0));
      expect(r.remaining).toBe(0);
    });

    it('a prefix longer than what is left throws LengthError at the payload offset', () => {
      const r = new Reader(hex('05 61 62'), 0, 3, 1000);
      const n = r.u8();
      const e = caught(LengthError, () => r.bytes(n, 'Ev.db'));
      expect(e.offset).toBe(1001);
      expect(e.schemaPath).toBe('Ev.db');
    });
  });
});

describe('Reader: bitmaps (least significant bit of the first byte first)', () => {
  it('1 bit: 01 is [true], 00 is [false]', () => {
    expect(new Reader(hex('01')).bitmap(1, 'B')).toEqual([true]);
    expect(new Reader(hex('00')).bitmap(1, 'B')).toEqual([false]);
  });

  it('8 bits: a5 (1010 0101) is bits 0, 2, 5, 7', () => {
    const r = new Reader(hex('a5'));
    expect(r.bitmap(8, 'B')).toEqual([true, false, true, false, false, true, false, true]);
    expect(r.pos).toBe(1);
  });

  it('8 bits: 80 is only bit 7; no bits are spare', () => {
    expect(new Reader(hex('80')).bitmap(8, 'B')).toEqual([false, false, false, false, false, false, false, true]);
  });

  it('9 bits take 2 bytes: 01 01 is bits 0 and 8', () => {
    const r = new Reader(hex('01 01 ee'));
    expect(r.bitmap(9, 'B')).toEqual([true, false, false, false, false, false, false, false, true]);
    expect(r.pos).toBe(2);
  });

  it('9 bits: 02 00 is only bit 1', () => {
    expect(new Reader(hex('02 00')).bitmap(9, 'B')).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('65 bits take 9 bytes: 01 00 00 00 00 00 00 80 01 is bits 0, 63 and 64', () => {
    const r = new Reader(hex('01 00 00 00 00 00 00 80 01'));
    const bits = r.bitmap(65, 'B');
    expect(bits).toHaveLength(65);
    expect(bits.flatMap((b, i) => (b ? [i] : []))).toEqual([0, 63, 64]);
    expect(r.pos).toBe(9);
  });

  it('0 bits read nothing', () => {
    const r = new Reader(hex('ff'));
    expect(r.bitmap(0, 'B')).toEqual([]);
    expect(r.pos).toBe(0);
  });

  it.each([
    [1, '02', 0],
    [1, '80', 0],
    [9, '00 02', 1],
    [9, '00 80', 1],
    [65, '00 00 00 00 00 00 00 00 02', 8],
    [3, 'f8', 0],
  ])('%i bits from %s: a spare bit set throws InvalidValueError at the last byte', (bits, bytes, lastByte) => {
    const r = new Reader(hex('ff ' + bytes), 1, 1 + hex(bytes).length, 200);
    const e = caught(InvalidValueError, () => r.bitmap(bits, 'Rows.columnsPresent'));
    expect(e.offset).toBe(200 + 1 + lastByte);
    expect(e.schemaPath).toBe('Rows.columnsPresent');
    expect(r.pos).toBe(1);
  });

  it('a bitmap longer than what is left throws LengthError', () => {
    const e = caught(LengthError, () => new Reader(hex('ff'), 0, 1, 7).bitmap(9, 'B'));
    expect(e.offset).toBe(7);
  });
});

describe('Reader: bounds', () => {
  // A window of bytes 2..5 of an 8-byte buffer that starts at file offset 1000.
  const win = () => new Reader(hex('00 01 02 03 04 05 06 07'), 2, 5, 1000);

  it('remaining and offset count from the window and the base', () => {
    const r = win();
    expect(r.remaining).toBe(3);
    expect(r.offset).toBe(1002);
    r.u8();
    expect(r.remaining).toBe(2);
    expect(r.offset).toBe(1003);
  });

  describe('need', () => {
    it('passes for up to what is left', () => {
      const r = win();
      r.need(0, 'X');
      r.need(3, 'X');
      expect(r.pos).toBe(2);
    });

    it('throws TruncatedError naming base + pos and the schema path', () => {
      const r = win();
      r.u8();
      const e = caught(TruncatedError, () => r.need(3, 'Query.statusVars'));
      expect(e.kind).toBe('truncated');
      expect(e.offset).toBe(1003);
      expect(e.schemaPath).toBe('Query.statusVars');
      expect(e.problem).toBe('need 3 bytes, 2 left');
      expect(e.message).toBe('need 3 bytes, 2 left [offset 1003, in Query.statusVars]');
    });

    it('counts to the window end, not the buffer end', () => {
      caught(TruncatedError, () => win().need(4, 'X'));
    });
  });

  describe('length', () => {
    it('returns a length that fits, without moving', () => {
      const r = win();
      expect(r.length(0, 'X')).toBe(0);
      expect(r.length(3, 'X')).toBe(3);
      expect(r.pos).toBe(2);
    });

    it.each([
      ['negative', -1],
      ['non-integer', 1.5],
      ['NaN', NaN],
      ['infinite', Infinity],
      ['unsafe', 2 ** 53],
    ])('rejects a %s length with LengthError', (_, n) => {
      const e = caught(LengthError, () => win().length(n, 'Ev.len'));
      expect(e.offset).toBe(1002);
      expect(e.schemaPath).toBe('Ev.len');
      expect(e.problem).toBe(`impossible length ${n}`);
    });

    it('rejects a length beyond what is left with LengthError', () => {
      const e = caught(LengthError, () => win().length(4, 'Ev.len'));
      expect(e.offset).toBe(1002);
      expect(e.message).toBe('length 4 runs past the end (3 bytes left) [offset 1002, in Ev.len]');
    });
  });

  describe('bytes', () => {
    it('returns the next n bytes as a view and moves past them', () => {
      const buf = hex('00 01 02 03 04 05 06 07');
      const r = new Reader(buf, 2, 5, 1000);
      const b = r.bytes(2, 'X');
      expect(b).toEqual(hex('02 03'));
      expect(b.buffer).toBe(buf.buffer);
      expect(r.pos).toBe(4);
      expect(r.bytes(0, 'X')).toEqual(new Uint8Array(0));
      expect(r.pos).toBe(4);
    });

    it('throws LengthError at base + pos when n runs past the window', () => {
      const r = win();
      r.u16();
      const e = caught(LengthError, () => r.bytes(2, 'Ev.data'));
      expect(e.offset).toBe(1004);
      expect(e.schemaPath).toBe('Ev.data');
      expect(r.pos).toBe(4);
    });
  });

  describe('sub', () => {
    it('gives a reader bounded to n bytes, keeps the base, and moves the parent past them', () => {
      const r = win();
      const child = r.sub(2, 'X');
      expect(r.pos).toBe(4);
      expect(child.remaining).toBe(2);
      expect(child.offset).toBe(1002);
      expect(child.u16()).toBe(0x0302);
      expect(child.remaining).toBe(0);
    });

    it('the child cannot read past its own end, even into bytes its parent has', () => {
      const child = win().sub(1, 'X');
      const e = caught(TruncatedError, () => child.need(2, 'Ev.inner'));
      expect(e.offset).toBe(1002);
      caught(LengthError, () => child.bytes(2, 'Ev.inner'));
    });

    it('throws LengthError when n runs past the parent', () => {
      const e = caught(LengthError, () => win().sub(4, 'Ev.body'));
      expect(e.offset).toBe(1002);
      expect(e.schemaPath).toBe('Ev.body');
    });
  });

  describe('done', () => {
    it('passes when the window is used up', () => {
      const r = new Reader(hex('01 02'));
      r.u16();
      expect(() => r.done('X')).not.toThrow();
    });

    it('throws SchemaCheckError naming the bytes left and where', () => {
      const child = win().sub(3, 'X');
      child.u8();
      const e = caught(SchemaCheckError, () => child.done('Ev.extra'));
      expect(e.kind).toBe('schema-check');
      expect(e.offset).toBe(1003);
      expect(e.message).toBe('2 bytes left unread [offset 1003, in Ev.extra]');
    });
  });

  it('rest returns what is left of the window and moves to its end', () => {
    const r = win();
    r.u8();
    expect(r.rest()).toEqual(hex('03 04'));
    expect(r.remaining).toBe(0);
    expect(r.rest()).toEqual(new Uint8Array(0));
  });
});
