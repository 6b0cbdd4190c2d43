/**
 * The events of a served binlog, framed as the file readers frame them (runtime/io's Framer: the magic
 * checked, each event's size, its CRC32), read from an offset in chunks: what a dump sends, and what
 * the GTID lookups scan.
 */
import { EventTypes } from '../generated/events.js';
import { BINLOG_MAGIC, EventHeaderOffsets } from '../generated/header.js';
import { EventDecoder, type BinlogEvent, type DecodeOptions, type FramedEvent } from '../runtime/events/event-codec.js';
import { MARIADB_BINLOG_KEY_ID } from '../generated/encryption.js';
import { BinlogError } from '../runtime/core/errors.js';
import { Framer } from '../runtime/io/stream.js';
import type { ServedLog } from './logs.js';

const CHUNK = 1 << 20;

/** A served binlog's first event, the FORMAT_DESCRIPTION that says how the others are written. */
export interface LogFormat {
  /** Its bytes, as the file holds them. */
  bytes: Uint8Array;
  /** It decoded. */
  event: BinlogEvent;
  /** Whether the binlog's events end with a CRC32. */
  checksums: boolean;
  /** A MariaDB encrypt_binlog file's START_ENCRYPTION, the event after the FORMAT_DESCRIPTION: its bytes, decoded. */
  startEncryption?: { bytes: Uint8Array; event: BinlogEvent };
}

/** Binlogs that cannot be served: none, one that is no v4 binlog, events without a FORMAT_DESCRIPTION. */
export class UnservableError extends Error {}

/** The FORMAT_DESCRIPTION at offset 4, or undefined while the binlog is too short to hold it. */
export async function logFormat(log: ServedLog): Promise<LogFormat | undefined> {
  const head = await log.read(0, BINLOG_MAGIC.length + EventHeaderOffsets.flags);
  if (head.length < BINLOG_MAGIC.length + EventHeaderOffsets.flags) return undefined;
  const at = BINLOG_MAGIC.length;
  if (head[at + EventHeaderOffsets.typeCode] !== EventTypes.FORMAT_DESCRIPTION_EVENT) {
    throw new UnservableError(
      `${log.name} does not begin with a FORMAT_DESCRIPTION_EVENT: only binlogs of format v4 (MySQL 5.0 and later, ` +
        `MariaDB) are served`,
    );
  }
  const bytes = await eventAt(log, at);
  if (!bytes) return undefined;
  const decoder = new EventDecoder();
  const event = decoder.decode(bytes, at);
  const format: LogFormat = { bytes, event, checksums: decoder.format.checksums };
  const next = await eventAt(log, at + bytes.length);
  if (next?.[EventHeaderOffsets.typeCode] === EventTypes.START_ENCRYPTION_EVENT)
    format.startEncryption = { bytes: next, event: decoder.decode(next, at + bytes.length) };
  return format;
}

/** The whole event at `at`, or undefined while the binlog does not hold all of it. */
async function eventAt(log: ServedLog, at: number): Promise<Uint8Array | undefined> {
  const head = await log.read(at, EventHeaderOffsets.flags);
  if (head.length < EventHeaderOffsets.flags) return undefined;
  const size = new DataView(head.buffer, head.byteOffset).getUint32(EventHeaderOffsets.eventSize, true);
  const bytes = await log.read(at, size);
  return bytes.length < size ? undefined : bytes;
}

/**
 * Why an encrypt_binlog file cannot be served, if it cannot: a primary sends its events decrypted, which takes the
 * key of its START_ENCRYPTION, and the key must decrypt the first encrypted event.
 */
export async function encryptionProblem(log: ServedLog, format: LogFormat): Promise<string | undefined> {
  const start = format.startEncryption;
  if (!start) return undefined;
  const keyVersion = (start.event as { keyVersion?: number }).keyVersion;
  if (!log.keys?.has(MARIADB_BINLOG_KEY_ID)) {
    return (
      `${log.name} is encrypted (MariaDB encrypt_binlog, START_ENCRYPTION at ${start.event.pos}) with key id ` +
      `${MARIADB_BINLOG_KEY_ID} (version ${keyVersion}), and its events are served decrypted: give a key file ` +
      `that holds key ${MARIADB_BINLOG_KEY_ID} (--key-file)`
    );
  }
  try {
    await new LogFrames(log, start.event.pos + start.bytes.length).next();
  } catch (e) {
    if (e instanceof BinlogError) return `${log.name}: ${e.message}`;
    throw e;
  }
  return undefined;
}

/** Frames of one binlog from an event's offset: those there now, or also those that come, read as the binlog grows. */
export class LogFrames {
  private readonly framer: Framer;
  /** The file offset up to which bytes were pushed into the framer. */
  private read = 0;
  private started = false;

  constructor(
    readonly log: ServedLog,
    /** The offset of the first event wanted: a RangeError (from the Framer) when it is inside an event. */
    private readonly from: number,
  ) {
    this.framer = new Framer({ file: log.name, keys: log.keys });
  }

  /** The next frame that the binlog holds now, or undefined at its end (for now). */
  async next(): Promise<FramedEvent | undefined> {
    for (;;) {
      if (this.started || this.framer.skipTo(this.from)) {
        this.started = true;
        const frame = this.framer.drainFrames().next();
        if (!frame.done) return frame.value;
      }
      const bytes = await this.log.read(this.read, CHUNK);
      if (bytes.length === 0) return undefined;
      this.read += bytes.length;
      // The framer keeps views of what it is given: each read is a buffer of its own.
      this.framer.push(bytes);
    }
  }

  /** A frame of this binlog decoded, under the format its FORMAT_DESCRIPTION set. */
  decode(frame: FramedEvent): BinlogEvent {
    return this.framer.decodeFrame(frame);
  }

  /** The offset after the last frame handed out (where a dump stands). */
  get pos(): number {
    return Math.max(this.framer.pos, this.from);
  }
}

/**
 * The events of the logs with these type codes, in order, each decoded (under its binlog's FORMAT_DESCRIPTION), with
 * the decoder that read it.
 */
export async function* eventsOf(
  logs: ServedLog[],
  codes: ReadonlySet<number>,
  options: DecodeOptions = {},
): AsyncGenerator<{ place: { log: number; pos: number }; event: BinlogEvent; decoder: EventDecoder }> {
  for (let i = 0; i < logs.length; i++) {
    const frames = new LogFrames(logs[i]!, 4);
    const decoder = new EventDecoder({ ...options, verifyChecksum: false });
    for (let f; (f = await frames.next());) {
      if (f.typeCode === EventTypes.FORMAT_DESCRIPTION_EVENT || codes.has(f.typeCode))
        yield { place: { log: i, pos: f.pos }, event: decoder.decode(f.bytes, f.pos), decoder };
    }
  }
}
