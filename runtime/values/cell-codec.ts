/**
 * What every cell codec is (a reader and a writer made once per column of a row layout), and the small
 * helpers they share: metadata lookups, value checks, errors placed at the reader's offset.
 */
import { EncodeError, InvalidValueError } from '../core/errors.js';
import { shown } from '../core/dump-json.js';
import type { Reader, Text } from '../core/reader.js';
import type { CellCodec as CoreCellCodec, CellValue } from '../core/values.js';
import type { Column } from './column.js';

/** A cell codec of the runtime's (the variable-length types), given the whole column. */
export type CellCodec = CoreCellCodec<Column>;
export type { CellJsonWriter, CellReader, CellSkipper, CellWriter } from '../core/values.js';

/** A number from the column's TABLE_MAP metadata. */
export const num = (c: Column, key: string) => c.meta[key] as number;
export const bad = (r: Reader, problem: string, path: string) =>
  new InvalidValueError(problem, { offset: r.offset, schemaPath: path });

export function expect<T extends CellValue>(v: CellValue, ok: (v: CellValue) => v is T, what: string, path: string): T {
  if (!ok(v)) throw new EncodeError(`expected ${what}, found ${shown(v)}`, path);
  return v;
}
export const isNumber = (v: CellValue): v is number => typeof v === 'number';
export const isString = (v: CellValue): v is string => typeof v === 'string';
/** An integer as a bigint, a safe number, or (as the dump writes one past 2^53) a decimal string. */
export const isBig = (v: CellValue): v is bigint | number =>
  typeof v === 'bigint' ||
  (typeof v === 'number' && Number.isInteger(v)) ||
  (typeof v === 'string' && /^-?\d+$/.test(v));
export const isTextValue = (v: CellValue): v is Text => typeof v === 'string' || v instanceof Uint8Array;
