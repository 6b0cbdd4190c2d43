/**
 * One event, both ways: an event's bytes to a typed event (header, body, checksum verified) and back.
 * The FormatState carried from event to event is what makes a v4 binlog readable: each decoder or
 * encoder owns one.
 */
import { crc32 } from 'node:zlib';
import {
  decodeEventBody,
  encodeEventBody,
  eventBodyFromJson,
  EventTypeNames,
  EventTypes,
  type EventBody,
  type EventBodyInput,
  EventBodyStructs,
  EventCodesWithBody,
  type UndescribedEventType,
} from '../../generated/events.js';
import type { FormatDescriptionEvent, FormatDescriptionEventInput } from '../../generated/control.js';
import type { TransactionPayloadEvent } from '../../generated/payload.js';
import { decodeTableMapEvent, type TableMapEventInput } from '../../generated/rows.js';
import {
  decodeEventHeader,
  encodeEventHeader,
  EventHeaderFromJson,
  EventHeaderOffsets,
  type EventHeader,
  type EventHeaderInput,
} from '../../generated/header.js';
import { BinlogError, ChecksumError, EncodeError, InternalError, LengthError } from '../core/errors.js';
import { jArray, jBool, jBytes, jEnum, jNum, jObject } from '../core/dump-json.js';
import { packPayload, payloadEvents, splitEvents } from './payload.js';
import {
  CHECKSUM_LENGTH,
  checksumAware,
  eventCrc,
  FDE_CODE,
  fdeServerVersion,
  FormatState,
  storedServerVersion,
  type TableKnowledge,
} from './format-state.js';
import { Reader, type Text } from '../core/reader.js';
import type { RowChange } from '../core/values.js';
import type { LazyRowChange } from '../rows/lazy.js';
import type { RowForm } from '../rows/row-tables.js';
import { textToBytes, Writer } from '../core/writer.js';
import type { EncryptionKeys, EncryptionOptions, EventCipherName } from './encryption.js';

/** The type of an event that START_ENCRYPTION made unreadable without the key. */
export const ENCRYPTED = 'ENCRYPTED_EVENT';

/**
 * The type of an event of a described type that could not be decoded and was delivered raw all the same
 * (ReadOptions.onError answered 'skip'): `header.typeCode` says what it is.
 */
export const UNDECODED = 'UNDECODED_EVENT';

/**
 * The types of events read as raw bytes. None is the name of a decoded body, so that `switch (event.type)`
 * narrows an event to its body's fields.
 */
export type RawEventType = UndescribedEventType | `UNKNOWN_${number}` | typeof ENCRYPTED | typeof UNDECODED;

/**
 * An event whose body no schema describes yet, that is encrypted, or that could not be decoded: its body bytes, kept
 * whole.
 */
export interface RawBody {
  type: RawEventType;
  raw: Uint8Array;
  /** Why an ENCRYPTED_EVENT could not be read: the key it needs, in one sentence. */
  reason?: string;
}

/** A raw body to encode: any type name, its code in the header when the name has none. */
export interface RawBodyInput {
  type: string;
  raw: Uint8Array;
}

export type BinlogEvent = {
  /**
   * The binlog file the event was read from, as the server names it (the last part of the path a reader
   * was given; absent from standard input and bytes in memory). Informational: encoding ignores it.
   */
  file?: string;
  /** File offset of the event's first byte. Informational: encoding ignores it. */
  pos: number;
  header: EventHeader;
  /** The stored CRC32, when the event has one. */
  checksum?: number;
  /** A TRANSACTION_PAYLOAD's inner events, each `pos` its offset within the uncompressed payload (nested form). */
  events?: BinlogEvent[];
  /**
   * Flat form (runtime/events/flat-payloads.ts): this TRANSACTION_PAYLOAD's events are the events after it that carry
   * `inPayload`.
   */
  eventsFollow?: true;
  /**
   * Flat form: this event is inside the TRANSACTION_PAYLOAD at this file offset (`pos` is its offset within the
   * uncompressed payload).
   */
  inPayload?: number;
  /**
   * An event a server sent a replica that is not in its binlog file at `pos` (replication/): one it
   * made up or resent out of place ('artificial': the ROTATE that names the file a dump starts in, the
   * file's FORMAT_DESCRIPTION and START_ENCRYPTION resent with log_pos 0, MariaDB's GTID_LIST of the
   * replica's start state: LOG_EVENT_ARTIFICIAL_F or log_pos 0), or a heartbeat. Absent from every event of
   * a file. Encoding leaves such events out.
   */
  notInFile?: NotInFile;
} & (EventBody | RawBody);

/** Why an event a server sent is not one of its file's: see BinlogEvent.notInFile. */
export type NotInFile = 'artificial' | 'heartbeat';

export type BinlogEventInput = {
  file?: string;
  pos?: number;
  /** Without `typeCode`, the code the event's type is stored as under the FDE in force. */
  header: Omit<EventHeaderInput, 'logPos' | 'typeCode'> & { logPos?: number | null; typeCode?: number };
  checksum?: number;
  /** A TRANSACTION_PAYLOAD's inner events: given, they are encoded into its payload. */
  events?: BinlogEventInput[];
  /** A TRANSACTION_PAYLOAD whose events are the events after it that carry `inPayload` (BinlogEncoder gathers them). */
  eventsFollow?: boolean;
  /** An event of the TRANSACTION_PAYLOAD given before it, whose `pos` is this. */
  inPayload?: number;
  /** A server sent it, but its file does not hold it here: it is not written. */
  notInFile?: string;
} & (EventBodyInput | RawBodyInput);

const PAYLOAD_CODE = EventTypes.TRANSACTION_PAYLOAD_EVENT;

/** The server's name for an event type code, or UNKNOWN_<code>. */
export function eventTypeName(code: number): string {
  return EventTypeNames[code] ?? `UNKNOWN_${code}`;
}

/**
 * An event framed and checked but not decoded: its bytes (header, body and checksum), where and what it is. An
 * event of a MariaDB encrypt_binlog file read with its key is framed decrypted.
 */
export interface FramedEvent {
  /** File offset of the event's first byte. */
  pos: number;
  typeCode: number;
  bytes: Uint8Array;
}

export interface DecodeOptions extends TableKnowledge {
  /** Check each event's CRC32 (default true). */
  verifyChecksum?: boolean;
  /**
   * 'lazy': each row image a LazyRow (runtime/rows/lazy.ts), a view whose cells are decoded when read,
   * the events then typed LazyBinlogEvent; 'eager' (the default): every cell decoded into the row object.
   */
  rows?: RowForm;
  /**
   * Keys by key id (a file_key_management key file's, parseKeyFile) with which the events of a MariaDB
   * encrypt_binlog file are decrypted; without the key they needs they are ENCRYPTED_EVENTs with a `reason`.
   */
  keys?: EncryptionKeys;
  /** The cipher they were encrypted with, when known; otherwise the first encrypted event tells it. */
  cipher?: EventCipherName;
}

export type { RowForm };

/** An event as the readers give it under `rows: 'lazy'`: each change's images LazyRow views. */
export type LazyBinlogEvent = WithLazyRows<BinlogEvent>;

/**
 * Each member of the union by itself (`E extends unknown` distributes): the rows events' rows, the others' inner
 * events.
 */
type WithLazyRows<E> = E extends unknown
  ? 'rows' extends keyof E
    ? E extends { rows?: RowChange[] }
      ? Omit<E, 'rows'> & { rows?: LazyRowChange<NonNullable<E['rows']>[number]>[] }
      : E
    : Omit<E, 'events'> & { events?: LazyEvents }
  : never;

/** A payload's inner events under `rows: 'lazy'` (an interface, which may refer to the type it is part of). */
export interface LazyEvents extends Array<LazyBinlogEvent> {}

export class EventDecoder {
  readonly format: FormatState;
  /** The `file` the events decoded are said to come from. */
  file: string | undefined;
  private readonly verify: boolean;

  constructor(options: DecodeOptions = {}, format = new FormatState(options, encryptionOf(options))) {
    this.verify = options.verifyChecksum ?? true;
    this.format = format;
  }

  /** Decodes one whole event, `bytes` exactly, found at file offset `pos`. */
  decode(bytes: Uint8Array, pos: number): BinlogEvent {
    try {
      const plain = this.plaintext(bytes, pos);
      return plain ? this.decodeUnchecked(plain, pos, this.file) : this.encryptedEvent(bytes, pos);
    } catch (e) {
      throw placed(e, bytes, pos, this.format);
    }
  }

  /** Decodes an event as `frame` gave it: decrypted already when the key decrypted it. */
  decodeFrame(frame: FramedEvent): BinlogEvent {
    if (!this.format.encryption?.key) return this.decode(frame.bytes, frame.pos);
    try {
      return this.decodeUnchecked(frame.bytes, frame.pos, this.file);
    } catch (e) {
      throw placed(e, frame.bytes, frame.pos, this.format);
    }
  }

  /** The event's bytes decrypted after a START_ENCRYPTION, as they are before one; undefined without the key. */
  private plaintext(bytes: Uint8Array, pos: number): Uint8Array | undefined {
    const encryption = this.format.encryption;
    if (!encryption) return bytes;
    return encryption.key ? encryption.decrypt(bytes, pos, this.isPlaintext) : undefined;
  }

  /** Whether decrypted bytes are the event: its CRC32 agrees, or without checksums its log_pos is its end. */
  private readonly isPlaintext = (plain: Uint8Array, pos: number): boolean => {
    const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
    if (!this.format.checksums) return view.getUint32(EventHeaderOffsets.logPos, true) === pos + plain.length;
    const bodyEnd = plain.length - CHECKSUM_LENGTH;
    return bodyEnd >= 0 && eventCrc(plain, bodyEnd, crc32) === view.getUint32(bodyEnd, true);
  };

  /**
   * Checks one whole event without decoding its body: its length, and its CRC32 unless told not to. The
   * events that change how later ones read (FDE, TABLE_MAP, START_ENCRYPTION …) are decoded, so that the
   * checks follow the format and this decoder can still decode any later event.
   */
  frame(bytes: Uint8Array, pos: number): FramedEvent {
    if (this.format.encryption?.key) return this.framePlaintext(bytes, pos);
    const typeCode = bytes[EventHeaderOffsets.typeCode]!;
    if (this.format.encryption || this.format.follows(this.format.realCode(typeCode))) this.decode(bytes, pos);
    else {
      try {
        const bodyEnd = this.bodyEnd(bytes, pos, this.format.checksums);
        if (this.format.checksums) this.verifyChecksum(bytes, pos, bodyEnd);
      } catch (e) {
        throw e instanceof BinlogError ? e.atEvent(pos, typeCode, eventTypeName(this.format.realCode(typeCode))) : e;
      }
    }
    return { pos, typeCode, bytes };
  }

  /**
   * An event after START_ENCRYPTION, with the key: framed as its plaintext, which is decoded (and so checked), as
   * a file written in clear would frame it. Its offset and length are the stored event's.
   */
  private framePlaintext(stored: Uint8Array, pos: number): FramedEvent {
    try {
      const bytes = this.plaintext(stored, pos)!;
      this.decodeUnchecked(bytes, pos, this.file);
      return { pos, typeCode: bytes[EventHeaderOffsets.typeCode]!, bytes };
    } catch (e) {
      throw placed(e, stored, pos, this.format);
    }
  }

  /** Where the event's body ends (before its CRC32, if it has one), checked against the header's length. */
  private bodyEnd(bytes: Uint8Array, pos: number, hasChecksum: boolean): number {
    const bodyEnd = bytes.length - (hasChecksum ? CHECKSUM_LENGTH : 0);
    if (bodyEnd < this.format.headerLength) {
      throw new LengthError(`event of ${bytes.length} bytes is shorter than its header`, {
        offset: pos,
        schemaPath: 'EventHeader',
      });
    }
    return bodyEnd;
  }

  /** The CRC32 stored at `bodyEnd`, checked against the bytes before it unless checks are turned off. */
  private verifyChecksum(bytes: Uint8Array, pos: number, bodyEnd: number): number {
    const stored =
      (bytes[bodyEnd]! | (bytes[bodyEnd + 1]! << 8) | (bytes[bodyEnd + 2]! << 16) | (bytes[bodyEnd + 3]! << 24)) >>> 0;
    if (this.verify) {
      const actual = eventCrc(bytes, bodyEnd, crc32);
      if (actual !== stored) throw new ChecksumError(stored, actual, { offset: pos + bodyEnd, schemaPath: 'checksum' });
    }
    return stored;
  }

  /**
   * An event after START_ENCRYPTION: all but its length (bytes 9-12) is ciphertext, its CRC32 inside it.
   * Without the key it is kept whole: the header fields as stored (ciphertext, but for eventSize) and
   * the rest as raw bytes, typed ENCRYPTED_EVENT so that nothing reads it as plaintext, with the reason.
   */
  private encryptedEvent(bytes: Uint8Array, pos: number): BinlogEvent {
    const ctx = this.format.context(0, false);
    ctx.hasChecksum = false;
    const r = new Reader(bytes, 0, this.format.headerLength, pos);
    const header = decodeEventHeader(r, ctx);
    const reason = this.format.encryption?.reason;
    const raw = bytes.subarray(this.format.headerLength);
    return { ...this.named(pos), header, type: ENCRYPTED, raw, reason } as BinlogEvent;
  }

  /**
   * The event as raw bytes, without decoding its body: what an undecodable event is delivered as when
   * the caller skips it, typed UNDECODED_EVENT when its type has a body (never a body's name without its
   * fields). Header and checksum are split off as the format in force says.
   */
  raw(stored: Uint8Array, pos: number): BinlogEvent {
    const bytes = this.format.encryption?.ready ? this.plaintext(stored, pos)! : stored;
    if (this.format.encryption && bytes === stored) return this.encryptedEvent(stored, pos);
    const code = this.format.realCode(bytes[EventHeaderOffsets.typeCode]!);
    const ctx = this.format.context(
      code,
      code === FDE_CODE && checksumAware(fdeServerVersion(bytes, this.format.headerLength)),
    );
    const headerEnd = Math.min(this.format.headerLength, bytes.length);
    // A checksum is the event's last four bytes; where a forged header length reaches into them there is
    // none to keep apart, and every byte after the header stays in the body, so that none is read twice.
    const checksummed = ctx.hasChecksum && bytes.length - CHECKSUM_LENGTH >= headerEnd;
    const bodyEnd = checksummed ? bytes.length - CHECKSUM_LENGTH : bytes.length;
    const header = decodeEventHeader(new Reader(bytes, 0, headerEnd, pos), ctx);
    const type = EventCodesWithBody.has(code) ? UNDECODED : eventTypeName(code);
    const event = { ...this.named(pos), header, type, raw: bytes.subarray(headerEnd, bodyEnd) } as BinlogEvent;
    if (checksummed) event.checksum = new DataView(bytes.buffer, bytes.byteOffset + bodyEnd, 4).getUint32(0, true);
    return event;
  }

  /** An event's `file` and `pos`, `file` first when there is one (as decodeUnchecked writes them). */
  private named(pos: number): Pick<BinlogEvent, 'file' | 'pos'> {
    return this.file === undefined ? { pos } : { file: this.file, pos };
  }

  private decodeUnchecked(bytes: Uint8Array, pos: number, file: string | undefined): BinlogEvent {
    const format = this.format;
    // The header keeps the code as stored; the body is the event it stands for.
    const code = format.realCode(bytes[EventHeaderOffsets.typeCode]!);
    const effect = FormatState.effectOf(code);
    if (effect === 'sets-v3-format') format.startV3(FormatState.isV1Start(bytes.length));
    const aware = code === FDE_CODE && checksumAware(fdeServerVersion(bytes, format.headerLength));
    const ctx = format.context(code, aware);
    const bodyEnd = this.bodyEnd(bytes, pos, ctx.hasChecksum);
    // One DataView for the whole event: the header's reader and the body's share it.
    const r = new Reader(bytes, 0, format.headerLength, pos);
    const header = decodeEventHeader(r, ctx);
    const checksum = ctx.hasChecksum ? this.verifyChecksum(bytes, pos, bodyEnd) : undefined;

    r.end = bodyEnd;
    const event = (file === undefined ? { pos, header } : { file, pos, header }) as BinlogEvent;
    if (!decodeEventBody(code, r, ctx, event)) {
      Object.assign(event, { type: eventTypeName(code), raw: r.rest() });
    } else {
      r.done(event.type);
    }
    if (checksum !== undefined) event.checksum = checksum;
    if (code === PAYLOAD_CODE)
      event.events = this.innerEvents(event as BinlogEvent & TransactionPayloadEvent, pos + bodyEnd);
    format.after(event, effect === 'maps-table' ? bytes.subarray(format.headerLength, bodyEnd) : undefined);
    return event;
  }

  /** The events inside a payload that ends at file offset `end` (errors inside it are placed at its start). */
  private innerEvents(event: TransactionPayloadEvent, end: number): BinlogEvent[] {
    const at = end - event.payload.length;
    const bytes = payloadEvents(event, at);
    return this.format.withoutChecksums(() =>
      splitEvents(bytes, at, (inner, offset) => {
        try {
          return this.decodeUnchecked(inner, offset, undefined);
        } catch (e) {
          throw e instanceof BinlogError ? e.within(`inner event at ${offset} of the payload`, at) : e;
        }
      }),
    );
  }
}

/** The decode options' keys and cipher as the format state takes them. */
function encryptionOf(options: DecodeOptions): EncryptionOptions | undefined {
  return options.keys ? { keys: options.keys, cipher: options.cipher } : undefined;
}

/** Where the last encoded event's bytes depend on its offset, for moving them elsewhere (moveEvent). */
export interface Placement {
  /** Its log_pos is its end offset (computed), not a value the input kept. */
  logPosComputed: boolean;
  hasChecksum: boolean;
}

export class EventEncoder {
  readonly format: FormatState;
  /** The last encoded event's: see moveEvent. */
  readonly placement: Placement = { logPosComputed: false, hasChecksum: false };
  private readonly w = new Writer(4096);
  /** Reads the fields of a raw event that changes the format state: they are only in its bytes. */
  private readonly reader: EventDecoder;

  constructor(options: TableKnowledge & { encryption?: EncryptionOptions } = {}) {
    this.format = new FormatState(options, options.encryption);
    this.reader = new EventDecoder({ verifyChecksum: false }, this.format);
  }

  /**
   * Encodes one event that will start at file offset `offset`. An EncodeError names the JSON path of what
   * it refuses within the event (`$.rows[2].after.id`), where it is one of the event's keys.
   */
  encode(event: BinlogEventInput, offset: number): Uint8Array {
    try {
      return this.encodeUnplaced(event, offset);
    } catch (e) {
      const body = EventBodyStructs[event.type];
      throw e instanceof EncodeError && body !== undefined ? e.rebased(body, '$') : e;
    }
  }

  /** The real type code of an event to encode: its type's, under the FDE in force. */
  typeCode(event: BinlogEventInput): number {
    return this.format.realCode(this.storedCode(event));
  }

  private encodeUnplaced(event: BinlogEventInput, offset: number): Uint8Array {
    const stored = this.storedCode(event);
    const code = this.format.realCode(stored);
    if (event.events) {
      if (code !== PAYLOAD_CODE) throw new EncodeError('only a TRANSACTION_PAYLOAD_EVENT holds events', '$.events');
      event = this.withPayload(event, event.events);
    }
    const w = this.w;
    w.reset();
    const encrypted = event.type === ENCRYPTED;
    // Whether the FDE carries its algorithm and a CRC32, from its version's bytes as the decoder tells it.
    const aware =
      code === FDE_CODE &&
      !encrypted &&
      checksumAware(textToBytes((event as { serverVersion?: Text }).serverVersion ?? ''));
    // A v1 header has no flags (nor logPos), as the decoder gives it; v3 and v4 headers always have them.
    if (FormatState.effectOf(code) === 'sets-v3-format' && !encrypted)
      this.format.startV3(event.header.flags === undefined);
    const ctx = this.format.context(code, aware);
    if (encrypted) ctx.hasChecksum = false; // an encrypted event's CRC is inside its ciphertext
    encodeEventHeader(w, { ...event.header, typeCode: stored, eventSize: 0, logPos: 0 }, ctx);
    if ('raw' in event) w.bytes(event.raw);
    else encodeEventBody(w, event as EventBodyInput, ctx);
    const size = w.pos + (ctx.hasChecksum ? CHECKSUM_LENGTH : 0);
    w.patchU32(EventHeaderOffsets.eventSize, size, 'EventHeader.eventSize');
    const given = givenLogPos(event);
    this.placement.logPosComputed = given === undefined && ctx.headerLength > EventHeaderOffsets.logPos;
    this.placement.hasChecksum = ctx.hasChecksum;
    if (ctx.headerLength > EventHeaderOffsets.logPos) {
      w.patchU32(EventHeaderOffsets.logPos, given ?? offset + size, 'EventHeader.logPos');
    }
    if (ctx.hasChecksum) w.u32(eventCrc(w.view(), w.pos, crc32));
    const bytes = w.finish();
    // After START_ENCRYPTION nothing changes the state any more: a decoder reads no later event.
    if (!encrypted && !this.format.encrypted && this.format.follows(code)) {
      try {
        this.leaveState(event, code, bytes, offset, ctx.hasChecksum);
      } catch (e) {
        throw placed(e, bytes, offset, this.format);
      }
    }
    return bytes;
  }

  /**
   * What the event changes for those after it, exactly as a decoder of `bytes` would have it, taken from
   * the input, by its effect: an FDE as its bytes read back (fdeAsRead), START_EVENT_V3 and START_ENCRYPTION by their
   * type.
   * A TABLE_MAP's table needs the metadata the schema computes from the stored bytes (realType, maxLength,
   * bits), which an input leaves out: its body is read for them, and only when the table id's last
   * TABLE_MAP had other bytes. A raw event has its fields only as bytes: it is read whole.
   */
  private leaveState(
    event: BinlogEventInput,
    code: number,
    bytes: Uint8Array,
    offset: number,
    hasChecksum: boolean,
  ): void {
    if ('raw' in event) {
      this.reader.decode(bytes, offset);
      return;
    }
    const effect = FormatState.effectOf(code);
    if (effect === 'sets-format' && isFormatDescriptionInput(event)) {
      this.format.after(fdeAsRead(event, hasChecksum, offset));
      return;
    }
    if (effect !== 'maps-table') {
      this.format.after(event);
      return;
    }
    const ctx = this.format.context(code, false);
    const body = new Reader(
      bytes,
      this.format.headerLength,
      bytes.length - (hasChecksum ? CHECKSUM_LENGTH : 0),
      offset,
    );
    const bodyBytes = bytes.subarray(body.pos, body.end);
    this.format.tables.registerBody((event as TableMapEventInput).tableId, bodyBytes, () =>
      decodeTableMapEvent(body, ctx),
    );
  }

  /**
   * The type code to write: the header's, which must stand for the event's type under the FDE in force
   * (a 5.1-wl2325 tree stores some types under other codes), or else the one its type is stored as.
   */
  private storedCode(event: BinlogEventInput): number {
    const named = typeCodeOf(event.type);
    const given = event.header.typeCode;
    if (given === undefined) {
      if (named === undefined)
        throw new EncodeError(`${event.type} has no type code: give header.typeCode`, '$.header.typeCode');
      return this.format.storedCode(named);
    }
    if (named !== undefined && named !== this.format.realCode(given)) {
      throw new EncodeError(
        `type ${event.type} is code ${this.format.storedCode(named)}, but header.typeCode is ${given}`,
        '$.type',
      );
    }
    return given;
  }

  /**
   * A payload event with its payload made from `events` (log_pos 0 unless given, no checksums); they
   * are encoded first, so that a TABLE_MAP among them is known to the rows after it.
   */
  private withPayload(event: BinlogEventInput, events: BinlogEventInput[]): BinlogEventInput {
    const plain = new Writer();
    this.format.withoutChecksums(() =>
      events.forEach((e, i) => {
        try {
          plain.bytes(this.encode({ ...e, header: { ...e.header, logPos: e.header.logPos ?? 0 } }, plain.pos));
        } catch (err) {
          throw err instanceof BinlogError ? err.under(`$.events[${i}]`) : err;
        }
      }),
    );
    return {
      ...event,
      ...packPayload(event as Partial<TransactionPayloadEvent>, plain.view()),
      events: undefined,
    } as BinlogEventInput;
  }
}

/**
 * An FDE as a decoder reads back what it was written as, in what the format state takes from it: the
 * checksum algorithm only when the event carries one, the server version as its padded field reads, and
 * post-header lengths of its own rather than the caller's array, which the caller may change afterwards.
 */
/** An input with the fields of a FORMAT_DESCRIPTION's body, whatever type name stores it. */
function isFormatDescriptionInput(e: BinlogEventInput): e is BinlogEventInput & FormatDescriptionEventInput {
  return 'binlogVersion' in e && 'serverVersion' in e && 'postHeaderLengths' in e;
}

function fdeAsRead(
  fde: FormatDescriptionEventInput,
  hasChecksum: boolean,
  pos: number,
): FormatDescriptionEvent & { type: string; pos: number } {
  return {
    ...fde,
    type: 'FORMAT_DESCRIPTION_EVENT',
    pos,
    serverVersion: storedServerVersion(fde.serverVersion),
    postHeaderLengths: [...fde.postHeaderLengths],
    checksumAlg: hasChecksum ? fde.checksumAlg : undefined,
  };
}

/**
 * An error met reading (or taking the state of) the event `bytes` at file offset `pos`, said to be there;
 * a bug's, which is no BinlogError, as a typed one all the same.
 */
function placed(e: unknown, bytes: Uint8Array, pos: number, format: FormatState): BinlogError {
  const code = bytes[EventHeaderOffsets.typeCode];
  const name = code === undefined ? undefined : eventTypeName(format.realCode(code));
  if (e instanceof BinlogError) return e.atEvent(pos, code, name);
  return new InternalError(`internal error: ${(e as Error).message}`, {
    offset: pos,
    eventPos: pos,
    eventType: code,
    eventTypeName: name,
  });
}

/**
 * The header's log_pos to keep: undefined when it is the event's end offset in the output (computed), that
 * is unless the input gives another value that was not simply its own end in the source (0, a v3 start
 * offset, a master's position in a relay log).
 */
function givenLogPos(event: BinlogEventInput): number | undefined {
  const given = event.header.logPos;
  if (given === undefined || given === null) return undefined;
  if (event.pos !== undefined && event.header.eventSize !== undefined && given === event.pos + event.header.eventSize)
    return undefined;
  return given;
}

/**
 * An encoded event moved `by` bytes further into the output: a computed log_pos follows it, and then its
 * CRC32. Patching is the whole cost; nothing is encoded again.
 */
export function moveEvent(bytes: Uint8Array, by: number, placement: Placement): void {
  if (!placement.logPosComputed || by === 0) return;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  dv.setUint32(EventHeaderOffsets.logPos, dv.getUint32(EventHeaderOffsets.logPos, true) + by, true);
  if (placement.hasChecksum)
    dv.setUint32(bytes.length - CHECKSUM_LENGTH, eventCrc(bytes, bytes.length - CHECKSUM_LENGTH, crc32), true);
}

/**
 * An event from its line in the dump. `header.logPos` may be absent or null (then it is computed);
 * derived fields may be absent (they are computed anyway); `pos` is informational.
 */
export function eventFromJson(j: unknown, path = '$'): BinlogEventInput {
  const o = jObject(j, path);
  const type = o.type;
  if (typeof type !== 'string') throw new EncodeError('expected the event type name', `${path}.type`);
  const h = jObject(o.header, `${path}.header`);
  const logPos = h.logPos === null || h.logPos === undefined ? undefined : jNum(h.logPos, `${path}.header.logPos`);
  // Whether the code stands for the type depends on the FDE in force: the encoder checks it.
  const typeCode = h.typeCode === undefined ? undefined : jNum(h.typeCode, `${path}.header.typeCode`);
  const header = EventHeaderFromJson({ ...h, logPos: logPos ?? 0, typeCode: typeCode ?? 0 }, `${path}.header`);
  const base = {
    header: { ...header, logPos, typeCode },
    ...(o.pos !== undefined ? { pos: jNum(o.pos, `${path}.pos`) } : {}),
    ...(o.inPayload !== undefined ? { inPayload: jNum(o.inPayload, `${path}.inPayload`) } : {}),
    ...(o.notInFile !== undefined ? { notInFile: String(jEnum(o.notInFile, `${path}.notInFile`)) } : {}),
  };
  if (o.raw !== undefined) return { ...base, type, raw: jBytes(o.raw, `${path}.raw`) };
  const events =
    o.events === undefined
      ? undefined
      : jArray(o.events, `${path}.events`).map((e, i) => eventFromJson(e, `${path}.events[${i}]`));
  const eventsFollow = o.eventsFollow === undefined ? undefined : jBool(o.eventsFollow, `${path}.eventsFollow`);
  // Inner events make the payload: it may be left out.
  const fields = (events || eventsFollow) && o.payload === undefined ? { ...o, payload: { hex: '' } } : o;
  // A GTID's transaction_length of null asks for it to be computed (runtime/events/binlog-encoder.ts).
  const toCompute = o.transactionLength === null;
  const body = eventBodyFromJson(type, toCompute ? { ...fields, transactionLength: undefined } : fields, path);
  if (!body) throw new EncodeError(`${type} has no schema: give its body as "raw": {"hex": …}`, path);
  return {
    ...base,
    ...body,
    ...(toCompute ? { transactionLength: null } : {}),
    ...(events ? { events } : {}),
    ...(eventsFollow !== undefined ? { eventsFollow } : {}),
  } as BinlogEventInput;
}

/** The code of a type name (`UNKNOWN_<code>` included); undefined for a name no server defines. */
function typeCodeOf(type: string): number | undefined {
  const unknown = /^UNKNOWN_(\d+)$/.exec(type);
  if (unknown) return Number(unknown[1]);
  return (EventTypes as Record<string, number>)[type];
}

/**
 * Narrows an event to a decoded body of one type, as `event.type === type` does (raw, encrypted and
 * undecoded events have types of their own).
 */
export function isEventType<T extends EventBody['type']>(
  event: BinlogEvent,
  type: T,
): event is Extract<BinlogEvent, { type: T }> {
  return event.type === type;
}
