/**
 * Where a replica stands, taken only between transactions (runtime/io/transactions.ts says where they
 * end): a consumer that stores the checkpoint after handling an event, and later starts a dump from it,
 * gets each transaction after it exactly once, none cut.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { Transactions } from '../runtime/io/transactions.js';
import type { GtidState } from './gtid.js';

export interface Checkpoint {
  /**
   * The binlog file to start the next dump in. After a GTID start it is '' until the first transaction
   * has been handed out (the source skips to the GTID inside a file it names only as a ROTATE to that
   * file's start): resume such a dump by `gtid`.
   */
  file: string;
  /** The offset there of the first event not yet handled: the end of the last transaction handled. */
  position: number;
  /**
   * The GTID state once the transactions handled are: MariaDB's ('0-1-100'), or MySQL's GTID set (of
   * the transactions read, and of the start's when the dump started from a GTID set).
   */
  gtid: string;
}

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
    if (!outside && (e.type === 'GTID_EVENT' || e.type === 'GTID_LOG_EVENT' || e.type === 'GTID_TAGGED_LOG_EVENT')) this.pendingGtid = e;
    if (!ends) return;
    if (this.pendingGtid) this.gtids.add(this.pendingGtid as unknown as { type: string } & Record<string, unknown>);
    this.pendingGtid = undefined;
    const next = e.type === 'ROTATE_EVENT' && 'nextFile' in e && typeof e.nextFile === 'string' ? { file: e.nextFile, position: Number(e.position ?? 4n) } : undefined;
    this.current = { file: next?.file ?? e.file ?? this.current.file, position: next?.position ?? e.pos + e.header.eventSize, gtid: this.gtids.toString() };
  }
}
