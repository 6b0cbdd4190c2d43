/**
 * The values of the number cells (schemas/cells.yaml: the integer types, FLOAT and DOUBLE, YEAR): what an
 * encoder accepts for each, and how a float32 prints. Widths, signedness and ranges are the schema's.
 */
import type { CellValue } from '../core/values.js';
import { expect, isBig, isNumber } from './cell-codec.js';

/** The shortest decimal that reads back as the same float32 (what FLOAT prints as). */
export function shortestFloat32(f: number): number {
  for (let p = 1; p < 10; p++) {
    const x = Number(f.toPrecision(p));
    if (Math.fround(x) === f) return x;
  }
  return f;
}

/** A number; '-0' is negative zero, as the dump writes it (JSON has no -0). */
export function numberOf(v: CellValue, path: string): number {
  return typeof v === 'string' && v === '-0' ? -0 : expect(v, isNumber, 'a number', path);
}

/** An integer: a number, or for `big` (8 bytes) a bigint, a safe number or a decimal string as a bigint. */
export function integerOf(v: CellValue, big: boolean, path: string): number | bigint {
  if (!big) return expect(v, isNumber, 'a number', path);
  return typeof v === 'bigint' ? v : BigInt(expect(v, isBig, 'an integer', path));
}
