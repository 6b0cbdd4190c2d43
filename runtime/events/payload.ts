/**
 * The events inside a TRANSACTION_PAYLOAD (schemas/payload.yaml): its payload uncompressed (zstd, or
 * stored as is), cut into whole events, and back. Node 20 has no zstd: a WebAssembly build of the
 * reference library does both. (fzstd, in pure JavaScript, was tried for decoding: a few flipped bits in
 * a compressed block keep it busy for seconds.)
 *
 * The library is loaded when the first zstd payload is met, not when this module is imported: most
 * binlogs hold none, and loading costs start-up time and memory (runtime/events/zstd.ts).
 *
 * A payload's stored bytes are kept (as `payload`) and reused while they still uncompress to what the
 * inner events encode to, as MariaDB's compressed events are (runtime/core/compression.ts): another zstd
 * rarely gives a server's bytes back.
 */
import { PayloadCompression, type TransactionPayloadEvent } from '../../generated/payload.js';
import { EVENT_HEADER_LENGTH, EventHeaderOffsets } from '../../generated/header.js';
import { EncodeError, InvalidValueError, LengthError, TruncatedError } from '../core/errors.js';
import { MAX_INFLATED, reuseOr } from '../core/compression.js';
import { zstd } from './zstd.js';

const PATH = 'TransactionPayloadEvent.payload';
const ZSTD_MAGIC = 0xfd2fb528;
/** zstd's default limit on a decoder's window (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27): MySQL's too. */
const MAX_WINDOW = 1 << 27;
/** The most one zstd block uncompresses to (RFC 8878, Block_Maximum_Size). */
const MAX_BLOCK = 128 << 10;
/** binlog_transaction_compression_level_zstd's default. */
const ZSTD_LEVEL = 3;

interface FrameHeader {
  /** The window the frame asks its decoder for. */
  window: number;
  /** The content size the header states, when it states one. */
  contentSize?: number;
  length: number;
  /** A 4-byte checksum follows the last block. */
  checksum: boolean;
}

/** A zstd frame's header (RFC 8878, 3.1.1.1). */
function frameHeader(frame: Uint8Array, offset: number): FrameHeader {
  if (frame.length < 6 || new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0, true) !== ZSTD_MAGIC) {
    throw new InvalidValueError('the payload is not a zstd frame', { offset, schemaPath: PATH });
  }
  const descriptor = frame[4]!;
  const singleSegment = (descriptor & 0x20) !== 0;
  const sizeAt = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]!;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  const length = sizeAt + sizeBytes;
  if (frame.length < length)
    throw new TruncatedError('the zstd frame header is cut short', { offset, schemaPath: PATH });
  let contentSize: number | undefined;
  if (sizeBytes) {
    contentSize = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + frame[sizeAt + i]!;
    if (sizeBytes === 2) contentSize += 256;
  }
  const base = 2 ** (10 + (frame[5]! >> 3));
  const window = singleSegment ? contentSize! : base + (base / 8) * (frame[5]! & 7);
  return { window, contentSize, length, checksum: (descriptor & 0x04) !== 0 };
}

/**
 * The most the frame can uncompress to, from its block headers: a raw or RLE block gives its size, a
 * compressed one at most a full block. It must be one frame, as servers write it, with nothing after it.
 */
function frameCapacity(frame: Uint8Array, header: FrameHeader, offset: number): number {
  const fullBlock = Math.min(header.window, MAX_BLOCK);
  let at = header.length;
  let capacity = 0;
  for (let last = false; !last;) {
    if (frame.length - at < 3)
      throw new TruncatedError('the zstd frame ends inside its blocks', { offset, schemaPath: PATH });
    const block = frame[at]! | (frame[at + 1]! << 8) | (frame[at + 2]! << 16);
    const [type, size] = [(block >> 1) & 3, block >>> 3];
    if (type === 3)
      throw new InvalidValueError(`a zstd block of the reserved type at ${at}`, { offset, schemaPath: PATH });
    last = (block & 1) === 1;
    capacity += type === 2 ? fullBlock : size;
    // An RLE block stores its one byte; the others, their size.
    at += 3 + (type === 1 ? 1 : size);
  }
  if (header.checksum) at += 4;
  if (at > frame.length) throw new TruncatedError('the zstd frame is cut short', { offset, schemaPath: PATH });
  if (at !== frame.length) {
    throw new InvalidValueError(`the payload is not one zstd frame: ${frame.length - at} bytes from ${at} are left`, {
      offset,
      schemaPath: PATH,
    });
  }
  return capacity;
}

/**
 * The zstd frame's content, uncompressed by the reference library into a buffer of the declared size.
 * A forged size is refused before anything is allocated: the declared size may be no more than the
 * frame's blocks can hold (and than the 1 GiB ceiling), nor than the size the frame's header states.
 */
function unzstd(frame: Uint8Array, declared: bigint | undefined, offset: number): Uint8Array {
  const header = frameHeader(frame, offset);
  if (header.window > MAX_WINDOW)
    throw new LengthError(`the zstd frame asks for a ${header.window}-byte window`, { offset, schemaPath: PATH });
  const capacity = Math.min(frameCapacity(frame, header, offset), MAX_INFLATED);
  if (declared !== undefined && declared > BigInt(capacity)) {
    throw new LengthError(`the payload claims ${declared} uncompressed bytes, more than its zstd frame can hold`, {
      offset,
      schemaPath: PATH,
    });
  }
  const size = declared === undefined ? Math.min(header.contentSize ?? capacity, capacity) : Number(declared);
  // The decoder allocates what the header states, when it states a size.
  if (header.contentSize !== undefined && header.contentSize !== size) {
    throw new InvalidValueError(`the zstd frame holds ${header.contentSize} bytes, not the ${size} declared`, {
      offset,
      schemaPath: PATH,
    });
  }
  let plain: Uint8Array;
  try {
    plain = zstd().decompress(frame, { defaultHeapSize: Math.max(size, 1) });
  } catch {
    // The library says only "Failed to compress with code N" (sic), N one of zstd's error codes.
    throw new InvalidValueError(`the payload does not uncompress to ${size} bytes: not a valid zstd frame`, {
      offset,
      schemaPath: PATH,
    });
  }
  if (declared !== undefined && plain.length !== size) {
    throw new InvalidValueError(`the payload uncompresses to ${plain.length} bytes, not the ${size} it declares`, {
      offset,
      schemaPath: PATH,
    });
  }
  return plain;
}

function isZstd(event: { compressionType?: string | number }): boolean {
  return event.compressionType === 'ZSTD' || event.compressionType === PayloadCompression.ZSTD;
}

/** The inner events' bytes of a decoded payload event whose payload starts at file offset `offset`. */
export function payloadEvents(event: TransactionPayloadEvent, offset: number): Uint8Array {
  // MySQL refuses a payload event without both (Transaction_payload::decode).
  if (event.compressionType === undefined || event.payloadSize === undefined) {
    throw new InvalidValueError('a payload event needs its compression type and payload size', {
      offset,
      schemaPath: 'TransactionPayloadEvent',
    });
  }
  if (isZstd(event)) return unzstd(event.payload, event.uncompressedSize, offset);
  if (event.compressionType !== 'NONE' && event.compressionType !== PayloadCompression.NONE) {
    throw new InvalidValueError(`unknown payload compression ${event.compressionType}`, {
      offset,
      schemaPath: 'TransactionPayloadEvent.compressionType',
    });
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
  for (let at = 0; at < bytes.length;) {
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
  if (event.compressionType === undefined)
    throw new EncodeError('a payload event needs its compressionType', 'TransactionPayloadEvent.compressionType');
  if (!isZstd(event)) return { payload: plain };
  const payload = reuseOr(
    event.payload,
    plain,
    (b) => unzstd(b, BigInt(plain.length), 0),
    (b) => zstd().compress(b, ZSTD_LEVEL),
  );
  return { payload, uncompressedSize: BigInt(plain.length) };
}
