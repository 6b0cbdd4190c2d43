/**
 * runtime/core/double-text.ts against what JsonBytes did before it (String(x), then its char codes copied):
 *   npx tsx bench/double-text.ts [--runs=N]        ns per value, each way, on ~700 000 doubles of two kinds
 *   npx tsx bench/double-text.ts --check=20000000  that many random doubles (half random bit patterns, half
 *                                                   decimal-looking) compared with String(x); prints the mismatches
 * The kinds: "dump-like" (i*1000/7/10 plus a random fraction, as 740.2857142857143: the 16-17 digit values
 * of a DOUBLE column) and random bit patterns (every exponent, mostly 17 digits and the exponent form).
 */
import { writeDouble } from '../runtime/core/double-text.js';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);

/** A small deterministic generator (xorshift32), so that runs compare like with like. */
function random32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);

function randomBits(next: () => number): number {
  for (;;) {
    WORDS[0] = next();
    WORDS[1] = next();
    if (Number.isFinite(BITS[0]!)) return BITS[0]!;
  }
}

function decimalLooking(next: () => number): number {
  const digits = 1 + (next() % 17);
  let text = String(1 + (next() % 9));
  for (let i = 1; i < digits; i++) text += String(next() % 10);
  const x = Number(`${next() & 1 ? '-' : ''}${text}e${(next() % 660) - 340}`);
  return Number.isFinite(x) ? x : 0.5;
}

function stringCopy(buf: Uint8Array, p: number, x: number): number {
  const s = String(x);
  for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
  return p;
}

function nsPerValue(
  write: (buf: Uint8Array, p: number, x: number) => number,
  values: Float64Array,
  buf: Uint8Array,
): number {
  const t0 = process.hrtime.bigint();
  let p = 0;
  for (let i = 0; i < values.length; i++) {
    if (p > buf.length - 32) p = 0;
    p = write(buf, p, values[i]!);
  }
  return Number(process.hrtime.bigint() - t0) / values.length;
}

function bench(runs: number): void {
  const next = random32(7);
  const n = 700_000;
  const kinds = {
    'dump-like': Float64Array.from({ length: n }, (_, i) => (i * 1000) / 7 / 10 + (next() % 1000) / 1000),
    'random bits': Float64Array.from({ length: n }, () => randomBits(next)),
  };
  const buf = new Uint8Array(1 << 16);
  for (const [kind, values] of Object.entries(kinds)) {
    nsPerValue(writeDouble, values, buf);
    nsPerValue(stringCopy, values, buf);
    const ours: string[] = [];
    const before: string[] = [];
    for (let r = 0; r < runs; r++) {
      ours.push(nsPerValue(writeDouble, values, buf).toFixed(1));
      before.push(nsPerValue(stringCopy, values, buf).toFixed(1));
    }
    console.log(`${kind.padEnd(12)} writeDouble ${ours.join(' ')} ns   String+copy ${before.join(' ')} ns`);
  }
}

function check(count: number): void {
  const next = random32(20261205);
  const buf = Buffer.alloc(64);
  let bad = 0;
  for (let i = 0; i < count; i++) {
    const x = i & 1 ? decimalLooking(next) : randomBits(next);
    const text = buf.toString('latin1', 0, writeDouble(buf, 0, x));
    if (text !== String(x) && bad++ < 20) console.log(`mismatch: ${String(x)} written as ${text}`);
  }
  console.log(`${count} doubles checked against String(x): ${bad} mismatches`);
}

const checks = arg('check', 0);
if (checks > 0) check(checks);
else bench(arg('runs', 5));
