/**
 * The values of BIT, ENUM and SET cells (schemas/cells.yaml): member names to indexes and bits and back.
 * The bytes they take are the schema's.
 */
import { EncodeError } from '../core/errors.js';
import { jsonValue, type JsonBytes } from '../core/dump-json-bytes.js';
import { sameBytes, type Text } from '../core/reader.js';
import type { CellValue } from '../core/values.js';
import { expect, isBig, isTextValue } from './cell-codec.js';

/** An unsigned integer below 2^bits, as a bigint. */
export function bitsOf(v: CellValue, bits: number, path: string): bigint {
  const b = BigInt(expect(v, isBig, 'an integer', path));
  if (b < 0n || b >= 1n << BigInt(bits)) throw new EncodeError(`${b} does not fit BIT(${bits})`, path);
  return b;
}

/** The name of the 1-based member `index`, or the index where no member has it (0, the empty value). */
export function memberName(index: number, members: Text[]): CellValue {
  const name = index > 0 ? members[index - 1] : undefined;
  return name === undefined ? index : name;
}

/** Each column's member names as JSON, by its members array (made once per TABLE_MAP). */
const MEMBER_JSON = new WeakMap<Text[], Uint8Array[]>();

/**
 * The members last looked up and their names: a table seldom has more than one ENUM or SET column, so a dump
 * meets the same members again and again, and they are then not looked up in the WeakMap for each value.
 */
const last: { members: Text[] | undefined; names: Uint8Array[] } = { members: undefined, names: [] };

function memberNames(members: Text[]): Uint8Array[] {
  let names = MEMBER_JSON.get(members);
  if (!names) MEMBER_JSON.set(members, (names = members.map(jsonValue)));
  last.members = members;
  last.names = names;
  return names;
}

/** memberName's value as JSON, written into `w`: a member's name from its bytes made once per column. */
export function memberJson(w: JsonBytes, index: number, members: Text[]): void {
  const names = members === last.members ? last.names : memberNames(members);
  const name = index > 0 ? names[index - 1] : undefined;
  if (name === undefined) w.integer(index);
  else w.raw(name);
}

/** Each member name's 1-based index, the first where names repeat (as findIndex gives it). */
export function memberIndexes(members: Text[]): ReadonlyMap<string, number> {
  const named = new Map<string, number>();
  members.forEach((m, i) => typeof m === 'string' && !named.has(m) && named.set(m, i + 1));
  return named;
}

/** A member's index, or its name (text as bytes compared byte by byte) as its index. */
export function memberIndex(v: CellValue, indexes: ReadonlyMap<string, number>, members: Text[], path: string): number {
  if (typeof v === 'number') return v;
  const text = expect(v, isTextValue, 'a member name or index', path);
  const index = (typeof text === 'string' ? indexes.get(text) : members.findIndex((m) => sameText(m, text)) + 1) ?? 0;
  if (index === 0) throw new EncodeError(`'${String(text)}' is not a member`, path);
  return index;
}

function sameText(a: Text, b: Text): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return sameBytes(a, b);
}

/**
 * The members whose bits are set; where a bit has no member (or the names are unknown), the mask
 * itself: a number up to 6 bytes, a bigint beyond.
 */
export function memberList(mask: bigint, members: Text[], bytes: number): CellValue {
  if (!members.length || mask >> BigInt(members.length)) return bytes > 6 ? mask : Number(mask);
  return members.filter((_, i) => (mask >> BigInt(i)) & 1n);
}

/** Member names, or a bitmask, as the bitmask. */
export function memberMask(v: CellValue, members: Text[], path: string): bigint {
  if (!Array.isArray(v)) return BigInt(expect(v, isBig, 'member names or a bitmask', path));
  let mask = 0n;
  for (const name of v as Text[]) {
    const i = members.findIndex((m) => sameText(m, name));
    if (i < 0) throw new EncodeError(`'${String(name)}' is not a member`, path);
    mask |= 1n << BigInt(i);
  }
  return mask;
}
