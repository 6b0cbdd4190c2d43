/**
 * The NATS JetStream sink: messages published with their id as Nats-Msg-Id (JetStream drops a message
 * whose id it has stored within the stream's duplicate window), the checkpoint in a JetStream KV bucket.
 * The connection does not reconnect by itself: what the client would send on a new connection after
 * a loss could land after messages it never sent, so a loss rejects every publish and the streamer
 * starts again from its checkpoint on a new connection, in order.
 */
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { OpenSink, Sink, SinkMessage } from './sink.js';

export interface NatsSinkOptions {
  /** The server: nats://HOST:PORT (or HOST:PORT). */
  url: string;
  /** The stream (default 'binlog'), created when missing with the subjects PREFIX.> */
  stream?: string;
  prefix?: string;
  /** The KV bucket of the checkpoints (default 'binlog-checkpoints'); the key is the stream's name and the prefix. */
  bucket?: string;
  /** A new stream's duplicate window in seconds (default 600): how long after a message its resend is still dropped. */
  duplicateWindow?: number;
  /** Milliseconds a publish or a request waits for its answer (default 10000). */
  timeout?: number;
}

const DEFAULTS = { stream: 'binlog', prefix: 'binlog', bucket: 'binlog-checkpoints', duplicateWindow: 600, timeout: 10_000 };

/** Opens a connection, the stream (created when missing) and the checkpoint bucket. */
export function natsSink(options: NatsSinkOptions): OpenSink {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const o = { ...DEFAULTS, ...given } as Required<NatsSinkOptions>;
  return async () => {
    const nc = await connect({ servers: o.url.replace(/^nats:\/\//, ''), reconnect: false, timeout: o.timeout });
    try {
      await ensureStream(await jetstreamManager(nc, { timeout: o.timeout }), o.stream, `${o.prefix}.>`, o.duplicateWindow);
      const js = jetstream(nc, { timeout: o.timeout });
      const kv = await new Kvm(js).create(o.bucket);
      const key = `${o.stream}.${o.prefix}`.replace(/[^-/_=.a-zA-Z0-9]/g, '_');
      const loss = new Loss(nc.closed());
      const sink: Sink = {
        publish: (m: SinkMessage) => loss.guard(() => js.publish(m.subject, m.body, { msgID: m.id }).then((ack) => ({ duplicate: ack.duplicate }))),
        readCheckpoint: async () => {
          const entry = await kv.get(key);
          return entry && entry.length > 0 ? (entry.json() as Checkpoint) : undefined;
        },
        writeCheckpoint: async (c: Checkpoint) => {
          await loss.guard(() => kv.put(key, JSON.stringify(c)));
        },
        close: () => nc.close(),
      };
      return sink;
    } catch (e) {
      await nc.close().catch(() => {});
      throw e;
    }
  };
}

/**
 * Rejects what is pending when the connection closes. One reaction on the close for all of them, not one
 * per publish as a race with the close would leave until it came: a long stream's memory stays flat.
 */
class Loss {
  private readonly pending = new Set<(e: Error) => void>();
  private lost: Error | undefined;

  constructor(closed: Promise<void | Error>) {
    void closed.then((e) => {
      // Said the same whatever the client's reason, which comes after it.
      this.lost = new Error(`the connection to the NATS server closed${e ? ` (${e.message})` : ''}`, { cause: e });
      for (const reject of this.pending) reject(this.lost);
      this.pending.clear();
    });
  }

  /**
   * What `send` starts, rejected if the connection closes first. Once it has closed nothing is sent: the
   * client's own rejection of a send on a closed connection would have no handler, and end the process.
   */
  guard<T>(send: () => Promise<T>): Promise<T> {
    if (this.lost) return Promise.reject(this.lost);
    return new Promise<T>((resolve, reject) => {
      this.pending.add(reject);
      send()
        .then(resolve, reject)
        .finally(() => this.pending.delete(reject));
    });
  }
}

/** The stream, added with `subjects` when there is none of that name. */
async function ensureStream(jsm: JetStreamManager, name: string, subjects: string, duplicateWindow: number): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({ name, subjects: [subjects], duplicate_window: duplicateWindow * 1e9 });
  }
}
