/**
 * A double's text as String(x) gives it (ECMAScript's Number::toString: the shortest digits that read
 * back as x, the closest of them to x, the even one on a tie), written as ASCII bytes with no string
 * made: String(x) of a non-integer costs a runtime call and a string, which the dump pays on every
 * DOUBLE and FLOAT cell.
 *
 * The digits are those of Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020), done
 * here in the arithmetic JS has: with x = c·2^q and k chosen so that 10^k is at most the width of x's
 * rounding interval, v = 4·x·10^-k and the interval's ends vl, vr in the same scale, each rounded to odd,
 * decide between s = floor(x·10^-k), s + 1 and the multiples of 10 around s (one digit shorter).
 * 10^-k is a 144-bit overestimate (six 24-bit limbs, made on first use of each k) and v's product with
 * it is exact in doubles (a limb product is below 2^48, a column's sum below 2^50). vl and vr lie within
 * 24 of v: they are v's fraction less or plus a multiple of the table entry, in doubles, and made exactly
 * only when that lands near a whole number (rare but for large integers, where it is exact).
 * String(x) is the reference: test/double-text.test.ts and `bench/double-text.ts --check=N` compare them.
 */

import { asciiAt, digitCount, digitsBefore, eightDigitsBefore, pairAt } from './ascii-digits.js';

/** The longest text writeDouble writes: `-0.0000012345678901234567` (`-1.2345678901234567e-308` is one shorter). */
export const DOUBLE_TEXT_MAX = 25;

const LIMB = 16777216; // 2^24
const INV_LIMB = 1 / LIMB;
const LOG10_2 = Math.log10(2);
const LOG10_3_4 = Math.log10(0.75);
const LOG2_10 = Math.log2(10);

/** The doubles' bits, read through a shared buffer (the high word's index follows the platform's byte order). */
const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);
BITS[0] = 1;
const HIGH = WORDS[1] === 0x3ff00000 ? 1 : 0;
const LOW = 1 - HIGH;

/**
 * g(e) = floor(10^e·2^m) + 1 in [2^143, 2^144) for e = -k (from -292 to 324, all a double's k), as six
 * 24-bit limbs, low first, with m: filled on first use (a dump meets a handful of k), so that importing
 * costs nothing but the arrays.
 */
const E_MIN = -292;
const E_COUNT = 324 - E_MIN + 1;
const G = new Float64Array(E_COUNT * 6);
const G_SHIFT = new Int16Array(E_COUNT);
const G_MADE = new Uint8Array(E_COUNT);
/** g/2^144 as a double, for the interval's ends in the common case. */
const G_VALUE = new Float64Array(E_COUNT);
/** How near a whole number a fraction computed within 2^-46 may be before it is made again exactly. */
const NEAR_WHOLE = 2 ** -40;

/** Fills g's entry for 10^e (BigInt: once per e, off the hot path). */
function makePower(e: number): void {
  const i = e - E_MIN;
  const ten = 10n ** BigInt(Math.abs(e));
  // 10^|e|'s bit length (e·log2(10) is never within 10^-4 of a whole number here, far beyond the double's error).
  const bits = Math.floor(Math.abs(e) * LOG2_10) + 1;
  let g: bigint;
  let m: number;
  if (e >= 0) {
    m = 144 - bits;
    g = (m >= 0 ? ten << BigInt(m) : ten >> BigInt(-m)) + 1n;
  } else {
    m = 143 + bits;
    g = (1n << BigInt(m)) / ten + 1n;
  }
  for (let j = 0; j < 6; j++) G[i * 6 + j] = Number((g >> BigInt(24 * j)) & 0xffffffn);
  G_VALUE[i] = Number(g) * 2 ** -144;
  G_SHIFT[i] = m;
  G_MADE[i] = 1;
}

/**
 * x's text at buf[p] (room for DOUBLE_TEXT_MAX bytes needed); returns the end. Any finite double, -0 as
 * "0" as String writes it; NaN and the infinities as String writes them.
 */
export function writeDouble(buf: Uint8Array, p: number, x: number): number {
  if (x !== x || x === Infinity || x === -Infinity) return asciiAt(buf, p, String(x));
  if (x < 0) {
    buf[p++] = 0x2d;
    x = -x;
  }
  if (x === 0) {
    buf[p] = 0x30;
    return p + 1;
  }
  BITS[0] = x;
  const high = WORDS[HIGH]!;
  const low = WORDS[LOW]!;
  const biased = high >>> 20;
  // x = c·2^q, c = chi·2^32 + low.
  let chi = high & 0xfffff;
  let q = -1074;
  if (biased !== 0) {
    chi |= 0x100000;
    q = biased - 1075;
  }
  // A power of two above the least normal has a lower neighbour half as far as its upper one.
  const irregular = chi === 0x100000 && low === 0 && biased > 1;
  const k = Math.floor(q * LOG10_2 + (irregular ? LOG10_3_4 : 0));
  const e = -k - E_MIN;
  if (G_MADE[e] === 0) makePower(-k);
  const h = 144 + q - G_SHIFT[e]!; // 1 … 4: v·2^144 = (4c·2^h)·g
  const sh = h + 2;

  // 4c·2^h in 24-bit limbs (below 2^59): c's words shifted with 32-bit operations, each limb masked.
  const a0 = (low << sh) & 0xffffff;
  const a1 = ((low >>> (24 - sh)) | (chi << (8 + sh))) & 0xffffff;
  const a2 = chi >>> (16 - sh);
  const gi = e * 6;
  const g0 = G[gi]!,
    g1 = G[gi + 1]!,
    g2 = G[gi + 2]!,
    g3 = G[gi + 3]!,
    g4 = G[gi + 4]!,
    g5 = G[gi + 5]!;
  // The product's columns (each below 2^50, exact); limbs 6 up are v's integer part, 0 … 5 its fraction.
  const c0 = a0 * g0;
  const c1 = a0 * g1 + a1 * g0;
  const c2 = a0 * g2 + a1 * g1 + a2 * g0;
  const c3 = a0 * g3 + a1 * g2 + a2 * g1;
  const c4 = a0 * g4 + a1 * g3 + a2 * g2;
  const c5 = a0 * g5 + a1 * g4 + a2 * g3;
  const c6 = a1 * g5 + a2 * g4;

  // v's limbs: 0 … 5 its fraction, from 6 up its integer part.
  let t = Math.floor(c0 * INV_LIMB);
  t = Math.floor((c1 + t) * INV_LIMB);
  t = Math.floor((c2 + t) * INV_LIMB);
  let f = c3 + t;
  t = Math.floor(f * INV_LIMB);
  const v3 = f - t * LIMB;
  f = c4 + t;
  t = Math.floor(f * INV_LIMB);
  const v4 = f - t * LIMB;
  f = c5 + t;
  t = Math.floor(f * INV_LIMB);
  const v5 = f - t * LIMB;
  f = c6 + t;
  t = Math.floor(f * INV_LIMB);
  const v6 = f - t * LIMB;
  f = a2 * g5 + t;
  t = Math.floor(f * INV_LIMB);
  const v7 = f - t * LIMB;

  // Rounded to odd (the low bit set where the fraction is not 0), less 4s: v, and the interval's ends vl
  // and vr, which lie within 24 of v (2·2^h·g away in the product, 2^h·g for vl below a power of two).
  // From 2^-72 up, the fraction says whether a value is a whole number: the paper shows a fraction that
  // is not 0 is at least about 2^-63, and the table's overestimate adds less than 2^-85.
  const low2 = v6 & 3;
  const vb = low2 | (v3 + v4 + v5 !== 0 ? 1 : 0);
  const up = 2 << h;
  const down = irregular ? 1 << h : up;
  // The ends from v's fraction and g in doubles (both within 2^-46): exact unless one is near a whole number.
  const fraction = (v5 + v4 * INV_LIMB) * INV_LIMB;
  const lower = fraction - down * G_VALUE[e]!;
  const upper = fraction + up * G_VALUE[e]!;
  const lowerWhole = Math.floor(lower);
  const upperWhole = Math.floor(upper);
  let vl: number;
  let vr: number;
  if (awayFromWhole(lower - lowerWhole) && awayFromWhole(upper - upperWhole)) {
    vl = (low2 + lowerWhole) | 1;
    vr = (low2 + upperWhole) | 1;
  } else {
    vl = exactEnd(a0, a1, a2, gi, -down, v6);
    vr = exactEnd(a0, a1, a2, gi, up, v6);
  }

  // s = floor(v / 4) as s1·10^8 + s0: s1 from s in a double (within 8), s0 from s's low 32 bits, then
  // both put right (s < 10·2^53, so s1 < 10^9).
  const s2 = (v6 >>> 2) | ((v7 & 1023) << 22);
  let s1 = Math.floor(((v7 + t * LIMB) * 4194304 + (v6 >>> 2)) * 1e-8) | 0;
  let s0 = (s2 - Math.imul(s1, 100000000)) | 0;
  if (s0 < 0) {
    s0 += 100000000;
    s1--;
  } else if (s0 >= 100000000) {
    s0 -= 100000000;
    s1++;
  }

  const out = low & 1; // an odd c's interval is open: its ends do not read back as x
  const units = s0 % 10;
  // The choice without branches (which of s and s + 1 is taken is as good as random): each test "a <= b"
  // of small integers as the sign bit of a - b - 1, 1 where it holds.
  // s or s + 1: where only one is inside, that one; where both are, the closer, on a tie the even one.
  const sIn = (vl + out - 1) >>> 31;
  const nextIn = (3 + out - vr) >>> 31;
  const closer = (2 - vb - (units & 1)) >>> 31;
  const next = sIn ^ nextIn ? nextIn : closer;
  // One digit fewer, where exactly one of the multiples of 10 around s is inside: that one.
  const belowIn = (vl + out + 4 * units - 1) >>> 31;
  const aboveIn = (39 - 4 * units + out - vr) >>> 31;
  const add = belowIn ^ aboveIn ? aboveIn * 10 - units : next;
  s0 += add;
  if (s0 >= 1e8) {
    s0 -= 1e8;
    s1++;
  }
  return placeDigits(buf, p, s1, s0, k);
}

/** Whether a fraction (0 <= f < 1) computed within 2^-46 is surely not a whole number's. */
function awayFromWhole(f: number): boolean {
  return f > NEAR_WHOLE && f < 1 - NEAR_WHOLE;
}

/**
 * An end of x's interval, (floor(w) - 4s) | (w not whole), w = v + m·g/2^144, from the product made again
 * limb by limb, exactly: for the few ends near a whole number, where the doubles cannot tell.
 */
function exactEnd(a0: number, a1: number, a2: number, gi: number, m: number, v6: number): number {
  const a = [a0, a1, a2];
  let carry = 0;
  let fraction = 0;
  let limb = 0;
  for (let i = 0; i <= 6; i++) {
    let column = carry + (i < 6 ? m * G[gi + i]! : 0);
    for (let j = Math.max(0, i - 5); j <= Math.min(2, i); j++) column += a[j]! * G[gi + i - j]!;
    carry = Math.floor(column * INV_LIMB);
    limb = column - carry * LIMB;
    if (i >= 3 && i <= 5) fraction += limb;
  }
  return (wrapped(limb - v6) + (v6 & 3)) | (fraction !== 0 ? 1 : 0);
}

/** A difference of two 24-bit limbs taken modulo 2^24, as the small signed number it is. */
function wrapped(d: number): number {
  return d > 8388608 ? d - LIMB : d < -8388608 ? d + LIMB : d;
}

/**
 * (s1·10^8 + s0)·10^k as Number::toString writes it: its digits without trailing zeros, in the fixed form
 * for 10^-7 <= x < 10^21, else with an exponent. The digits are written once, one place on, where most
 * of them stay; those before the point are moved one place back to make room for it.
 */
function placeDigits(buf: Uint8Array, p: number, s1: number, s0: number, k: number): number {
  const length = s1 > 0 ? 8 + digitCount(s1) : digitCount(s0);
  // The decimal point's place after the first digit (Number::toString's n).
  const point = length + k;
  if (point <= 0 && point > -6) {
    buf[p++] = 0x30;
    buf[p++] = 0x2e;
    for (let i = point; i < 0; i++) buf[p++] = 0x30;
    return withoutZeros(buf, writeDigits(buf, p, length, s1, s0));
  }
  const end = withoutZeros(buf, writeDigits(buf, p + 1, length, s1, s0));
  const count = end - p - 1;
  if (point > 0 && point <= 21) {
    if (count <= point) {
      moveDown(buf, p, count);
      for (let i = p + count; i < p + point; i++) buf[i] = 0x30;
      return p + point;
    }
    moveDown(buf, p, point);
    buf[p + point] = 0x2e;
    return end;
  }
  buf[p] = buf[p + 1]!;
  if (count > 1) {
    buf[p + 1] = 0x2e;
    p = end;
  } else p++;
  buf[p++] = 0x65;
  let exponent = point - 1;
  if (exponent < 0) {
    buf[p++] = 0x2d;
    exponent = -exponent;
  } else buf[p++] = 0x2b;
  if (exponent >= 100) {
    const hundreds = (exponent / 100) | 0;
    buf[p++] = 0x30 + hundreds;
    return pairAt(buf, p, exponent - hundreds * 100);
  }
  if (exponent >= 10) return pairAt(buf, p, exponent);
  buf[p] = 0x30 + exponent;
  return p + 1;
}

/** The `length` digits of s1·10^8 + s0 at buf[p] (s1 = 0, or s0 is its 8 last digits); returns the end. */
function writeDigits(buf: Uint8Array, p: number, length: number, s1: number, s0: number): number {
  const end = p + length;
  if (s1 === 0) {
    digitsBefore(buf, end, s0);
    return end;
  }
  eightDigitsBefore(buf, end, s0);
  digitsBefore(buf, end - 8, s1);
  return end;
}

/** The end of the digits ending at `end` without their trailing zeros (the first digit is not 0). */
function withoutZeros(buf: Uint8Array, end: number): number {
  while (buf[end - 1] === 0x30) end--;
  return end;
}

/** The n digits at buf[p + 1] moved to buf[p], for the decimal point after them. */
function moveDown(buf: Uint8Array, p: number, n: number): void {
  for (let i = p; i < p + n; i++) buf[i] = buf[i + 1]!;
}
