/**
 * The NATS JetStream sink: messages published with their id as Nats-Msg-Id (JetStream drops a message
 * whose id it has stored within the stream's duplicate window), the checkpoint in a JetStream KV bucket.
 *
 * A message is a core publish whose reply subject is one inbox prefix and its sequence number: the
 * stream's acknowledgement (PubAck JSON, or a JetStream error) comes back on one subscription of that
 * prefix, and is reported to the streamer's `SinkAcks` by that number. This is what the Go client's
 * PublishAsync does; `js.publish` would cost a promise and a timer per message, more than the broker
 * spends storing it. The streamer's window bounds how many wait and times out a missing acknowledgement.
 *
 * The connection does not reconnect by itself: what the client would send on a new connection after
 * a loss could land after messages it never sent, so a loss loses the sink and the streamer starts
 * again from its checkpoint on a new connection, in order. Several servers (a cluster) are tried in
 * turn when connecting.
 */
import { connect, createInbox, MsgHdrsImpl, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { HistoryEntry } from '../runtime/tables/history.js';
import type { OpenSink, Sink, SinkAcks, SinkMessage } from './sink.js';

export interface NatsSinkOptions {
  /** The servers: nats://HOST:PORT (or HOST:PORT), several of a cluster separated by commas. */
  url: string;
  /** The stream (default 'binlog'), created when missing with the subjects PREFIX.> */
  stream?: string;
  prefix?: string;
  /** The KV bucket of the checkpoints (default 'binlog-checkpoints'); the key is the stream's name and the prefix. */
  bucket?: string;
  /** A new stream's duplicate window in seconds (default 600): how long after a message its resend is still dropped. */
  duplicateWindow?: number;
  /** The copies a new stream and a new checkpoint bucket keep on a cluster's servers (default 1). */
  replicas?: number;
  /** Milliseconds connecting and a request (the stream, the checkpoint) wait for their answer (default 10000). */
  timeout?: number;
}

const DEFAULTS = {
  stream: 'binlog',
  prefix: 'binlog',
  bucket: 'binlog-checkpoints',
  duplicateWindow: 600,
  replicas: 1,
  timeout: 10_000,
};

/** The servers of a `url` option, as the client takes them. */
export function natsServers(url: string): string[] {
  return url.split(',').map((s) => s.trim().replace(/^nats:\/\//, ''));
}

/** Opens a connection, the stream (created when missing) and the checkpoint bucket. */
export function natsSink(options: NatsSinkOptions): OpenSink {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const o = { ...DEFAULTS, ...given } as Required<NatsSinkOptions>;
  return async (acks: SinkAcks) => {
    const nc = await connect({ servers: natsServers(o.url), reconnect: false, timeout: o.timeout });
    try {
      const jsm = await jetstreamManager(nc, { timeout: o.timeout });
      await ensureStream(jsm, o.stream, `${o.prefix}.>`, o.duplicateWindow, o.replicas);
      const kv = await new Kvm(jetstream(nc, { timeout: o.timeout })).create(o.bucket, { replicas: o.replicas });
      const key = `${o.stream}.${o.prefix}`.replace(/[^-/_=.a-zA-Z0-9]/g, '_');
      const loss = new Loss(nc.closed(), acks);
      const publisher = new Publisher(nc, acks, loss);
      // The schema history's entries, one key each under the checkpoint's, named by position: kept again
      // at the same position, an entry replaces itself. Each is written before the checkpoints after it.
      const historyKey = (e: HistoryEntry) =>
        `${key}.schema.${(e.file ?? '').replace(/[^-_=a-zA-Z0-9]/g, '_')}.${e.pos}`;
      let keeping: Promise<unknown> = Promise.resolve();
      const sink: Sink = {
        publish: (m: SinkMessage, seq: number) => publisher.publish(m, seq),
        readCheckpoint: async () => {
          const entry = await kv.get(key);
          return entry && entry.length > 0 ? (entry.json() as Checkpoint) : undefined;
        },
        writeCheckpoint: async (c: Checkpoint) => {
          await keeping;
          await loss.guard(() => kv.put(key, JSON.stringify(c)));
        },
        readHistory: () => readHistory(kv, `${key}.schema.>`),
        keepHistory: (e: HistoryEntry) => {
          const put = keeping.then(() => loss.guard(() => kv.put(historyKey(e), JSON.stringify(e))));
          keeping = put;
          return put.then(() => {});
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

/** The schema history's entries under `keys`, in the order of their positions (file, then offset). */
async function readHistory(kv: KV, keys: string): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for await (const k of await kv.keys(keys)) {
    const entry = await kv.get(k);
    if (entry && entry.length > 0) entries.push(entry.json() as HistoryEntry);
  }
  const file = (e: HistoryEntry) => e.file ?? '';
  return entries.sort((a, b) => (file(a) === file(b) ? a.pos - b.pos : file(a) < file(b) ? -1 : 1));
}

/** JetStream's answer to a publish: a PubAck, or an error. */
interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code: number; err_code?: number; description: string };
}

/** What JetStream's answer to a publish says: the message stored (perhaps as a duplicate), or why it was not. */
export type PubAckReading = { duplicate: boolean } | { refused: string };

const [QUOTE, OPEN, CLOSE] = [0x22, 0x7b, 0x7d];
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** The members that send an answer to the full parse, and the one every PubAck has. */
const [ERROR_KEY, DUPLICATE_KEY, SEQ_KEY] = [ascii('"error"'), ascii('"duplicate"'), ascii('"seq"')];
const PLAIN = { duplicate: false } as const;

/**
 * Reads JetStream's answer to a publish. Nearly every answer is a plain PubAck, `{"stream":"…", "seq":N}`:
 * an object with a `"seq"` and neither an `"error"` nor a `"duplicate"` is taken as stored from one look
 * at its bytes, since decoding and parsing it would cost the stream more than the broker spends on it
 * (issue 43). Anything else (an error, a duplicate, a stream named "error") is parsed whole.
 */
export function readPubAck(data: Uint8Array): PubAckReading {
  return isPlainPubAck(data) ? PLAIN : parsedPubAck(data);
}

/** Whether `data` is a JSON object with a `"seq"` member and no `"error"` or `"duplicate"` one. */
function isPlainPubAck(data: Uint8Array): boolean {
  if (data[0] !== OPEN || data[data.length - 1] !== CLOSE) return false;
  let seq = false;
  for (let at = 1; at < data.length; at++) {
    if (data[at] !== QUOTE) continue;
    // The byte after the quote picks the one member it can begin, which is then compared whole.
    const first = data[at + 1];
    if (first === ERROR_KEY[1] && startsAt(data, at, ERROR_KEY)) return false;
    if (first === DUPLICATE_KEY[1] && startsAt(data, at, DUPLICATE_KEY)) return false;
    if (first === SEQ_KEY[1]) seq ||= startsAt(data, at, SEQ_KEY);
  }
  return seq;
}

/** Whether `data` holds `quoted` at `at`. */
function startsAt(data: Uint8Array, at: number, quoted: Uint8Array): boolean {
  if (at + quoted.length > data.length) return false;
  for (let i = 1; i < quoted.length; i++) if (data[at + i] !== quoted[i]) return false;
  return true;
}

/** The answer's JSON read whole: the error it names, or whether a PubAck (it has a `seq`) is a duplicate. */
function parsedPubAck(data: Uint8Array): PubAckReading {
  const text = new TextDecoder().decode(data);
  let ack: PubAck;
  try {
    ack = JSON.parse(text) as PubAck;
  } catch {
    return { refused: `JetStream's answer is not JSON: ${text}` };
  }
  if (ack.error)
    return { refused: `JetStream refused it: ${ack.error.description} (${ack.error.err_code ?? ack.error.code})` };
  if (typeof ack.seq !== 'number') return { refused: `JetStream's answer is not an acknowledgement: ${text}` };
  return { duplicate: ack.duplicate === true };
}

const MSG_ID = 'Nats-Msg-Id';

/**
 * A message's headers: its Nats-Msg-Id alone, held as the client's headers() holds it, and its bytes written
 * at once. The client's publish asks the headers for their bytes (encode), and the client's own way to
 * them (a canonical key looked up, the value checked and trimmed, a string made and then encoded) cost
 * more than the broker spends on a message (issue 43); the bytes are the same.
 */
export class MsgIdHeader extends MsgHdrsImpl {
  private readonly bytes: Buffer;

  constructor(id: string) {
    super();
    // What the client's check of a header's value refuses: the line would end early.
    if (/[\r\n]/.test(id)) throw new Error(`the message id ${JSON.stringify(id)} holds a line break`);
    this.headers.set(MSG_ID, [id]);
    this.bytes = Buffer.from(`NATS/1.0\r\n${MSG_ID}: ${id}\r\n\r\n`);
  }

  override encode(): Uint8Array {
    return this.bytes;
  }
}

/** Core publishes answered on one subscription: the reply subject's last token is the message's sequence number. */
class Publisher {
  private readonly inbox = `${createInbox()}.`;

  constructor(
    private readonly nc: NatsConnection,
    private readonly acks: SinkAcks,
    private readonly loss: Loss,
  ) {
    nc.subscribe(`${this.inbox}*`, { callback: (e, m) => (e ? acks.lost(e) : this.answer(m)) });
  }

  publish(m: SinkMessage, seq: number): void {
    // Once the connection is lost nothing more is sent: the loss is reported already.
    if (this.loss.lost) return;
    try {
      this.nc.publish(m.subject, m.body, { headers: new MsgIdHeader(m.id), reply: this.inbox + seq });
    } catch (e) {
      this.acks.lost(e as Error, seq);
    }
  }

  private answer(m: Msg): void {
    const seq = Number(m.subject.slice(this.inbox.length));
    // A status with no body: 503 when no stream takes the subject (the server's "no responders").
    if (m.data.length === 0) {
      const code = m.headers?.code ?? 0;
      const status = `status ${code} ${m.headers?.description}`;
      const why = code === 503 ? 'no JetStream stream took it (no responders)' : status;
      this.acks.lost(new Error(`JetStream did not store it: ${why}`), seq);
      return;
    }
    const read = readPubAck(m.data);
    if ('refused' in read) this.acks.lost(new Error(read.refused), seq);
    else this.acks.acked(seq, read.duplicate);
  }
}

/**
 * The connection's loss: reported once to the acknowledgements, and rejecting the requests pending then.
 * One reaction on the close for all of them, not one per request: a long stream's memory stays flat.
 */
class Loss {
  private readonly pending = new Set<(e: Error) => void>();
  lost: Error | undefined;

  constructor(closed: Promise<void | Error>, acks: SinkAcks) {
    void closed.then((e) => {
      // Said the same whatever the client's reason, which comes after it.
      this.lost = new Error(`the connection to the NATS server closed${e ? ` (${e.message})` : ''}`, { cause: e });
      acks.lost(this.lost);
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

/** The stream, added with `subjects` and `replicas` when there is none of that name. */
async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  subjects: string,
  duplicateWindow: number,
  replicas: number,
): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    const config = { name, subjects: [subjects], duplicate_window: duplicateWindow * 1e9, num_replicas: replicas };
    await jsm.streams.add(config);
  }
}
