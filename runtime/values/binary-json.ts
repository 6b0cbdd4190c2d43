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
import { packedDateCell, packedDatetimeCell, packedTimeCell } from '../../generated/cells.js';
import { binaryJson, compareJsonKeys, isJsonObject, JsonbCustomData } from '../../generated/json-binary.js';
import { BinlogError } from '../core/errors.js';
import { Reader } from '../core/reader.js';
import type { CellReader, JsonTree } from '../core/values.js';
import type { CellCodec } from './cell-codec.js';
import { Writer } from '../core/writer.js';
import type { Column } from './column.js';
import { decimalSize, decodeDecimal, encodeDecimal } from './decimal.js';
import { dateFields, dateJson, dateText, datetimeFields, datetimeJson, datetimeText, timeFields, timeJson, timeText } from './temporal.js';

export { isJsonObject, compareJsonKeys as compareKeys };

const codec = binaryJson({ customValue, customData });

export function decodeJsonb(b: Uint8Array, offset: number, path: string): JsonTree {
  // What the server stores for NULL in a NOT NULL column, non-strict (Field_json: an empty value).
  return b.length === 0 ? null : codec.decode(b, offset, path);
}

/** The server's canonical binary form of a decoded tree. */
export const encodeJsonb = codec.encode;

/** OPAQUE `as`: the value of the custom data of `type` written under `tag`, or null where the data is not of its form. */
function customValue(tag: string, type: number, data: Uint8Array): JsonTree {
  if (tag === '$decimal') return decimalValue(data);
  const cell = temporalCell(type);
  if (!cell) return null;
  const r = new Reader(data);
  try {
    const text = cell.read(r);
    return r.pos === data.length ? { [tag]: text as string } : null;
  } catch (e) {
    if (e instanceof BinlogError) return null;
    throw e;
  }
}

/** OPAQUE `as`: the custom data of `type` of a value written under `tag`. */
function customData(tag: string, type: number, v: JsonTree, path: string): Uint8Array {
  const o = v as { [key: string]: JsonTree };
  if (tag === '$decimal') {
    const [precision, scale] = [o.precision as number, o.scale as number];
    return Uint8Array.from([precision, scale, ...encodeDecimal(o.$decimal as string, precision, scale, '$decimal')]);
  }
  const { codec, column } = temporalCell(type)!;
  const w = new Writer();
  codec.writer(column, path)(w, o[tag] as string);
  return w.finish();
}

/** Json_decimal's data: its precision, its scale and exactly decimal2bin's bytes for them. */
function decimalValue(data: Uint8Array): JsonTree {
  if (!(data.length >= 2 && data[1]! <= data[0]! && data.length === 2 + decimalSize(data[0]!, data[1]!))) return null;
  const [precision, scale] = [data[0]!, data[1]!];
  return { $decimal: decodeDecimal(data.subarray(2), precision, scale), precision, scale };
}

/** The cells of JsonbCustomData's codecs, given the temporal helpers they take. */
const CELLS: Record<string, CellCodec> = {
  packedDate: packedDateCell({ dateText, dateJson, dateFields }),
  packedTime: packedTimeCell({ timeText, timeJson, timeFields }),
  packedDatetime: packedDatetimeCell({ datetimeText, datetimeJson, datetimeFields }),
};

/** The JsonbCustomData cell of a temporal custom type, and its column, made on first use. */
const TEMPORALS = new Map<number, { column: Column; codec: CellCodec; read: CellReader }>();

function temporalCell(type: number): { column: Column; codec: CellCodec; read: CellReader } | undefined {
  let cell = TEMPORALS.get(type);
  const layout = JsonbCustomData[type as keyof typeof JsonbCustomData];
  if (!cell && layout) {
    const column: Column = { index: 0, name: '', type, realType: type, layout: layout as unknown as Column['layout'], nullable: false, meta: {} };
    const codec = CELLS[layout.codec]!;
    // What the data does not read as is kept as it is: the reader's error names no path.
    cell = { column, codec, read: codec.reader(column, '$') };
    TEMPORALS.set(type, cell);
  }
  return cell;
}
