/**
 * runtime/core/double-text.ts writes a double as String(x) does, byte for byte: on the edges of the
 * format and of the shortest-digits search, every power of two and ten with its neighbours, and random
 * doubles from a fixed seed (bench/double-text.ts --check=N runs many more).
 */
import { describe, expect, it } from 'vitest';
import { DOUBLE_TEXT_MAX, writeDouble } from '../runtime/core/double-text.js';
import { JsonBytes } from '../runtime/core/dump-json-bytes.js';

const buf = Buffer.alloc(64);
const written = (x: number) => buf.toString('latin1', 0, writeDouble(buf, 0, x));

const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);
BITS[0] = 1;
/** The low word's index: 0 on a little-endian platform, where 1's bits 0x3ff00000 are the second word. */
const LOW = WORDS[1] === 0x3ff00000 ? 0 : 1;

/** The double next to x (x > 0) upwards or downwards, by its bits. */
function step(x: number, by: 1 | -1): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(by));
  return view.getFloat64(0);
}

/** x and its neighbours, positive and negative. */
const around = (x: number) => [x, step(x, 1), ...(x > Number.MIN_VALUE ? [step(x, -1)] : [])].flatMap((y) => [y, -y]);

/** The doubles whose text differs from String's, with both texts. */
function mismatches(values: Iterable<number>): string[] {
  const out: string[] = [];
  for (const x of values) {
    const text = written(x);
    if (text !== String(x)) out.push(`${String(x)} written as ${text}`);
  }
  return out;
}

/** xorshift32 from a fixed seed: the same doubles each run. */
function random32(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

describe('writeDouble', () => {
  it('writes the edge cases as String does', () => {
    const cases = [
      0,
      -0,
      0.1,
      0.2,
      0.3,
      0.1 + 0.2,
      1 / 3,
      2 / 3,
      0.5,
      1.5,
      123.456,
      740.2857142857143,
      Math.PI,
      Math.E,
      5e-324,
      1e-323,
      2.2250738585072014e-308,
      2.225073858507201e-308,
      1.7976931348623157e308,
      1.7976931348623155e308,
      1e-7,
      1.5e-7,
      9.999999999999999e-8,
      1e-6,
      1.234e-6,
      1e21,
      1.5e21,
      999999999999999900000,
      1e20,
      123456789012345680000,
      9007199254740993,
      9007199254740992,
      9007199254740994,
      2 ** 53 + 2,
      2 ** 60,
      2 ** 64,
      2 ** 70,
      1e16,
      1e17,
      1e23,
      5e-310,
      0.30000000000000004,
      1.0000000000000002,
      0.9999999999999999,
      4.35,
      2.675,
      1.005,
      123456.789e-300,
      1.2345678901234567e-300,
      2.5e-300,
      -2.5e300,
      4.9406564584124654e-324,
      1.7976931348623157e-308,
      8.98846567431158e307,
      100,
      1e15,
      1e-5,
      NaN,
      Infinity,
      -Infinity,
    ];
    expect(mismatches(cases.flatMap((x) => (Number.isFinite(x) && x !== 0 ? around(x) : [x])))).toEqual([]);
    expect(written(-0)).toBe('0');
  });

  it('writes every power of two and ten, and their neighbours, as String does', () => {
    const values: number[] = [];
    for (let e = -1074; e <= 1023; e++) values.push(...around(2 ** e));
    for (let e = -323; e <= 308; e++)
      values.push(
        ...around(Number(`1e${e}`)),
        ...around(Number(`5e${e}`)),
        ...around(Number(`9.999999999999999e${e}`)),
      );
    expect(mismatches(values)).toEqual([]);
  });

  it('writes the subnormals of few digits and 17-digit values as String does', () => {
    const values: number[] = [];
    for (let c = 1; c < 5000; c++) values.push(c * 5e-324);
    for (let i = 1; i < 2000; i++)
      values.push(Number(`1.${String(i).padStart(16, '0')}e${(i % 600) - 300}`), i * 1.0000000000000002);
    expect(mismatches(values)).toEqual([]);
  });

  it('writes 300 000 random bit patterns as String does', () => {
    const next = random32(0x5eed);
    const values = function* () {
      for (let i = 0; i < 300_000; i++) {
        WORDS[LOW] = next();
        WORDS[1 - LOW] = next();
        if (Number.isFinite(BITS[0]!)) yield BITS[0]!;
      }
    };
    expect(mismatches(values())).toEqual([]);
  });

  it('writes 300 000 random decimal-looking doubles as String does', () => {
    const next = random32(0xdec1);
    const values = function* () {
      for (let i = 0; i < 300_000; i++) {
        let digits = String(1 + (next() % 9));
        for (let n = next() % 17; n > 0; n--) digits += String(next() % 10);
        // Mostly the exponents of a column's values, some anywhere.
        const exponent = i % 4 === 0 ? (next() % 640) - 330 : (next() % 30) - 15;
        yield Number(`${next() & 1 ? '-' : ''}${digits}e${exponent}`);
      }
    };
    expect(mismatches(values())).toEqual([]);
  });

  it("writes FLOAT cells' values (float32 widened) and integers past 2^53 as String does", () => {
    const next = random32(0xf10a7);
    const single = new Float32Array(1);
    const singleBits = new Uint32Array(single.buffer);
    const values = function* () {
      for (let i = 0; i < 100_000; i++) {
        singleBits[0] = next();
        yield single[0]!;
        // Integers the dump writes through writeDouble: not safe, some of them exact multiples of a power of ten.
        const big = (next() % 2 ** 21) * 2 ** (32 + (next() % 30)) + next();
        yield big;
        yield Math.round(big / 1e6) * 1e6;
      }
    };
    expect(mismatches(values())).toEqual([]);
  });

  it('is what JsonBytes.number writes, its buffer growing to make room', () => {
    const values = [
      -1.2345678901234567e-6,
      0.1,
      -1.2345678901234567e-308,
      740.2857142857143,
      1e21,
      2 ** 60,
      5e-324,
      123,
    ];
    for (let capacity = 1; capacity < 40; capacity++) {
      const w = new JsonBytes(capacity);
      values.forEach((x, i) => {
        if (i) w.byte(0x2c);
        w.number(x);
      });
      expect(w.take().toString('latin1')).toBe(values.map(String).join(','));
    }
  });

  it('writes no more than DOUBLE_TEXT_MAX bytes', () => {
    expect(writeDouble(buf, 0, -1.2345678901234567e-6)).toBe(DOUBLE_TEXT_MAX);
    expect(writeDouble(buf, 0, -1.2345678901234567e-308)).toBe(DOUBLE_TEXT_MAX - 1);
  });
});
