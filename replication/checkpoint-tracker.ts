/**
 * The replica's checkpoint (protocol/checkpoint.ts), moved only at the end of a transaction, where
 * runtime/io/transactions.ts says one ends: a consumer that stores it after handling an event, and later
 * starts a dump from it, gets each transaction after it exactly once, none cut.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { GtidState } from '../protocol/gtid-sets.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { Transactions } from '../runtime/io/transactions.js';

/** Follows the events handed to the consumer and moves the checkpoint at each transaction's end. */
export class CheckpointTracker {
  private readonly transactions = new Transactions();
  private pendingGtid: BinlogEvent | undefined;
  private current: Checkpoint;

  constructor(
    start: { file: string; position: number },
    private readonly gtids: GtidState,
  ) {
    this.current = { file: start.file, position: start.position, gtid: gtids.toString() };
  }

  get checkpoint(): Checkpoint {
    return this.current;
  }

  /** An event of the file, in the stream's order (a TRANSACTION_PAYLOAD with its events inside). */
  step(e: BinlogEvent): void {
    const { begins, ends, outside } = this.transactions.step(e);
    if (begins) this.pendingGtid = undefined;
    if (!outside && (e.type === 'GTID_EVENT' || e.type === 'GTID_LOG_EVENT' || e.type === 'GTID_TAGGED_LOG_EVENT'))
      this.pendingGtid = e;
    if (!ends) return;
    if (this.pendingGtid) this.gtids.add(this.pendingGtid);
    this.pendingGtid = undefined;
    const next =
      e.type === 'ROTATE_EVENT' && 'nextFile' in e && typeof e.nextFile === 'string'
        ? { file: e.nextFile, position: Number(e.position ?? 4n) }
        : undefined;
    this.current = {
      file: next?.file ?? e.file ?? this.current.file,
      position: next?.position ?? e.pos + e.header.eventSize,
      gtid: this.gtids.toString(),
    };
  }
}
