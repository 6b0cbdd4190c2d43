/**
 * Where a replica stands, as the live client hands it out and a sink stores it: taken only between
 * transactions, so that a dump started again from a stored checkpoint gets each transaction after it
 * exactly once, none cut.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';

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
  /**
   * Set by a stream that began with a snapshot (`stream --snapshot`): false once the snapshot's point is
   * known and its rows are being sent, true once all of them are acknowledged. A start that finds it false
   * takes the snapshot again; absent, the stream took none.
   */
  snapshotDone?: boolean;
}

/** Where a dump starts again: a file and an offset, or a GTID state, the other left unset. */
export type ResumePoint =
  { file: string; position: number; gtid: undefined } | { gtid: string; file: undefined; position: undefined };

/**
 * The start of a dump that goes on after checkpoint `c`: its file and position, or its GTID state while
 * no file is known yet (a GTID start before its first transaction).
 */
export function resumeAt(c: Checkpoint): ResumePoint {
  return c.file === ''
    ? { gtid: c.gtid, file: undefined, position: undefined }
    : { file: c.file, position: c.position, gtid: undefined };
}

/**
 * A dump's events with the checkpoint after those handed out: what the live client gives, and what a
 * sink reads from without knowing how the dump is made.
 */
export interface CheckpointedEvents extends AsyncIterable<BinlogEvent> {
  /** Where to start again to get the transactions after those whose events have been handed out. */
  readonly checkpoint: Checkpoint;
  /** How many times the connection was made again after a loss. */
  readonly reconnects: number;
  /** Ends the dump and closes its connection. */
  close(): void;
}
