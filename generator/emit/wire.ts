/** The runtime Reader's and Writer's methods for each integer type and each kind of length. */
import type { IntType, LengthType, PackedType } from '../ir/types.js';
import { q } from './print.js';

/** The Reader and Writer method for a fixed-width integer: u8, i16, u32be… */
export function intMethod(t: IntType): string {
  return `${t.signed ? 'i' : 'u'}${t.width * 8}${t.be && t.width > 1 ? 'be' : ''}`;
}

/** The Reader method for a packed integer or serialization varint (Writer's are named alike). */
export function packedMethod(t: PackedType, write = false): string {
  if (!t.serial) return t.big && !write ? 'packedBig' : 'packed';
  if (t.signed) return 'zigzag';
  return t.big && !write ? 'varintBig' : 'varint';
}

/** An expression that reads a length of type `t` from `reader`, its bytes checked. */
export function lengthRead(t: LengthType, reader: string, path: string): string {
  if (t.kind === 'packed') return `${reader}.${packedMethod(t)}(${q(path)})`;
  return `(${reader}.need(${t.width}, ${q(path)}), ${reader}.${intMethod(t)}())`;
}

/** The width argument of `Writer.prefixed`: 0 for a packed integer, -1 for a serialization varint. */
export function lengthWidth(t: LengthType): number {
  return t.kind === 'packed' ? (t.serial ? -1 : 0) : t.width;
}

/**
 * The arguments a bitmap read or write takes after its path: the bit order when it or the spare bits are asked
 * for (the spare bits come after it), then `spare` when the spare bits are kept.
 */
export function bitmapOptions(t: { msb: boolean; keepSpare: boolean }, spare: string): string {
  return `${t.msb || t.keepSpare ? `, ${t.msb}` : ''}${t.keepSpare ? `, ${spare}` : ''}`;
}
