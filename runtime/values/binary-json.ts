/**
 * MySQL's binary JSON (the storage form of JSON columns), both ways: the codec generated from
 * schemas/json-binary.yaml, given the custom data it shows as values (its OPAQUE `as`).
 *
 * A document decodes to a tree that keeps every scalar's exact binary type, so that encoding gives back
 * the same bytes: plain JSON for null, booleans, strings, arrays and objects; a plain integer for a
 * signed integer that is safe; {"$uint": n} for an unsigned one; {"$int": "…"} / {"$uint": "…"} for
 * 64-bit values beyond 2^53; a plain non-integral number for a double, {"$double": n} for an integral
 * one; {"$decimal": "1.50", "precision": p, "scale": s}; {"$date" | "$time" | "$datetime" |
 * "$timestamp": "…"}; {"$opaque": type, "hex": "…"} for any other custom data. Integer widths and the
 * small or large container form are the server's canonical choices (the smallest that fits); a
 * document stored otherwise is kept with its bytes (see runtime/values/json-cells.ts).
 */
import { jsonDecimalCell, packedDateCell, packedDatetimeCell, packedTimeCell } from '../../generated/cells.js';
import { binaryJson, compareJsonKeys, isJsonObject, JsonbCustomData } from '../../generated/json-binary.js';
import { BinlogError } from '../core/errors.js';
import { Reader } from '../core/reader.js';
import { isWithCell } from '../core/schema-helpers.js';
import type { CellReader, CellValue, JsonTree } from '../core/values.js';
import type { CellCodec } from './cell-codec.js';
import { Writer } from '../core/writer.js';
import type { Column } from './column.js';
import { decimalBytes, decimalSize, decodeDecimal } from './decimal.js';
import {
  dateFields,
  dateJson,
  dateText,
  datetimeFields,
  datetimeJson,
  datetimeText,
  timeFields,
  timeJson,
  timeText,
} from './temporal.js';

export { isJsonObject, compareJsonKeys as compareKeys };

const codec = binaryJson({ customValue, customData });

export function decodeJsonb(b: Uint8Array, offset: number, path: string): JsonTree {
  // What the server stores for NULL in a NOT NULL column, non-strict (Field_json: an empty value).
  return b.length === 0 ? null : codec.decode(b, offset, path);
}

/** The server's canonical binary form of a decoded tree. */
export const encodeJsonb = codec.encode;

/**
 * OPAQUE `as`: the value of the custom data of `type` written under `tag`, or null where the data is not of its form.
 */
function customValue(tag: string, type: number, data: Uint8Array): JsonTree {
  const cell = customCell(type);
  if (!cell) return null;
  const r = new Reader(data);
  try {
    const value = cell.read(r);
    return r.pos === data.length ? shown(tag, value) : null;
  } catch (e) {
    if (e instanceof BinlogError) return null;
    throw e;
  }
}

/** OPAQUE `as`: the custom data of `type` of a value written under `tag`. */
function customData(tag: string, type: number, v: JsonTree, path: string): Uint8Array {
  const { codec, column } = customCell(type)!;
  const w = new Writer();
  codec.writer(column, path)(w, given(tag, v as { [key: string]: JsonTree }));
  return w.finish();
}

/** A cell's value as the document shows it: under its tag, the numbers it carries (a WithCell) beside it. */
function shown(tag: string, value: CellValue): JsonTree {
  return isWithCell(value) ? { [tag]: value.value as JsonTree, ...value.with } : { [tag]: value as JsonTree };
}

/** The cell's value of what the document shows under `tag`, the inverse of `shown`. */
function given(tag: string, o: { [key: string]: JsonTree }): CellValue {
  const { [tag]: value, ...beside } = o;
  return Object.keys(beside).length
    ? { value: value as CellValue, with: beside as Record<string, number> }
    : (value as CellValue);
}

/** The cells of JsonbCustomData's codecs, given the helpers they take. */
const CELLS: Record<string, CellCodec> = {
  jsonDecimal: jsonDecimalCell({ decimalSize, decimalText: decodeDecimal, decimalBytes }),
  packedDate: packedDateCell({ dateText, dateJson, dateFields }),
  packedTime: packedTimeCell({ timeText, timeJson, timeFields }),
  packedDatetime: packedDatetimeCell({ datetimeText, datetimeJson, datetimeFields }),
};

/** The JsonbCustomData cell of a custom type, and its column, made on first use. */
const CUSTOM = new Map<number, { column: Column; codec: CellCodec; read: CellReader }>();

function customCell(type: number): { column: Column; codec: CellCodec; read: CellReader } | undefined {
  let cell = CUSTOM.get(type);
  const layout = JsonbCustomData[type as keyof typeof JsonbCustomData];
  if (!cell && layout) {
    const column: Column = {
      index: 0,
      name: '',
      type,
      realType: type,
      // A custom type's cell layout is generated as a literal const; Column['layout'] is the wider type it fits.
      layout: layout as unknown as Column['layout'],
      nullable: false,
      meta: {},
    };
    const codec = CELLS[layout.codec]!;
    // What the data does not read as is kept as it is: the reader's error names no path.
    cell = { column, codec, read: codec.reader(column, '$') };
    CUSTOM.set(type, cell);
  }
  return cell;
}
