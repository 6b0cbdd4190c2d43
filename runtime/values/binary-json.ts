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
import { binaryJson, compareJsonKeys, isJsonObject } from '../../generated/json-binary.js';
import { InvalidValueError } from '../core/errors.js';
import type { JsonTree } from '../core/values.js';
import { decimalSize, decodeDecimal, encodeDecimal } from './decimal.js';
import { pad } from './digits.js';

export { isJsonObject, compareJsonKeys as compareKeys };

const codec = binaryJson({ customValue, customData });

export function decodeJsonb(b: Uint8Array, offset: number, path: string): JsonTree {
  // What the server stores for NULL in a NOT NULL column, non-strict (Field_json: an empty value).
  return b.length === 0 ? null : codec.decode(b, offset, path);
}

/** The server's canonical binary form of a decoded tree. */
export const encodeJsonb = codec.encode;

/** OPAQUE `as`: the value of the custom data written under `tag`, or null where the data is not of its form. */
function customValue(tag: string, data: Uint8Array): JsonTree {
  if (tag === '$decimal') return decimalValue(data);
  return data.length === 8 ? { [tag]: temporalText(tag, new DataView(data.buffer, data.byteOffset, 8).getBigInt64(0, true)) } : null;
}

/** OPAQUE `as`: the custom data of a value written under `tag`. */
function customData(tag: string, v: JsonTree, path: string): Uint8Array {
  const o = v as { [key: string]: JsonTree };
  if (tag === '$decimal') {
    const [precision, scale] = [o.precision as number, o.scale as number];
    return Uint8Array.from([precision, scale, ...encodeDecimal(o.$decimal as string, precision, scale, '$decimal')]);
  }
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt.asIntN(64, temporalPacked(tag, o[tag] as string, path)), true);
  return bytes;
}

/** Json_decimal's data: its precision, its scale and exactly decimal2bin's bytes for them. */
function decimalValue(data: Uint8Array): JsonTree {
  if (!(data.length >= 2 && data[1]! <= data[0]! && data.length === 2 + decimalSize(data[0]!, data[1]!))) return null;
  const [precision, scale] = [data[0]!, data[1]!];
  return { $decimal: decodeDecimal(data.subarray(2), precision, scale), precision, scale };
}

/** MySQL's packed longlong temporal: (ymd << 17 | hms) << 24 | microseconds, negated when negative. */
function temporalText(tag: string, packed: bigint): string {
  const neg = packed < 0n;
  const a = neg ? -packed : packed;
  const micro = Number(a & 0xffffffn);
  const ymdhms = a >> 24n;
  const frac = micro ? `.${pad(micro, 6)}` : '';
  if (tag === '$time') {
    const hms = Number(ymdhms % (1n << 24n));
    return `${neg ? '-' : ''}${pad(hms >> 12, 2)}:${pad((hms >> 6) & 63, 2)}:${pad(hms & 63, 2)}${frac}`;
  }
  const ymd = Number(ymdhms >> 17n);
  const hms = Number(ymdhms % (1n << 17n));
  const ym = ymd >> 5;
  const date = `${pad(Math.floor(ym / 13), 4)}-${pad(ym % 13, 2)}-${pad(ymd & 31, 2)}`;
  return tag === '$date' ? date : `${date} ${pad(hms >> 12, 2)}:${pad((hms >> 6) & 63, 2)}:${pad(hms & 63, 2)}${frac}`;
}

function temporalPacked(tag: string, text: string, path: string): bigint {
  const m = /^(-)?(?:(\d{4})-(\d{2})-(\d{2}))?[ ]?(?:(\d{2,3}):(\d{2}):(\d{2}))?(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new InvalidValueError(`binary JSON: '${text}' is not a temporal value`, { offset: -1, schemaPath: path });
  const [, neg, y, mo, d, h, mi, s, f] = m;
  const micro = BigInt(Number((f ?? '').padEnd(6, '0')));
  const hms = BigInt((Number(h ?? 0) << 12) | (Number(mi ?? 0) << 6) | Number(s ?? 0));
  const ymd = BigInt(((Number(y ?? 0) * 13 + Number(mo ?? 0)) << 5) | Number(d ?? 0));
  const packed = tag === '$time' ? (hms << 24n) + micro : (((ymd << 17n) | hms) << 24n) + micro;
  return neg ? -packed : packed;
}
