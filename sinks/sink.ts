/**
 * What a broker sink is to the streamer (stream.ts): messages published in order with ids of their own,
 * each acknowledged once the broker has stored it, and a checkpoint store beside them. NATS JetStream
 * (nats.ts) is the one shipped; a Kafka sink would be another `Sink` (an idempotent producer for the
 * ids, a compacted topic for the checkpoint).
 */
import type { Checkpoint } from '../protocol/checkpoint.js';

/** One change record on its way: where it goes, the id that makes a resend a duplicate, its body. */
export interface SinkMessage {
  subject: string;
  /** Deterministic: the same change always has the same id, so that a broker drops what it already has. */
  id: string;
  body: Uint8Array;
}

/**
 * One connection to a broker. Messages are stored in the order they are published; a publish resolves
 * once its message is stored (or was already: a duplicate), and rejects when the connection is lost,
 * which loses the sink: the streamer opens another and starts again from the last checkpoint, so what
 * was unsent on the lost one is never sent after what the new one sends.
 */
export interface Sink {
  publish(message: SinkMessage): Promise<{ duplicate: boolean }>;
  /** The checkpoint written last, if any. */
  readCheckpoint(): Promise<Checkpoint | undefined>;
  /** Stores the checkpoint; the streamer writes one only when the messages before it are acknowledged. */
  writeCheckpoint(checkpoint: Checkpoint): Promise<void>;
  close(): Promise<void>;
}

/** Opens a sink (a connection): rejects when the broker cannot be reached. */
export type OpenSink = () => Promise<Sink>;
