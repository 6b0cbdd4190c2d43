/**
 * Writing a binlog event after event, as `binlog encode` and `encodeBinlog` do: offsets tracked, and
 * MySQL's GTID transaction_length (the bytes of the whole transaction the GTID event starts, itself
 * included) computed like the other derived values: when it is null, or was the source's own sum of
 * its group's event sizes; any other value is kept as given, and an absent one stays absent (servers
 * before 8.0.2 do not write it). A group is held until it ends, so that its length is known before its
 * GTID event is written. A payload's events given flat, after it, are gathered into it first
 * (flat-payloads.ts).
 *
 * A binlog's first event says how the others are written (the header length, whether they carry a
 * CRC32): a FORMAT_DESCRIPTION_EVENT, or before MySQL 5.0 a START_EVENT_V3. Without one the events would
 * silently be written as a reader assumes them, which is refused unless asked for (`assumeFormat`).
 *
 * After a MariaDB START_ENCRYPTION event, each event is encrypted with the key given (`encryption`) once it
 * has its final offset, which is part of its IV; events still encrypted (ENCRYPTED_EVENT) are written as
 * they are.
 */
import { EventTransactions } from '../../generated/events.js';
import { BINLOG_MAGIC } from '../../generated/header.js';
import { BinlogError, EncodeError, InternalError } from '../core/errors.js';
import { varintWidth } from '../core/reader.js';
import { packedWidth } from '../core/writer.js';
import { ENCRYPTED, EventEncoder, moveEvent, type BinlogEventInput } from './event-codec.js';
import type { EncryptionOptions, FileEncryption } from './encryption.js';
import { ASSUMED_FORMAT } from './assumed-format.js';
import { FormatState, type TableKnowledge } from './format-state.js';
import { PayloadGatherer, type Sourced } from './flat-payloads.js';

type Gtid = BinlogEventInput & { transactionLength?: bigint | number | null };

export { ASSUMED_FORMAT };

export interface EncodeOptions extends TableKnowledge {
  /**
   * Write events that no FORMAT_DESCRIPTION_EVENT (nor START_EVENT_V3) comes before as a reader takes
   * them without one (ASSUMED_FORMAT), rather than refuse them (the default).
   */
  assumeFormat?: boolean;
  /** The keys and cipher with which the events after a START_ENCRYPTION event are encrypted. */
  encryption?: EncryptionOptions;
}

/** An event encoded at `at`, in clear, and the encryption that it is stored under once it stays there. */
interface Placed {
  bytes: Uint8Array;
  at: number;
  seal: FileEncryption | undefined;
}

export class BinlogEncoder {
  private readonly encoder: EventEncoder;
  private readonly assume: boolean;
  private readonly payloads = new PayloadGatherer();
  private offset = BINLOG_MAGIC.length;
  private group: Sourced[] = [];
  private started = false;
  private first = true;
  /** The first event was no FORMAT_DESCRIPTION_EVENT, and the events were written as ASSUMED_FORMAT says. */
  assumedFormat = false;

  constructor(options: EncodeOptions = {}) {
    this.encoder = new EventEncoder(options);
    this.assume = options.assumeFormat ?? false;
  }

  /**
   * The bytes ready to be written after this event: the magic first, a group once it is complete.
   * `source`, the event's JSON path in the input (`line 7: $`), starts the paths its errors name.
   */
  push(event: BinlogEventInput, source?: string): Uint8Array[] {
    // What a server sent a replica beside its file's events (BinlogEvent.notInFile) belongs in no file.
    if (event.notInFile !== undefined) return [];
    const item = { event, source };
    const out = this.start();
    let ready: Sourced[];
    try {
      if (this.first) this.checkFormat(event);
      ready = this.payloads.push(item);
    } catch (e) {
      throw placed(e, item);
    }
    for (const whole of ready) out.push(...this.pushWhole(whole));
    return out;
  }

  /** The input is over: the bytes still held. */
  end(): Uint8Array[] {
    const out = this.start();
    for (const whole of this.payloads.end()) out.push(...this.pushWhole(whole));
    return [...out, ...this.flush()];
  }

  private checkFormat(event: BinlogEventInput): void {
    this.first = false;
    const effect = FormatState.effectOf(this.encoder.typeCode(event));
    if (effect === 'sets-format' || effect === 'sets-v3-format') return;
    if (!this.assume) {
      throw new EncodeError(
        `the first event is ${event.type}, not the FORMAT_DESCRIPTION_EVENT with which a binlog begins ` +
          "and which says how its events are written. Put the dump's FORMAT_DESCRIPTION_EVENT first, " +
          `or write the events as a reader takes a binlog without one (${ASSUMED_FORMAT}) ` +
          'with --assume-format (the assumeFormat option)',
        '$.type',
      );
    }
    this.assumedFormat = true;
  }

  private pushWhole(item: Sourced): Uint8Array[] {
    const out: Uint8Array[] = [];
    const { event } = item;
    const role = EventTransactions[event.type];
    const starts = role === 'starts';
    // The next GTID event ends a group as well as the events that are never in one.
    if (this.group.length && (starts || role === 'outside')) out.push(...this.flush());
    if (this.group.length || (starts && (event as Gtid).transactionLength !== undefined)) this.group.push(item);
    else out.push(this.write(item));
    return out;
  }

  private start(): Uint8Array[] {
    if (this.started) return [];
    this.started = true;
    return [BINLOG_MAGIC];
  }

  private write(item: Sourced): Uint8Array {
    return sealed(this.encodePlain(item));
  }

  /** The event in clear at the current offset, which it moves past, and how it is to be sealed. */
  private encodePlain(item: Sourced): Placed {
    const at = this.offset;
    let bytes: Uint8Array;
    let seal: FileEncryption | undefined;
    try {
      seal = this.sealing(item.event);
      bytes = this.encoder.encode(item.event, at);
    } catch (e) {
      throw placed(e, item);
    }
    this.offset += bytes.length;
    return { bytes, at, seal };
  }

  /**
   * The encryption an event is written under: the file's after its START_ENCRYPTION, but for an event that
   * is still encrypted. Without the key, an event in clear there would make a file no reader reads.
   */
  private sealing(event: BinlogEventInput): FileEncryption | undefined {
    const encryption = this.encoder.format.encryption;
    if (!encryption || event.type === ENCRYPTED) return undefined;
    if (!encryption.key) {
      throw new EncodeError(`${event.type} comes after START_ENCRYPTION_EVENT: ${encryption.reason}`, '$.type');
    }
    return encryption;
  }

  private flush(): Uint8Array[] {
    const [first, ...rest] = this.group;
    this.group = [];
    if (!first) return [];
    const event = first.event as Gtid;
    const sizes = [event, ...rest.map((e) => e.event)].map((e) => e.header.eventSize);
    const sourceSum = sizes.every((s) => s !== undefined) ? BigInt(sizes.reduce((a, b) => a! + b!, 0)!) : undefined;
    const length = event.transactionLength;
    const given = length === null || length === undefined ? undefined : BigInt(length);
    if (given !== undefined && given !== sourceSum) return [this.write(first), ...rest.map((e) => this.write(e))];
    // Each event is encoded once (the GTID event twice when its own size cannot be foreseen: encodeGtid).
    // The rest first, placed as if the GTID event took no room (event sizes do not depend on where events
    // go); then the GTID event, whose length counts itself; then the rest moved after it, their computed
    // log_pos and CRC32 patched (moveEvent).
    const start = this.offset;
    const moved = rest.map((e) => ({ ...this.encodePlain(e), placement: { ...this.encoder.placement } }));
    let gtid: Placed;
    try {
      const seal = this.sealing(first.event);
      gtid = { at: start, seal, bytes: this.encodeGtid(event, this.offset - start, start, given ?? sourceSum) };
    } catch (e) {
      throw placed(e, first);
    }
    for (const m of moved) (moveEvent(m.bytes, gtid.bytes.length, m.placement), (m.at += gtid.bytes.length));
    this.offset += gtid.bytes.length;
    return [gtid, ...moved].map(sealed);
  }

  /**
   * The GTID event at `at`, carrying its transaction's length: the rest's `restSize` bytes and its own.
   * Its own size depends on that length only through the width of the integer that stores it, so its size
   * for one length gives its size for any: the length is solved for (settle) from the size the source gave
   * the event, less the width of the length it carried there (`sourceLength`), and the event is encoded
   * once with it. Without a source size, or after an edit of its own fields, the first encoding measures
   * it and a second carries the length (a tagged event's message size, a varint too, may ask one more).
   */
  private encodeGtid(gtid: Gtid, restSize: number, at: number, sourceLength: bigint | undefined): Uint8Array {
    const width = lengthWidth(gtid.type);
    const sourceSize = gtid.header.eventSize;
    let length =
      sourceSize === undefined || sourceLength === undefined
        ? BigInt(restSize)
        : settle(restSize, sourceSize - width(sourceLength), width);
    for (let tries = 0; tries < 4; tries++) {
      const bytes = this.encoder.encode({ ...gtid, transactionLength: length } as BinlogEventInput, at);
      if (BigInt(restSize + bytes.length) === length) return bytes;
      length = settle(restSize, bytes.length - width(length), width);
    }
    throw new InternalError(`the GTID event's size does not settle with a transaction length of ${length}`, {
      offset: at,
      eventPos: at,
    });
  }
}

/** An event's bytes as stored: encrypted at its offset when it is to be. */
function sealed(event: Placed): Uint8Array {
  return event.seal ? event.seal.encrypt(event.bytes, event.at) : event.bytes;
}

/**
 * An error placed in the input: under the event's source (`line 7: $.rows[2]`), or under the source of
 * the flat event it is in, for one of a gathered payload's events (`$.events[1]…`).
 */
function placed(e: unknown, item: Sourced): unknown {
  if (!(e instanceof BinlogError)) return e;
  const path = e.schemaPath ?? '';
  const inner = /^\$\.events\[(\d+)\]/.exec(path);
  const innerSource = inner ? item.inner?.[Number(inner[1])] : undefined;
  if (inner && innerSource !== undefined) return e.at(innerSource + path.slice(inner[0].length));
  return item.source === undefined ? e : e.under(item.source);
}

/**
 * The transaction length L that counts its own bytes: L = restSize + gtidSize + width(L), `gtidSize` the
 * GTID event's size without them. Widths grow with the value, so the first L that fits is the one.
 */
function settle(restSize: number, gtidSize: number, width: (n: bigint) => number): bigint {
  const fixed = BigInt(restSize + gtidSize);
  let length = fixed + 1n;
  while (fixed + BigInt(width(length)) !== length) length = fixed + BigInt(width(length));
  return length;
}

/**
 * How a GTID event type stores its transaction length: a serialization varint (tagged), else MySQL's packed integer.
 */
function lengthWidth(type: string): (n: bigint) => number {
  return type === 'GTID_TAGGED_LOG_EVENT' ? varintWidth : packedWidth;
}
