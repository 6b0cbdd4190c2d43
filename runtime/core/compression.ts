/**
 * MariaDB's compressed forms. The rows of events 165-171 (and QUERY_COMPRESSED's statement) are one
 * block: a header byte 0x80 | N (bits 4-6 the algorithm, 0 = zlib), the uncompressed length in N
 * big-endian bytes, then a zlib stream. A compressed column's value (types 140, 141) starts with a
 * header byte whose high nibble is the method (0: stored as is, 8: zlib), bits 0-2 the width of the
 * big-endian uncompressed length that follows, and bit 3 set for a raw deflate stream without zlib's
 * wrapper. Source: MariaDB sql/log_event.cc (binlog_buf_compress, binlog_buf_uncompress) and
 * sql/field_comp.cc (compress_zlib, uncompress_zlib).
 *
 * Compressors differ, so compressing again seldom gives the stored bytes: every decoded compressed
 * value keeps them, and encoding reuses them whenever they still decompress to what is being written.
 */
import { deflateRawSync, deflateSync, inflateRawSync, inflateSync } from 'node:zlib';
import { InvalidValueError, LengthError } from './errors.js';
import { beUint, Reader, sameBytes } from './reader.js';

/** The most a compressed block may claim to expand to; a forged length beyond it is refused unread. */
export const MAX_INFLATED = 1 << 30;

function beBytes(v: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.floor(v / 256 ** (n - 1 - i)) % 256);
}

function widthOf(v: number): number {
  return v < 0x100 ? 1 : v < 0x1_0000 ? 2 : v < 0x100_0000 ? 3 : 4;
}

function inflateChecked(stream: Uint8Array, length: number, raw: boolean, offset: number, path: string): Uint8Array {
  if (length > MAX_INFLATED)
    throw new LengthError(`compressed data claims ${length} bytes`, { offset, schemaPath: path });
  let out: Buffer;
  try {
    out = (raw ? inflateRawSync : inflateSync)(stream, { maxOutputLength: Math.max(length, 1) });
  } catch (e) {
    throw new InvalidValueError(`compressed data does not inflate: ${(e as Error).message}`, {
      offset,
      schemaPath: path,
    });
  }
  if (out.length !== length) {
    throw new InvalidValueError(`compressed data inflates to ${out.length} bytes, not the ${length} it claims`, {
      offset,
      schemaPath: path,
    });
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** MariaDB's compressed block (events 165-171): the uncompressed bytes. */
export function inflateBlock(stored: Uint8Array, offset: number, path: string): Uint8Array {
  const head = stored[0];
  if (head === undefined || (head & 0xe0) !== 0x80) {
    throw new InvalidValueError(`not a compressed block (header 0x${(head ?? 0).toString(16)})`, {
      offset,
      schemaPath: path,
    });
  }
  const n = head & 0x07;
  if (n < 1 || n > 4 || stored.length < 1 + n)
    throw new LengthError(`bad compressed block length width ${n}`, { offset, schemaPath: path });
  return inflateChecked(stored.subarray(1 + n), beUint(stored, 1, n), false, offset, path);
}

export function deflateBlock(plain: Uint8Array): Uint8Array {
  const n = widthOf(plain.length);
  const z = deflateSync(plain);
  return Uint8Array.from([0x80 | n, ...beBytes(plain.length, n), ...z]);
}

/** A compressed column's value (types 140, 141): the uncompressed bytes. */
export function inflateColumn(stored: Uint8Array, offset: number, path: string): Uint8Array {
  if (stored.length === 0) return stored;
  const head = stored[0]!;
  if (head >> 4 === 0) return stored.subarray(1);
  if (head >> 4 !== 8)
    throw new InvalidValueError(`unknown column compression method ${head >> 4}`, { offset, schemaPath: path });
  const n = head & 0x07;
  if (n < 1 || n > 4 || stored.length < 1 + n)
    throw new LengthError(`bad compressed column length width ${n}`, { offset, schemaPath: path });
  return inflateChecked(stored.subarray(1 + n), beUint(stored, 1, n), (head & 0x08) !== 0, offset, path);
}

/** MariaDB's default form: raw deflate (column_compression_zlib_wrap=OFF). */
export function deflateColumn(plain: Uint8Array): Uint8Array {
  if (plain.length === 0) return plain;
  const n = widthOf(plain.length);
  return Uint8Array.from([0x80 | 0x08 | n, ...beBytes(plain.length, n), ...deflateRawSync(plain)]);
}

/** The stored bytes if they still decompress to `plain`, else `plain` compressed anew. */
export function reuseOr(
  stored: Uint8Array | undefined,
  plain: Uint8Array,
  inflate: (b: Uint8Array) => Uint8Array,
  deflate: (b: Uint8Array) => Uint8Array,
): Uint8Array {
  if (stored !== undefined) {
    try {
      if (sameBytes(inflate(stored), plain)) return stored;
    } catch {
      // Not valid compressed data any more: compress anew.
    }
  }
  return deflate(plain);
}

const CODECS = {
  'mariadb-zlib': { inflate: inflateBlock, deflate: deflateBlock },
} as const;

/** For generated code: a reader over a compressed field's uncompressed bytes. */
export function inflate(codec: keyof typeof CODECS, stored: Uint8Array, offset: number, path: string): Reader {
  const plain = CODECS[codec].inflate(stored, offset, path);
  // Offsets inside decompressed bytes are not file offsets: errors there name the block's start.
  return new Reader(plain, 0, plain.length, offset);
}

/** For generated code: the bytes to store for a compressed field. */
export function deflate(
  codec: keyof typeof CODECS,
  plain: Uint8Array,
  stored: Uint8Array | undefined,
  path: string,
): Uint8Array {
  const c = CODECS[codec];
  return reuseOr(stored, plain, (b) => c.inflate(b, 0, path), c.deflate);
}
