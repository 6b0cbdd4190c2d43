/**
 * The events inside a TRANSACTION_PAYLOAD (schemas/payload.yaml): its payload uncompressed (zstd, or
 * stored as is), cut into whole events, and back. Node 20 has no zstd: fzstd decodes, a WebAssembly
 * build of the reference library encodes (loaded once, when this module is first imported).
 *
 * A payload's stored bytes are kept (as `payload`) and reused while they still uncompress to what the
 * inner events encode to, as MariaDB's compressed events are (runtime/compression.ts): another zstd
 * rarely gives a server's bytes back.
 */
import { compress, init } from '@bokuweb/zstd-wasm';
import { Decompress } from 'fzstd';
import { PayloadCompression, type TransactionPayloadEvent } from '../generated/payload.js';
import { EVENT_HEADER_LENGTH, EventHeaderOffsets } from '../generated/header.js';
import { BinlogError, EncodeError, InvalidValueError, LengthError, TruncatedError } from './errors.js';
import { MAX_INFLATED, reuseOr } from './compression.js';

await init();

const PATH = 'TransactionPayloadEvent.payload';
const ZSTD_MAGIC = 0xfd2fb528;
/** zstd's default limit on a decoder's window (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27): MySQL's too. */
const MAX_WINDOW = 1 << 27;
/** binlog_transaction_compression_level_zstd's default. */
const ZSTD_LEVEL = 3;

/** The window a zstd frame asks its decoder for (RFC 8878, 3.1.1.1), read before anything is allocated. */
function zstdWindow(frame: Uint8Array, offset: number): number {
  if (frame.length < 6 || new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0, true) !== ZSTD_MAGIC) {
    throw new InvalidValueError('the payload is not a zstd frame', { offset, schemaPath: PATH });
  }
  const descriptor = frame[4]!;
  if (singleSegment(frame)) {
    // Single segment: the window is the content size, stored after the dictionary id.
    const sizeBytes = [1, 2, 4, 8][descriptor >> 6]!;
    const at = 5 + [0, 1, 2, 4][descriptor & 3]!;
    if (frame.length < at + sizeBytes) throw new TruncatedError('the zstd frame header is cut short', { offset, schemaPath: PATH });
    let size = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + frame[at + i]!;
    return sizeBytes === 2 ? size + 256 : size;
  }
  const exponent = frame[5]! >> 3;
  const base = 2 ** (10 + exponent);
  return base + (base / 8) * (frame[5]! & 7);
}

function singleSegment(frame: Uint8Array): boolean {
  return (frame[4]! & 0x20) !== 0;
}

/**
 * The frame with its window cut down to what `content` bytes can need: the decoder allocates the window
 * whole, and a frame's back-references never reach past its own output. (Servers compress with windows
 * far larger than a small transaction.)
 */
function withWindow(frame: Uint8Array, window: number, content: number): Uint8Array {
  if (singleSegment(frame) || window <= content) return frame;
  const copy = Uint8Array.from(frame);
  copy[5] = Math.max(0, Math.ceil(Math.log2(Math.max(content, 1))) - 10) << 3;
  return copy;
}

/**
 * The zstd frame's content. A forged size allocates nothing: the declared size and the frame's window are
 * bounded first, and decompression stops as soon as it passes the declared size.
 */
function unzstd(frame: Uint8Array, declared: bigint | undefined, offset: number): Uint8Array {
  if (declared !== undefined && declared > BigInt(MAX_INFLATED)) {
    throw new LengthError(`the payload claims ${declared} uncompressed bytes`, { offset, schemaPath: PATH });
  }
  const window = zstdWindow(frame, offset);
  if (window > MAX_WINDOW) throw new LengthError(`the zstd frame asks for a ${window}-byte window`, { offset, schemaPath: PATH });
  const limit = declared === undefined ? MAX_INFLATED : Number(declared);
  if (singleSegment(frame) && window > limit) {
    throw new LengthError(`the zstd frame claims ${window} bytes, more than the ${limit} declared`, { offset, schemaPath: PATH });
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > limit) throw new LengthError(`the payload uncompresses past its declared ${limit} bytes`, { offset, schemaPath: PATH });
    chunks.push(chunk);
  });
  try {
    stream.push(withWindow(frame, window, limit), true);
  } catch (e) {
    if (e instanceof BinlogError) throw e;
    throw new InvalidValueError(`the payload does not uncompress: ${(e as Error).message}`, { offset, schemaPath: PATH });
  }
  if (declared !== undefined && total !== limit) {
    throw new InvalidValueError(`the payload uncompresses to ${total} bytes, not the ${limit} it declares`, { offset, schemaPath: PATH });
  }
  return concat(chunks, total);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) (out.set(c, at), (at += c.length));
  return out;
}

function isZstd(event: { compressionType?: string | number }): boolean {
  return event.compressionType === 'ZSTD' || event.compressionType === PayloadCompression.ZSTD;
}

/** The inner events' bytes of a decoded payload event whose payload starts at file offset `offset`. */
export function payloadEvents(event: TransactionPayloadEvent, offset: number): Uint8Array {
  // MySQL refuses a payload event without both (Transaction_payload::decode).
  if (event.compressionType === undefined || event.payloadSize === undefined) {
    throw new InvalidValueError('a payload event needs its compression type and payload size', { offset, schemaPath: 'TransactionPayloadEvent' });
  }
  if (isZstd(event)) return unzstd(event.payload, event.uncompressedSize, offset);
  if (event.compressionType !== 'NONE' && event.compressionType !== PayloadCompression.NONE) {
    throw new InvalidValueError(`unknown payload compression ${event.compressionType}`, { offset, schemaPath: 'TransactionPayloadEvent.compressionType' });
  }
  return event.payload;
}

/**
 * Whole events cut from `bytes` by their event_size, each handed to `decode` with its offset within them.
 * A length that is impossible or runs past the end is refused at the payload's file offset `offset`.
 */
export function splitEvents<E>(bytes: Uint8Array, offset: number, decode: (event: Uint8Array, at: number) => E): E[] {
  const out: E[] = [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    if (bytes.length - at < EVENT_HEADER_LENGTH) {
      throw new TruncatedError(`the payload ends inside an event header at ${at}`, { offset, schemaPath: PATH });
    }
    const size = dv.getUint32(at + EventHeaderOffsets.eventSize, true);
    if (size < EVENT_HEADER_LENGTH || size > bytes.length - at) {
      throw new LengthError(`inner event at ${at} has an impossible event_size ${size}`, { offset, schemaPath: PATH });
    }
    out.push(decode(bytes.subarray(at, at + size), at));
    at += size;
  }
  return out;
}

/** The payload to store for inner events encoded as `plain`: the stored bytes while they still fit. */
export function packPayload(
  event: { compressionType?: string | number; payload?: Uint8Array },
  plain: Uint8Array,
): { payload: Uint8Array; uncompressedSize?: bigint } {
  if (event.compressionType === undefined) throw new EncodeError('a payload event needs its compressionType', 'TransactionPayloadEvent.compressionType');
  if (!isZstd(event)) return { payload: plain };
  const payload = reuseOr(event.payload, plain, (b) => unzstd(b, BigInt(plain.length), 0), (b) => compress(b, ZSTD_LEVEL));
  return { payload, uncompressedSize: BigInt(plain.length) };
}
