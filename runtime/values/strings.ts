/**
 * The text of CHAR, VARCHAR, BINARY, BLOB and TEXT cells (schemas/cells.yaml gives their layouts): text in
 * the column's charset, bytes where it is binary or unknown, compressed columns kept with their stored
 * bytes.
 */
import { asciiOnly, decodeText, encodeText, isText, keepsAscii, utf8mb3Text } from './charsets.js';
import { deflateColumn, inflateColumn, reuseOr } from '../core/compression.js';
import type { Reader, Text } from '../core/reader.js';
import type { CellJsonWriter, CellReader, CellValue, CompressedCell, TextCodec } from '../core/values.js';
import type { Column } from './column.js';
import { expect, isTextValue } from './cell-codec.js';

/** Text in the column's charset; bytes for binary columns and when the charset is not known. */
function cellText(bytes: Uint8Array, c: Column): Text {
  return isText(c.charset) ? decodeText(bytes, c.charset) : bytes;
}

function cellBytes(v: Text, c: Column, path: string): Uint8Array {
  return typeof v === 'string' ? encodeText(v, c.charset ?? 'utf8mb4', path) : v;
}

/** utf8mb4 (or no charset known): UTF-8 read and written in place. utf8mb3 is checked on the way, see utf8mb3Text. */
const isUtf8 = (c: Column) => c.charset === 'utf8mb4';
const isCompressed = (c: Column) => (c.layout as { compressed?: boolean }).compressed === true;

/**
 * Reads a value after its `width`-byte length, through MariaDB's column compression where the type has
 * it. UTF-8 text, the common case, is read in place.
 */
function storedReader(c: Column, width: number, path: string): TextCodec['read'] {
  if (isCompressed(c)) {
    return (r) => {
      const raw = r.bytes(r.lengthBefore(width, path), path);
      return { value: cellText(inflateColumn(raw, r.offset - raw.length, path), c), stored: raw };
    };
  }
  if (isUtf8(c)) return repeating(width, (r, n) => r.text(n, path), path);
  if (c.charset === 'utf8mb3')
    return repeating(width, (r, n) => utf8mb3Text(r.text(n, path), r.buf.subarray(r.pos - n, r.pos)), path);
  const charset = c.charset;
  if (!isText(charset)) return (r) => r.bytes(r.lengthBefore(width, path), path);
  return repeating(width, (r, n) => decodeText(r.bytes(n, path), charset), path);
}

/** Whether the n bytes at a and at b are the same, compared from the end (where neighbouring values differ). */
function sameBytesAt(buf: Uint8Array, a: number, b: number, n: number): boolean {
  while (n > 0 && buf[a + n - 1] === buf[b + n - 1]) n--;
  return n === 0;
}

/**
 * A reader that gives back the last text it made when the next value has the same bytes: an UPDATE's
 * after image repeats every column it left alone (FULL row images), and neighbouring rows often share a
 * value. Only within one event (one Reader, known by its serial number so that its bytes are not kept
 * alive) are the earlier bytes known to be still where they were read, and only text (immutable) is shared.
 */
function repeating(width: number, read: (r: Reader, n: number) => Text, path: string): TextCodec['read'] {
  let [lastReader, lastAt, lastSize, lastText] = [0, 0, -1, ''];
  return (r) => {
    const n = r.lengthBefore(width, path);
    const at = r.pos;
    if (r.serial === lastReader && n === lastSize && n <= r.end - at && sameBytesAt(r.buf, at, lastAt, n)) {
      r.pos = at + n;
      return lastText;
    }
    const v = read(r, n);
    if (typeof v === 'string') {
      lastReader = r.serial;
      lastAt = at;
      lastSize = n;
      lastText = v;
    }
    return v;
  };
}

function storedValue(v: CellValue, c: Column, path: string): Uint8Array {
  if (!isCompressed(c)) return cellBytes(expect(v, isTextValue, 'text or bytes', path), c, path);
  const cell: { value: Text; stored?: Uint8Array } =
    typeof v === 'object' && v !== null && 'value' in v
      ? (v as CompressedCell)
      : { value: expect(v, isTextValue, 'text or bytes', path) };
  const plain = cellBytes(cell.value, c, path);
  return reuseOr(cell.stored, plain, (b) => inflateColumn(b, 0, path), deflateColumn);
}

/** Writes a value after its `width`-byte length; UTF-8 text goes straight into the buffer. */
function storedWriter(c: Column, width: number, path: string): TextCodec['write'] {
  const stored: TextCodec['write'] = (w, v) => w.prefixed(storedValue(v, c, path), width, path);
  if (!(isUtf8(c) || c.charset === undefined) || isCompressed(c)) return stored;
  return (w, v) => (typeof v === 'string' ? w.prefixedUtf8(v, width, path) : stored(w, v));
}

/**
 * Writes a value's JSON after its `width`-byte length, from the bytes where they are: UTF-8 text escaped
 * (JsonBytes.utf8), or as bytes where it is not UTF-8, as the reader gives it; a binary value's hex; ASCII
 * in a charset that keeps it as it is. Other text and compressed columns as their reader's value.
 */
function storedJson(c: Column, width: number, path: string, read: CellReader): CellJsonWriter {
  if (isCompressed(c)) return (r, w) => w.value(read(r));
  if (isUtf8(c)) {
    return (r, w) => {
      const at = stepped(r, width, path);
      if (!w.utf8(r.buf, r.dv, at, r.pos)) w.hex(r.buf, at, r.pos);
    };
  }
  if (!isText(c.charset)) return (r, w) => w.hex(r.buf, stepped(r, width, path), r.pos);
  if (!keepsAscii(c.charset)) return (r, w) => w.value(read(r));
  // ASCII-only bytes are the same text in the charset as in UTF-8, so they are copied with JSON's escapes
  // rather than decoded into a string first (issue 43: latin1, a MariaDB's default, on every row).
  return (r, w) => {
    const start = r.pos;
    const at = stepped(r, width, path);
    if (asciiOnly(r.buf, at, r.pos) && w.utf8(r.buf, r.dv, at, r.pos)) return;
    r.pos = start;
    w.value(read(r));
  };
}

/**
 * Steps over a value after its `width`-byte length, with the reader's checks of that length; returns where its bytes
 * start.
 */
function stepped(r: Reader, width: number, path: string): number {
  const n = r.lengthBefore(width, path);
  const at = r.pos;
  r.pos += r.length(n, path);
  return at;
}

export function columnText(column: Column, width: number, path: string): TextCodec {
  const read = storedReader(column, width, path);
  const skip: TextCodec['skip'] = (r) => void stepped(r, width, path);
  return { read, skip, write: storedWriter(column, width, path), json: storedJson(column, width, path, read) };
}

export function zeroPadded(v: CellValue, length: number): CellValue {
  if (!(v instanceof Uint8Array) || v.length >= length) return v;
  const padded = new Uint8Array(length);
  padded.set(v);
  return padded;
}

export function zerosTrimmed(v: CellValue, path: string): CellValue {
  const b = encodeText(expect(v, isTextValue, 'text or bytes', path), 'binary', path);
  let end = b.length;
  while (end > 0 && b[end - 1] === 0) end--;
  return b.subarray(0, end);
}

export const byteLength = (b: Uint8Array) => b.length;
