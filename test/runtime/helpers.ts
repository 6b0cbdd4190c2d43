// Helpers shared by the runtime unit tests (not a test file itself).
import { expect } from 'vitest';
import { BinlogError } from '../../runtime/core/errors.js';

/** Bytes from hex written by hand, spaces allowed: hex('56 34 12'). */
export function hex(s: string): Uint8Array {
  const digits = s.replace(/\s+/g, '');
  if (digits.length % 2 !== 0 || /[^0-9a-f]/i.test(digits)) throw new Error(`bad hex in test: ${s}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Hex of bytes, lowercase, space-separated, so expectations read like the hand-written layouts. */
export function spaced(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
}

/** `n` copies of one hex byte, space-separated: rep('ff', 3) is 'ff ff ff'. */
export function rep(byte: string, n: number): string {
  return Array.from({ length: n }, () => byte).join(' ');
}

/** Runs `fn`, which must throw a BinlogError of class `cls`, and returns it for closer inspection. */
export function caught<E extends BinlogError>(cls: abstract new (...args: never[]) => E, fn: () => unknown): E {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'expected a throw').toBeInstanceOf(cls);
  return thrown as E;
}
