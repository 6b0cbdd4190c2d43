/** MySQL's serialization varints (libs/mysql/serialization/readme.md), both ways, and id-keyed fields. */
import { describe, expect, it } from 'vitest';
import { EncodeError, InvalidValueError, TruncatedError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { Writer } from '../../runtime/core/writer.js';
import { caught, hex, spaced } from './helpers.js';

const written = (write: (w: Writer) => void) => {
  const w = new Writer();
  write(w);
  return spaced(w.view());
};

describe('serialization varints', () => {
  // The readme's examples, its big-endian bit pictures turned into stored (little-endian) bytes.
  it('65535 unsigned: 3 bytes, two trailing ones then a 0', () => {
    expect(written((w) => w.varint(65535, 'x'))).toBe('fb ff 07');
    expect(new Reader(hex('fb ff 07')).varint('x')).toBe(65535);
  });

  it('signed: 65535, -65535 and -65536 with the sign in the lowest value bit', () => {
    for (const [v, bytes] of [
      [65535n, 'f3 ff 0f'],
      [-65535n, 'eb ff 0f'],
      [-65536n, 'fb ff 0f'],
    ] as const) {
      expect(written((w) => w.zigzag(v, 'x'))).toBe(bytes);
      expect(new Reader(hex(bytes)).zigzag('x')).toBe(v);
    }
  });

  it('each width from 1 to 9 bytes: 7 value bits a byte, then a whole 8-byte value after 0xff', () => {
    const cases: [bigint, number][] = [
      [0n, 1],
      [127n, 1],
      [128n, 2],
      [(1n << 56n) - 1n, 8],
      [1n << 56n, 9],
      [(1n << 64n) - 1n, 9],
    ];
    for (const [v, width] of cases) {
      const w = new Writer();
      w.varint(v, 'x');
      expect(w.pos).toBe(width);
      expect(new Reader(w.view()).varintBig('x')).toBe(v);
    }
    expect(written((w) => w.varint((1n << 64n) - 1n, 'x'))).toBe('ff ff ff ff ff ff ff ff ff');
  });

  it('a longer form than needed is refused (it would not encode back), as is a cut one', () => {
    // 1 in two bytes: (1 << 2) | 0b01.
    caught(InvalidValueError, () => new Reader(hex('05 00')).varint('x'));
    caught(TruncatedError, () => new Reader(hex('fb ff')).varint('x'));
  });

  it('the extremes of a signed 64-bit value, and nothing beyond', () => {
    for (const v of [-(1n << 63n), (1n << 63n) - 1n]) {
      const w = new Writer();
      w.zigzag(v, 'x');
      expect(new Reader(w.view()).zigzag('x')).toBe(v);
    }
    caught(EncodeError, () => new Writer().zigzag(1n << 63n, 'x'));
  });

  it('bytes one varint each: a byte over 0x7f takes two', () => {
    expect(written((w) => w.varintBytes(Uint8Array.of(0x55, 0x89), 2, 'x'))).toBe('aa 25 02');
    expect(new Reader(hex('aa 25 02')).varintBytes(2, 'x')).toEqual(Uint8Array.of(0x55, 0x89));
    caught(InvalidValueError, () => new Reader(hex('fd ff 07')).varintBytes(1, 'x'));
  });
});

describe('id-keyed fields', () => {
  it('a field is read when its id comes next, and the cursor stays put when another does', () => {
    const r = new Reader(hex('04 0c'));
    expect(r.key(1, true, 'x')).toBe(false);
    expect(r.pos).toBe(0);
    expect(r.key(2, true, 'x')).toBe(true);
    expect(r.zigzag('x')).toBe(3n);
    expect(r.key(3, true, 'x')).toBe(false);
  });

  it('packed ids too', () => {
    const r = new Reader(hex('fc 2c 01 00'));
    expect(r.key(300, false, 'x')).toBe(true);
    expect(r.key(0, false, 'x')).toBe(true);
  });
});
