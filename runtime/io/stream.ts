/**
 * Reading a binlog: check the magic, frame events by their header's event_size, decode each one. Memory
 * stays constant: only the event being decoded is held, whatever the size of the file.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { BINLOG_MAGIC, ENCRYPTED_BINLOG_MAGIC, EventHeaderOffsets } from '../../generated/header.js';
import { BadMagicError, BinlogError, LengthError, TruncatedError } from '../core/errors.js';
import { BinlogEncoder, type EncodeOptions } from '../events/binlog-encoder.js';
import { flatten, type PayloadForm } from '../events/flat-payloads.js';
import {
  EventDecoder,
  eventTypeName,
  type BinlogEvent,
  type BinlogEventInput,
  type DecodeOptions,
  type FramedEvent,
  type LazyBinlogEvent,
} from '../events/event-codec.js';
import { V1_HEADER_LENGTH, type FormatState } from '../events/format-state.js';
import { EventSelection, type EventFilter } from './filter.js';
import { MysqlFileDecryption, type Keyring, type MysqlHeaderFields } from './mysql-encryption.js';

export interface ReadOptions extends DecodeOptions {
  /** The largest event_size accepted before the bytes arrive (default 1 GiB, above any server's limit). */
  maxEventSize?: number;
  /**
   * Called with the error of a well-framed event that cannot be decoded (a bad checksum, a bad value):
   * return 'skip' to go on, the event then delivered as its raw bytes so that nothing is lost; 'stop'
   * (the default) throws. Framing errors (an impossible event_size, a truncated file) always stop.
   */
  onError?: (error: BinlogError) => 'skip' | 'stop';
  /** The name events carry as their `file` (default: the last part of the path read; none for other sources). */
  file?: string;
  /**
   * Only the events that pass these filters (whole transactions: see runtime/io/filter.ts). Reading ends
   * at the stop. An EventSelection made of them can be asked afterwards which names matched nothing.
   */
  filter?: EventFilter | EventSelection;
  /**
   * A TRANSACTION_PAYLOAD's events (MySQL 8's compressed transactions): 'flat' (the default), each
   * delivered after the payload event as an event of its own, with `inPayload`; 'nested', inside it, as
   * its `events`. Encoding takes either form.
   */
  payloads?: PayloadForm;
  /**
   * The keys with which a MySQL 8 encrypted binlog's file password is decrypted (a component_keyring_file's,
   * parseKeyring), by key id; without them such a file is refused.
   */
  keyring?: Keyring;
  /**
   * Told, with a keyring, the fields of a MySQL encrypted file's header once read, before its first event: the
   * key id, the encrypted file password and its IV, from which the file is written back as it was.
   */
  onMysqlHeader?: (fields: MysqlHeaderFields) => void;
}

/** What framing without decoding takes: filters need decoded events. */
export type FrameOptions = Omit<ReadOptions, 'filter'>;

const DEFAULT_MAX_EVENT = 1 << 30;

/** Bytes from a file path, a Node stream or any async iterable of chunks. */
export type ByteSource = string | AsyncIterable<Uint8Array>;

function chunks(source: ByteSource): AsyncIterable<Uint8Array> {
  return typeof source === 'string' ? createReadStream(source, { highWaterMark: 1 << 20 }) : source;
}

/** Chunks as they arrive, from which whole events are cut without copying more than one event. */
class ByteQueue {
  private parts: Uint8Array[] = [];
  private head = 0;
  length = 0;

  push(b: Uint8Array): void {
    if (b.length === 0) return;
    this.parts.push(b);
    this.length += b.length;
  }

  /** The byte at `i` from the front. */
  at(i: number): number {
    let k = this.head + i;
    for (const p of this.parts) {
      if (k < p.length) return p[k]!;
      k -= p.length;
    }
    throw new RangeError('past the queued bytes');
  }

  /** Removes and returns the first `n` bytes, as a view when they lie in one chunk. */
  take(n: number): Uint8Array {
    const first = this.parts[0]!;
    let out: Uint8Array;
    if (first.length - this.head >= n) {
      out = first.subarray(this.head, this.head + n);
      this.head += n;
    } else {
      out = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const p = this.parts[0]!;
        const k = Math.min(p.length - this.head, n - filled);
        out.set(p.subarray(this.head, this.head + k), filled);
        filled += k;
        this.head += k;
        if (this.head === p.length) (this.parts.shift(), (this.head = 0));
      }
    }
    if (this.parts.length && this.head === this.parts[0]!.length) (this.parts.shift(), (this.head = 0));
    this.length -= n;
    return out;
  }

  u32(i: number): number {
    return (this.at(i) | (this.at(i + 1) << 8) | (this.at(i + 2) << 16) | (this.at(i + 3) << 24)) >>> 0;
  }
}

/**
 * Cuts events out of bytes as they arrive: the one framing rule that every reader here uses. Push bytes,
 * drain the complete events, and call `end` when the input is over.
 */
export class Framer {
  private readonly q = new ByteQueue();
  private readonly decoder: EventDecoder;
  private readonly maxEvent: number;
  private readonly onError: ReadOptions['onError'];
  private magicChecked = false;
  /** With a keyring, the bytes pass through this first, which decrypts a MySQL encrypted file. */
  private readonly fileDecryption: MysqlFileDecryption | undefined;
  /** File offset of the next event. */
  pos = 0;

  constructor(options: ReadOptions = {}) {
    this.fileDecryption = options.keyring ? new MysqlFileDecryption(options.keyring, options.onMysqlHeader) : undefined;
    this.decoder = new EventDecoder(options);
    this.decoder.file = options.file;
    // Under filters a definition that does not fit is refused only where its TABLE_MAP is kept (filter.ts).
    this.decoder.format.tables.deferMismatches = options.filter !== undefined;
    this.maxEvent = options.maxEventSize ?? DEFAULT_MAX_EVENT;
    this.onError = options.onError;
  }

  push(chunk: Uint8Array): void {
    // Node's Buffers would leak into decoded values (and their JSON); plain views of the same bytes do not.
    const view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.q.push(this.fileDecryption ? this.fileDecryption.push(view) : view);
  }

  /** Every complete event queued so far, one per event of the file (a payload's events inside it: see inForm). */
  *drain(): Generator<BinlogEvent> {
    for (let bytes; (bytes = this.next());) {
      const event = this.event(bytes, this.pos);
      this.pos += bytes.length;
      yield event;
    }
  }

  /**
   * One whole event, `bytes` exactly, at file offset `pos`, decoded under the format the events before
   * it set, and under `onError`: what a source that frames its own events (a server's dump packets) uses.
   */
  event(bytes: Uint8Array, pos: number): BinlogEvent {
    try {
      return this.decoder.decode(bytes, pos);
    } catch (e) {
      if (e instanceof BinlogError && this.onError?.(e) === 'skip') return this.decoder.raw(bytes, pos);
      throw e;
    }
  }

  /** An event that drainFrames gave, decoded (an encrypted one was framed decrypted). */
  decodeFrame(frame: FramedEvent): BinlogEvent {
    return this.decoder.decodeFrame(frame);
  }

  /** The name events decoded from now on carry as their `file` (at a rotation). */
  set file(name: string | undefined) {
    this.decoder.file = name;
  }

  /** The format in force: what the last FORMAT_DESCRIPTION said, or what is assumed before one. */
  get format(): FormatState {
    return this.decoder.format;
  }

  /** Every complete event queued so far, checked (EventDecoder.frame) but not decoded. */
  *drainFrames(): Generator<FramedEvent> {
    for (let bytes; (bytes = this.next());) {
      const frame = this.frame(bytes);
      this.pos += bytes.length;
      yield frame;
    }
  }

  /**
   * Passes over the events before file offset `position`, framed and checked (drainFrames) but not
   * delivered: true once there, false while the bytes to get there are still to come. A position inside
   * an event is a RangeError.
   */
  skipTo(position: number): boolean {
    if (!this.magic()) return false;
    while (this.pos < position) {
      const bytes = this.next();
      if (!bytes) return false;
      if (this.pos + bytes.length > position) {
        throw new RangeError(
          `position ${position} is inside the event at ${this.pos}, which ends at ${this.pos + bytes.length}`,
        );
      }
      this.frame(bytes);
      this.pos += bytes.length;
    }
    return true;
  }

  /** Whether the magic has been read (and checked), reading it if it is queued. */
  private magic(): boolean {
    if (this.magicChecked) return true;
    if (this.q.length < BINLOG_MAGIC.length) return false;
    checkMagic(this.q.take(BINLOG_MAGIC.length));
    this.magicChecked = true;
    this.pos = BINLOG_MAGIC.length;
    return true;
  }

  /** The next complete event's bytes, if they are all queued (the magic checked first). */
  private next(): Uint8Array | undefined {
    const q = this.q;
    if (!this.magic()) return undefined;
    if (q.length < V1_HEADER_LENGTH) return undefined;
    const size = q.u32(EventHeaderOffsets.eventSize);
    if (size < this.decoder.format.headerLength || size > this.maxEvent) {
      throw new LengthError(`event_size ${size} is impossible`, {
        offset: this.pos + EventHeaderOffsets.eventSize,
        eventPos: this.pos,
        eventType: q.at(EventHeaderOffsets.typeCode),
        schemaPath: 'EventHeader.eventSize',
      });
    }
    return q.length < size ? undefined : q.take(size);
  }

  private frame(bytes: Uint8Array): FramedEvent {
    try {
      return this.decoder.frame(bytes, this.pos);
    } catch (e) {
      if (e instanceof BinlogError && this.onError?.(e) === 'skip')
        return { pos: this.pos, typeCode: bytes[EventHeaderOffsets.typeCode]!, bytes };
      throw e;
    }
  }

  /** The input is over: anything left is an incomplete event (or magic). */
  end(): void {
    const q = this.q;
    if (this.fileDecryption) q.push(this.fileDecryption.end());
    if (!this.magicChecked) {
      // Even an empty input: a binlog has at least its magic.
      checkMagic(q.length ? q.take(q.length) : new Uint8Array(0));
      return;
    }
    if (q.length === 0) return;
    const known = q.length >= V1_HEADER_LENGTH ? ` of ${q.u32(EventHeaderOffsets.eventSize)}` : '';
    const eventType = q.length > EventHeaderOffsets.typeCode ? q.at(EventHeaderOffsets.typeCode) : undefined;
    throw new TruncatedError(`the input ends inside an event (${q.length}${known} bytes)`, {
      offset: this.pos + q.length,
      eventPos: this.pos,
      eventType,
      // The name as the format in force reads the stored code, as a checksum error gives it.
      eventTypeName: eventType === undefined ? undefined : eventTypeName(this.decoder.format.realCode(eventType)),
    });
  }
}

/** The filters of `options` as a selection (undefined when there are none). */
export function selectionOf(options: ReadOptions): EventSelection | undefined {
  const f = options.filter;
  return f === undefined || f instanceof EventSelection ? f : new EventSelection(f);
}

/**
 * Events in the form `options.payloads` asks for: a payload's events after it (the default), or inside
 * it. Filters see them inside, a payload being one transaction.
 */
export function* inForm(events: Iterable<BinlogEvent>, options: ReadOptions): Generator<BinlogEvent> {
  if (options.payloads === 'nested') return yield* events;
  for (const e of events) {
    if (e.events) yield* flatten(e);
    else yield e;
  }
}

/** The events that pass `selection` (all of them without one), in the form asked for: every reader's last steps. */
export function* selected(
  events: Iterable<BinlogEvent>,
  selection: EventSelection | undefined,
  options: ReadOptions,
): Generator<BinlogEvent> {
  yield* inForm(selection ? selection.apply(events) : events, options);
}

/** The complete events queued in `framer` that pass `selection`, in the form asked for. */
function* passing(framer: Framer, selection: EventSelection | undefined, options: ReadOptions): Generator<BinlogEvent> {
  yield* selected(framer.drain(), selection, options);
}

/** The input is over: nothing may be left of an event, and the selection lets out what it holds. */
function* ending(framer: Framer, selection: EventSelection | undefined, options: ReadOptions): Generator<BinlogEvent> {
  framer.end();
  if (selection) yield* inForm(selection.end(), options);
}

/** Options that ask for lazy rows: the readers' events are then LazyBinlogEvents. */
export type LazyReadOptions = ReadOptions & { rows: 'lazy' };

/** The events of a binlog, as they are read. Every complete event before a fault is delivered first. */
export function readBinlog(source: ByteSource, options: LazyReadOptions): AsyncGenerator<LazyBinlogEvent>;
export function readBinlog(source: ByteSource, options?: ReadOptions): AsyncGenerator<BinlogEvent>;
export async function* readBinlog(
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<BinlogEvent | LazyBinlogEvent> {
  const framer = new Framer(
    typeof source === 'string' ? { ...options, file: options.file ?? basename(source) } : options,
  );
  const selection = selectionOf(options);
  for await (const chunk of chunks(source)) {
    framer.push(chunk);
    yield* passing(framer, selection, options);
    if (selection?.stopped) return;
  }
  yield* ending(framer, selection, options);
}

/** The events of a binlog held in memory, one at a time. */
export function iterateBinlog(bytes: Uint8Array, options: LazyReadOptions): Generator<LazyBinlogEvent>;
export function iterateBinlog(bytes: Uint8Array, options?: ReadOptions): Generator<BinlogEvent>;
export function* iterateBinlog(bytes: Uint8Array, options: ReadOptions = {}): Generator<BinlogEvent | LazyBinlogEvent> {
  const framer = new Framer(options);
  const selection = selectionOf(options);
  framer.push(bytes);
  yield* passing(framer, selection, options);
  if (!selection?.stopped) yield* ending(framer, selection, options);
}

/**
 * The events of a binlog held in memory as byte slices, framed and CRC-checked but not decoded: the fast
 * path for copying, filtering or indexing events. Only the events that change the format are decoded.
 */
export function* frameBinlog(bytes: Uint8Array, options: FrameOptions = {}): Generator<FramedEvent> {
  const framer = new Framer(options);
  framer.push(bytes);
  yield* framer.drainFrames();
  framer.end();
}

/** Decodes a whole binlog held in memory. */
export function decodeBinlog(bytes: Uint8Array, options: LazyReadOptions): LazyBinlogEvent[];
export function decodeBinlog(bytes: Uint8Array, options?: ReadOptions): BinlogEvent[];
export function decodeBinlog(bytes: Uint8Array, options: ReadOptions = {}): BinlogEvent[] | LazyBinlogEvent[] {
  return [...iterateBinlog(bytes, options)];
}

/** What input that is no binlog most often is instead, said after the bytes. */
function lookalike(head: Uint8Array): string {
  if (head[0] === 0x1f && head[1] === 0x8b) return ' (gzip data: decompress it first)';
  if (head[0] === 0x7b) return " (JSON text: a dump's lines are made a binlog again by encode)";
  return '';
}

function checkMagic(head: Uint8Array): void {
  const is = (magic: Uint8Array) => head.length >= magic.length && magic.every((b, i) => head[i] === b);
  if (is(ENCRYPTED_BINLOG_MAGIC)) {
    const problem =
      'a MySQL 8 encrypted binlog (magic fd 62 69 6e): its events need the keyring (--keyring, the keyring option)';
    throw new BadMagicError(problem, { offset: 0 });
  }
  if (!is(BINLOG_MAGIC)) {
    const hex = Array.from(head.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new BadMagicError(
      head.length < BINLOG_MAGIC.length
        ? `the input ends inside the magic (${head.length} bytes)`
        : `not a binlog: starts with ${hex}, not fe 62 69 6e${lookalike(head)}`,
      { offset: 0 },
    );
  }
}

/**
 * Encodes events into a whole binlog file, magic included. A payload's events may be given nested or
 * flat; the first event must be a FORMAT_DESCRIPTION_EVENT (or START_EVENT_V3) unless `assumeFormat`.
 */
export function encodeBinlog(events: Iterable<BinlogEventInput>, options: EncodeOptions = {}): Uint8Array {
  const encoder = new BinlogEncoder(options);
  const parts: Uint8Array[] = [];
  for (const e of events) parts.push(...encoder.push(e));
  parts.push(...encoder.end());
  return concat(parts);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}
