/**
 * Integer and floating-point cells: TINYINT to BIGINT (signed or not, by the SIGNEDNESS metadata), FLOAT
 * and DOUBLE.
 */
import { EncodeError } from '../core/errors.js';
import { bytesOf, type CellCodec, expect, isBig, isNumber } from './cell-codec.js';

const INT_RANGE: Record<number, [number, number, number]> = {
  1: [-0x80, 0x7f, 0xff],
  2: [-0x8000, 0x7fff, 0xffff],
  3: [-0x80_0000, 0x7f_ffff, 0xff_ffff],
  4: [-0x8000_0000, 0x7fff_ffff, 0xffff_ffff],
};
/** BIGINT's ranges, made once rather than by bigint powers per value. */
const BIGINT_UNSIGNED = [0n, 2n ** 64n - 1n] as const;
const BIGINT_SIGNED = [-(2n ** 63n), 2n ** 63n - 1n] as const;

export const int: CellCodec = {
  reader(c, path) {
    const n = bytesOf(c);
    const unsigned = c.unsigned === true;
    const [half, whole] = [2 ** (8 * n - 1), 2 ** (8 * n)];
    return (r) => {
      r.need(n, path);
      if (n === 8) return unsigned ? r.u64() : r.i64();
      const v = n === 1 ? r.u8() : n === 2 ? r.u16() : n === 3 ? r.u24() : r.u32();
      return unsigned || v < half ? v : v - whole;
    };
  },
  writer(c, path) {
    const n = bytesOf(c);
    if (n === 8) {
      const [lo, hi] = c.unsigned ? BIGINT_UNSIGNED : BIGINT_SIGNED;
      return (w, v) => {
        const b = typeof v === 'bigint' ? v : BigInt(expect(v, isBig, 'an integer', path));
        if (b < lo || b > hi) throw new EncodeError(`${b} is out of range`, path);
        w.u64(b);
      };
    }
    const [lo, hi, max] = INT_RANGE[n] ?? [0, 0, 0];
    const [min, top] = c.unsigned ? [0, max] : [lo, hi];
    return (w, v) => {
      const x = expect(v, isNumber, 'a number', path);
      if (!Number.isInteger(x) || x < min || x > top) throw new EncodeError(`${x} is out of range`, path);
      const u = x < 0 ? x + 2 ** (8 * n) : x;
      if (n === 1) w.u8(u);
      else if (n === 2) w.u16(u);
      else if (n === 3) w.u24(u);
      else w.u32(u);
    };
  },
};

/** The shortest decimal that reads back as the same float32 (what FLOAT prints as). */
export function shortestFloat32(f: number): number {
  for (let p = 1; p < 10; p++) {
    const x = Number(f.toPrecision(p));
    if (Math.fround(x) === f) return x;
  }
  return f;
}

export const float: CellCodec = {
  reader(c, path) {
    const n = bytesOf(c);
    return (r) => {
      r.need(n, path);
      return n === 4 ? shortestFloat32(r.f32()) : r.f64();
    };
  },
  writer(c, path) {
    const single = bytesOf(c) === 4;
    return (w, v) => {
      const x = typeof v === 'string' && v === '-0' ? -0 : expect(v, isNumber, 'a number', path);
      if (single) w.f32(x);
      else w.f64(x);
    };
  },
};
