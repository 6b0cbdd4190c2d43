/**
 * The code of a row image for one list of present columns (schemas/rows.yaml's rowImages: a null bitmap,
 * then the value of each present column whose bit is clear), composed from closures once per list and
 * cached, as protobuf-es composes a message type's readers once per type. No code is made from text at
 * run time: where each column's null bit is comes from the generated null-bitmap helpers, each value from
 * its column's cell codec, and the closures only walk the list.
 */
import { nullBitMask, nullByte } from '../../generated/rows.js';
import { jsonKey, JsonWords, keepsKeyOrder, NULL_WORDS, type JsonBytes } from '../core/dump-json-bytes.js';
import type { Reader } from '../core/reader.js';
import type { CellValue, Row } from '../core/values.js';
import type { Writer } from '../core/writer.js';
import type { CellJsonWriter, CellReader, CellSkipper, CellWriter } from '../values/cell-codec.js';

/** An image's code for one list of present columns; each function takes the offset of the image's null bitmap. */
export interface ImageCode {
  /** Reads the values after the null bitmap at `r.buf[nulls]` into one row object. */
  read(r: Reader, nulls: number, cells: readonly CellReader[]): Row;
  /**
   * Steps over the values, pushing each one's offset in `r.buf` (-1 for a NULL) onto `offsets`: lazy rows.
   * A column whose `widths` entry is not 0 has values of that many bytes, stepped over without a call.
   */
  skip(r: Reader, nulls: number, skippers: readonly CellSkipper[], widths: Int32Array, offsets: number[]): void;
  /**
   * Writes a row's values after its null bitmap at `w.buf[nulls]`, setting its nulls' bits; gives the index
   * of the first column without a value, EXTRA_KEYS when every column has one but the row has other keys
   * too, or -1.
   */
  write(w: Writer, row: Row, nulls: number, writers: readonly CellWriter[]): number;
  /**
   * Writes the image's JSON object as `read`'s row would be written. It is undefined where a JS object would
   * not keep the names' order (integer-like names move first), so that the row's own order decides.
   */
  json: ((r: Reader, nulls: number, jsons: readonly CellJsonWriter[], w: JsonBytes) => void) | undefined;
}

/** Where a null bitmap keeps the bit of the image's k-th present column: the generated rowImages.nulls helpers. */
export interface NullBitLayout {
  nullByte(k: number): number;
  nullBitMask(k: number): number;
}

/** Where each present column's null bit is: its byte after the bitmap's start, and its mask in that byte. */
interface NullBits {
  bytes: Int32Array;
  masks: Uint8Array;
}

/** At most this many lists' code is kept, since a hostile input could name any number of column lists. */
const MAX_LISTS = 256;
const CODE = new Map<string, ImageCode>();

/** The code for images of these present columns, composed once per list of names. */
export function imageCode(names: readonly string[]): ImageCode {
  const key = JSON.stringify(names);
  let made = CODE.get(key);
  if (!made) {
    made = composeImageCode(names, NULLS);
    if (CODE.size >= MAX_LISTS) CODE.clear();
    CODE.set(key, made);
  }
  return made;
}

/** The rows' null bitmap, as schemas/rows.yaml lays it out. */
const NULLS: NullBitLayout = { nullByte, nullBitMask };

/** The code for images of these present columns under the null bitmap `nulls` lays out. */
export function composeImageCode(names: readonly string[], nulls: NullBitLayout): ImageCode {
  const bits: NullBits = {
    bytes: Int32Array.from(names, (_, k) => nulls.nullByte(k)),
    masks: Uint8Array.from(names, (_, k) => nulls.nullBitMask(k)),
  };
  return {
    read: reader(names, bits),
    skip: skipper(bits),
    write: writer(names, bits),
    json: keepsKeyOrder(names) ? jsonWriter(names, bits) : undefined,
  };
}

/**
 * Each row starts as a copy of one template of the list's names, so that every row of the list has the
 * same shape and its values are stored into properties it has already. JSON.parse makes the template: it
 * defines each name as an own property, "__proto__" too, where an assignment would set the prototype.
 */
function reader(names: readonly string[], { bytes, masks }: NullBits): ImageCode['read'] {
  const template = JSON.parse(`{${names.map((name) => `${JSON.stringify(name)}:null`).join(',')}}`) as Row;
  const n = names.length;
  return (r, nulls, cells) => {
    const b = r.buf;
    const row = { ...template };
    // The template's values are null already, so a NULL needs no store.
    for (let k = 0; k < n; k++) if (!(b[nulls + bytes[k]!]! & masks[k]!)) row[names[k]!] = cells[k]!(r);
    return row;
  };
}

/** A set bit is a NULL, which has no value in the image. */
function skipper({ bytes, masks }: NullBits): ImageCode['skip'] {
  const n = bytes.length;
  return (r, nulls, skippers, widths, offsets) => {
    const b = r.buf;
    for (let k = 0; k < n; k++) {
      if (b[nulls + bytes[k]!]! & masks[k]!) {
        offsets.push(-1);
        continue;
      }
      offsets.push(r.pos);
      const width = widths[k]!;
      // A value past the end is the skipper's to refuse, with its error.
      if (width && r.pos + width <= r.end) r.pos += width;
      else skippers[k]!(r);
    }
  };
}

/** What ImageCode.write gives for a row that has a value for every present column, and keys of other columns. */
export const EXTRA_KEYS = -2;

/**
 * A column the row has no key for is missing, one whose key holds undefined has the value undefined. A
 * row whose keys are the list's names in order (as the decode gives them) has its values taken by one
 * for-in, whose loads V8 serves from the object's own key cache; any other row by name. A plain object
 * whose for-in gave exactly the names has no other keys, so only other rows are counted again.
 */
function writer(names: readonly string[], { bytes, masks }: NullBits): ImageCode['write'] {
  const n = names.length;
  const values: CellValue[] = new Array<CellValue>(n).fill(null);
  const inOrder = (row: Row): boolean => {
    let k = 0;
    for (const key in row) {
      if (key !== names[k]) return false;
      values[k++] = row[key]!;
    }
    return k === n;
  };
  const write = (w: Writer, k: number, v: CellValue, writers: readonly CellWriter[], nulls: number): void => {
    // The writers may grow the buffer, so that it is read again for each bit.
    if (v === null) w.buf[nulls + bytes[k]!] |= masks[k]!;
    else writers[k]!(w, v);
  };
  return (w, row, nulls, writers) => {
    if (inOrder(row)) {
      for (let k = 0; k < n; k++) write(w, k, values[k]!, writers, nulls);
      return isPlain(row) || ownKeyCount(row) === n ? -1 : EXTRA_KEYS;
    }
    for (let k = 0; k < n; k++) {
      const name = names[k]!;
      const v = row[name];
      if (v === undefined && !(name in row)) return k;
      write(w, k, v!, writers, nulls);
    }
    // Every present column has its value, so any more keys are columns not in the image.
    return ownKeyCount(row) === n ? -1 : EXTRA_KEYS;
  };
}

/**
 * How many own enumerable keys a row has (Object.keys(row).length), without an array per row: for-in
 * counts inherited keys too, of which a plain object has none while Object.prototype has no enumerable
 * ones (an Object.hasOwn per key cost 6× the loop).
 */
function ownKeyCount(row: Row): number {
  let count = 0;
  for (const _ in row) count++;
  return isPlain(row) ? count : Object.keys(row).length;
}

/** Whether for-in gives a row's own enumerable keys and no others. */
function isPlain(row: Row): boolean {
  return Object.getPrototypeOf(row) === Object.prototype && !hasEnumerableKeys(Object.prototype);
}

function hasEnumerableKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

const OPEN = 0x7b;
const CLOSE = 0x7d;

/** Each member's `{"name":` or `,"name":` is encoded once per list, and written as bytes. */
function jsonWriter(names: readonly string[], { bytes, masks }: NullBits): NonNullable<ImageCode['json']> {
  const members = names.map((name, k) => new JsonWords(Buffer.concat([Buffer.of(k ? 0x2c : OPEN), jsonKey(name)])));
  const n = names.length;
  return (r, nulls, jsons, w) => {
    const b = r.buf;
    if (n === 0) w.byte(OPEN);
    for (let k = 0; k < n; k++) {
      w.words(members[k]!);
      if (b[nulls + bytes[k]!]! & masks[k]!) w.words(NULL_WORDS);
      else jsons[k]!(r, w);
    }
    w.byte(CLOSE);
  };
}
