/**
 * Numbers written as ASCII digits straight into bytes, with no string made: what the dump's JSON writer
 * (dump-json-bytes.ts), a double's text (double-text.ts) and the temporal types' JSON share.
 */

/** The ASCII codes of the tens and the units of 0 … 99. */
export const TENS = Uint8Array.from({ length: 100 }, (_, i) => 0x30 + Math.floor(i / 10));
export const UNITS = Uint8Array.from({ length: 100 }, (_, i) => 0x30 + (i % 10));

/** The two digits of n (0 … 99) at b[p]; returns the end. */
export function pairAt(b: Uint8Array, p: number, n: number): number {
  b[p] = TENS[n]!;
  b[p + 1] = UNITS[n]!;
  return p + 2;
}

/** How many decimal digits a 32-bit unsigned integer has. */
export function digitCount(x: number): number {
  if (x < 1e5) return x < 10 ? 1 : x < 100 ? 2 : x < 1e3 ? 3 : x < 1e4 ? 4 : 5;
  return x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : x < 1e9 ? 9 : 10;
}

/** n's digits (0 <= n < 2^31) ending before buf[end], two per division; returns where they start. */
export function digitsBefore(buf: Uint8Array, end: number, n: number): number {
  while (n >= 100) {
    const q = (n / 100) | 0;
    pairAt(buf, (end -= 2), n - q * 100);
    n = q;
  }
  if (n >= 10) pairAt(buf, (end -= 2), n);
  else buf[--end] = 0x30 + n;
  return end;
}

/**
 * n's eight digits (0 <= n < 10^8), zeros first, ending before buf[end]: four divisions that do not wait on each other.
 */
export function eightDigitsBefore(buf: Uint8Array, end: number, n: number): void {
  const high = (n / 10000) | 0;
  const low = n - high * 10000;
  const highPair = (high / 100) | 0;
  const lowPair = (low / 100) | 0;
  pairAt(buf, end - 8, highPair);
  pairAt(buf, end - 6, high - highPair * 100);
  pairAt(buf, end - 4, lowPair);
  pairAt(buf, end - 2, low - lowPair * 100);
}

/** ASCII text's codes at buf[p]; returns the end. */
export function asciiAt(buf: Uint8Array, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
  return p;
}
