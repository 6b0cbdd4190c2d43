/**
 * What a broker sink is to the streamer (stream.ts): messages published in order with ids of their own,
 * each acknowledged once the broker has stored it, and a checkpoint store beside them. NATS JetStream
 * (nats.ts) is the one shipped; a Kafka sink would be another `Sink` (an idempotent producer for the
 * ids, a compacted topic for the checkpoint).
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { HistoryEntry } from '../runtime/tables/history.js';

/** One change record on its way: where it goes, the id that makes a resend a duplicate, its body. */
export interface SinkMessage {
  subject: string;
  /** Deterministic: the same change always has the same id, so that a broker drops what it already has. */
  id: string;
  body: Uint8Array;
}

/**
 * Where a sink reports what became of its messages, by the sequence number each was published with.
 * No promise is made per message: a stream of tens of thousands a second would spend more on them than
 * the broker spends storing the messages.
 */
export interface SinkAcks {
  /** The message published as `seq` is stored; `duplicate` when the broker already had it. */
  acked(seq: number, duplicate: boolean): void;
  /**
   * The sink is lost: the broker refused the message published as `seq`, or the connection closed
   * (`seq` undefined). Nothing published on this sink after it counts any more.
   */
  lost(error: Error, seq?: number): void;
}

/**
 * One connection to a broker. Messages are stored in the order they are published; each is reported to
 * the sink's `SinkAcks` once stored, and a loss loses the sink: the streamer opens another and starts
 * again from the last checkpoint, so that what was unsent on the lost one is never sent after what the
 * new one sends.
 */
export interface Sink {
  /** Sends `message`, numbered `seq` (0, 1, 2… on this sink): its acknowledgement names that number. */
  publish(message: SinkMessage, seq: number): void;
  /** The checkpoint written last, if any. */
  readCheckpoint(): Promise<Checkpoint | undefined>;
  /** Stores the checkpoint; the streamer writes one only when the messages before it are acknowledged. */
  writeCheckpoint(checkpoint: Checkpoint): Promise<void>;
  /**
   * The schema history kept beside the checkpoint (runtime/tables/history.ts): its entries by position,
   * first to last; none when it keeps none.
   */
  readHistory?(): Promise<HistoryEntry[]>;
  /**
   * Keeps one entry of the schema history, replacing one kept at the same position (a dump started again
   * from a checkpoint reads the DDL after it again). A checkpoint written after it is written after it.
   */
  keepHistory?(entry: HistoryEntry): Promise<void>;
  close(): Promise<void>;
}

/** Opens a sink (a connection) reporting to `acks`: rejects when the broker cannot be reached. */
export type OpenSink = (acks: SinkAcks) => Promise<Sink>;
