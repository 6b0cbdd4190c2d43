/**
 * Column values in row images: the codec of each `codec` name of the CellLayouts table
 * (schemas/columns.yaml). The fixed layouts are schemas/cells.yaml's, generated; they are given here
 * the helpers they take (the schema's externs). DECIMAL is a runtime codec, in decimal.ts.
 */
import { cellCodecs, type CellHelpers } from '../../generated/cells.js';
import { EncodeError } from '../core/errors.js';
import type { Column } from './column.js';
import { bitsOf, memberIndex, memberIndexes, memberJson, memberList, memberMask, memberName } from './bits-and-sets.js';
import { bad, type CellCodec } from './cell-codec.js';
import { decimalBytes, decimalSize, decodeDecimal, newdecimal } from './decimal.js';
import { jsonDocument, jsonStored } from './json-cells.js';
import { bothReadings, float32Bytes, float32s, integerOf, numberOf, shortestFloat32 } from './numbers.js';
import { byteLength, columnText, zeroPadded, zerosTrimmed } from './strings.js';
import {
  dateFields,
  dateJson,
  dateText,
  datetimeFields,
  datetimeJson,
  datetimeText,
  fraction,
  timeFields,
  timeJson,
  timeText,
  utcJson,
  utcSeconds,
  utcText,
} from './temporal.js';

const HELPERS: CellHelpers = {
  dateText,
  timeText,
  datetimeText,
  utcText,
  dateJson,
  timeJson,
  datetimeJson,
  utcJson,
  utcSeconds,
  dateFields,
  timeFields,
  datetimeFields,
  fractionText: fraction,
  float32Text: shortestFloat32,
  numberOf,
  integerOf,
  bothReadings,
  bitsOf,
  memberName,
  memberJson,
  memberIndexes,
  memberIndex,
  memberList,
  memberMask,
  // The cells give these the column they are made for, which the runtime made (a Column).
  columnText: (c, width, path) => columnText(c as Column, width, path),
  zeroPadded,
  zerosTrimmed,
  byteLength,
  float32s,
  float32Bytes,
  jsonDocument,
  jsonStored,
  decimalSize,
  decimalText: decodeDecimal,
  decimalBytes,
};

const nothing: CellCodec = {
  reader: () => () => null,
  skipper: () => () => undefined,
  writer: () => () => undefined,
};

const unsupported: CellCodec = {
  reader(c, path) {
    return (r) => {
      throw bad(r, `column type ${c.type} has no known row-image layout`, path);
    };
  },
  // Nothing is known of the value's length: what the reader says, as it says it.
  skipper(c, path) {
    return this.reader(c, path);
  },
  writer(c, path) {
    return (_w, _v) => {
      throw new EncodeError(`column type ${c.type} has no known row-image layout`, path);
    };
  },
};

export const CELL_CODECS: Record<string, CellCodec> = {
  ...cellCodecs(HELPERS),
  newdecimal,
  null: nothing,
  unsupported,
};

export function cellCodec(c: Column): CellCodec {
  return CELL_CODECS[(c.layout as { codec: string }).codec] ?? unsupported;
}
