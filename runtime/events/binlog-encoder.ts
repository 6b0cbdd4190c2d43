/**
 * Writing a binlog event after event, as `binlog encode` and `encodeBinlog` do: offsets tracked, and
 * MySQL's GTID transaction_length (the bytes of the whole transaction the GTID event starts, itself
 * included) computed like the other derived values: when it is null, or was the source's own sum of
 * its group's event sizes; any other value is kept as given, and an absent one stays absent (servers
 * before 8.0.2 do not write it). A group is held until it ends, so that its length is known before its
 * GTID event is written.
 */
import { EventTransactions } from '../../generated/events.js';
import { BINLOG_MAGIC } from '../../generated/header.js';
import { InternalError } from '../core/errors.js';
import { varintWidth } from '../core/reader.js';
import { packedWidth } from '../core/writer.js';
import { EventEncoder, moveEvent, type BinlogEventInput } from './event-codec.js';
import type { TableKnowledge } from './format-state.js';

type Gtid = BinlogEventInput & { transactionLength?: bigint | number | null };

export class BinlogEncoder {
  private readonly encoder: EventEncoder;
  private offset = BINLOG_MAGIC.length;
  private group: BinlogEventInput[] = [];
  private started = false;

  constructor(options: TableKnowledge = {}) {
    this.encoder = new EventEncoder(options);
  }

  /** The bytes ready to be written after this event: the magic first, a group once it is complete. */
  push(event: BinlogEventInput): Uint8Array[] {
    const out = this.start();
    const role = EventTransactions[event.type];
    const starts = role === 'starts';
    // The next GTID event ends a group as well as the events that are never in one.
    if (this.group.length && (starts || role === 'outside')) out.push(...this.flush());
    if (this.group.length || (starts && (event as Gtid).transactionLength !== undefined)) this.group.push(event);
    else out.push(this.write(event));
    return out;
  }

  /** The input is over: the bytes still held. */
  end(): Uint8Array[] {
    return [...this.start(), ...this.flush()];
  }

  private start(): Uint8Array[] {
    if (this.started) return [];
    this.started = true;
    return [BINLOG_MAGIC];
  }

  private write(event: BinlogEventInput): Uint8Array {
    const bytes = this.encoder.encode(event, this.offset);
    this.offset += bytes.length;
    return bytes;
  }

  private flush(): Uint8Array[] {
    const [gtid, ...rest] = this.group as [Gtid, ...BinlogEventInput[]];
    this.group = [];
    if (!gtid) return [];
    const sizes = [gtid, ...rest].map((e) => e.header.eventSize);
    const sourceSum = sizes.every((s) => s !== undefined) ? BigInt(sizes.reduce((a, b) => a! + b!, 0)!) : undefined;
    const given = gtid.transactionLength === null || gtid.transactionLength === undefined ? undefined : BigInt(gtid.transactionLength);
    if (given !== undefined && given !== sourceSum) return [this.write(gtid), ...rest.map((e) => this.write(e))];
    // Each event is encoded once (the GTID event twice when its own size cannot be foreseen: encodeGtid).
    // The rest first, placed as if the GTID event took no room (event sizes do not depend on where events
    // go); then the GTID event, whose length counts itself; then the rest moved after it, their computed
    // log_pos and CRC32 patched (moveEvent).
    const start = this.offset;
    const moved = rest.map((e) => ({ bytes: this.write(e), placement: { ...this.encoder.placement } }));
    const gtidBytes = this.encodeGtid(gtid, this.offset - start, start, given ?? sourceSum);
    for (const { bytes, placement } of moved) moveEvent(bytes, gtidBytes.length, placement);
    this.offset += gtidBytes.length;
    return [gtidBytes, ...moved.map((m) => m.bytes)];
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
    let length = sourceSize === undefined || sourceLength === undefined ? BigInt(restSize) : settle(restSize, sourceSize - width(sourceLength), width);
    for (let tries = 0; tries < 4; tries++) {
      const bytes = this.encoder.encode({ ...gtid, transactionLength: length } as BinlogEventInput, at);
      if (BigInt(restSize + bytes.length) === length) return bytes;
      length = settle(restSize, bytes.length - width(length), width);
    }
    throw new InternalError(`the GTID event's size does not settle with a transaction length of ${length}`, { offset: at, eventPos: at });
  }
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

/** How a GTID event type stores its transaction length: a serialization varint (tagged), else MySQL's packed integer. */
function lengthWidth(type: string): (n: bigint) => number {
  return type === 'GTID_TAGGED_LOG_EVENT' ? varintWidth : packedWidth;
}
