/**
 * Column values in row images: the codec of each `codec` name of the CellLayouts table
 * (schemas/columns.yaml), in both directions; each family of types has its own module beside this one.
 */
import { EncodeError } from '../core/errors.js';
import type { Column } from './column.js';
import { bit, enumCodec, set } from './bits-and-sets.js';
import { bad, type CellCodec } from './cell-codec.js';
import { newdecimal } from './decimal.js';
import { json } from './json-cells.js';
import { float, int } from './numbers.js';
import { blob, string, varchar, vector } from './strings.js';
import { date, datetime, datetime2, time, time2, timestamp, timestamp2, year } from './temporal.js';

const nothing: CellCodec = {
  reader: () => () => null,
  writer: () => () => undefined,
};

const unsupported: CellCodec = {
  reader(c, path) {
    return (r) => {
      throw bad(r, `column type ${c.type} has no known row-image layout`, path);
    };
  },
  writer(c, path) {
    return (_w, _v) => {
      throw new EncodeError(`column type ${c.type} has no known row-image layout`, path);
    };
  },
};

export const CELL_CODECS: Record<string, CellCodec> = {
  int,
  float,
  newdecimal,
  date,
  year,
  time,
  datetime,
  timestamp,
  timestamp2,
  datetime2,
  time2,
  bit,
  enum: enumCodec,
  set,
  varchar,
  string,
  blob,
  vector,
  json,
  null: nothing,
  unsupported,
};

export function cellCodec(c: Column): CellCodec {
  return CELL_CODECS[(c.layout as { codec: string }).codec] ?? unsupported;
}
