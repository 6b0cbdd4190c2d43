/**
 * One live consumer of the bench's throwaway server, in a process of its own (its RSS is its own): ours
 * (connectBinlog) or @vlasky/zongji, reading binlog.000001 from its start until `rows` rows of live.t
 * are seen. Prints {secs, rows, digest, rssPeak} as JSON: the digest is of every row's values in order.
 * `firstSecs` is when the first row came: what follows it is the stream's own rate, connecting and
 * start-up left out. `frames` reads the same binlog's frames undecoded (connectBinlogFrames, to the end
 * of the logs): what the server and the socket allow any client. Or `binlog stream`'s streamer into NATS
 * JetStream (sinks/), to the end of the binlog, every message acknowledged and the checkpoint written:
 * rows is the messages acknowledged (no digest), `messageBytes` their bodies' mean size. Or the publish
 * ceiling (`nats-ceiling`): the NATS client alone storing ROWS messages of BYTES bytes each in the same
 * stream, as core publishes with a Nats-Msg-Id answered on one reply subscription, 1000 waiting at most,
 * each header made and each answer read as the sink does (WAY `sink`) or with the client's own headers()
 * and JSON (`client`). For both, `firstSecs` is when the first message was published.
 *
 * node live-run.mjs ours|zongji|frames SOCKET ROWS
 * node live-run.mjs jetstream SOCKET ROWS NATS_URL
 * node live-run.mjs nats-ceiling - ROWS NATS_URL BYTES sink|client
 */
import { createHash } from 'node:crypto';
import type { AnyBinlogEvent, WriteRowsEvent } from '@vlasky/zongji';
import { connect, createInbox, headers, type Msg, type MsgHdrs } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectBinlog, connectBinlogFrames } from '../replication/client.js';
import { MsgIdHeader, natsServers, natsSink, readPubAck } from '../sinks/nats.js';
import type { OpenSink } from '../sinks/sink.js';
import { BinlogStreamer } from '../sinks/stream.js';

export interface LiveResult {
  kind: string;
  secs: number;
  /** Seconds to the first row (ours and zongji), or to the first message published (jetstream, nats-ceiling). */
  firstSecs?: number;
  rows: number;
  digest: string;
  rssPeak: number;
  /** CPU seconds, user and system, as the bench's /usr/bin/time measured them (stream-nats). */
  cpuSecs?: number;
  /** The mean size of a message's body (jetstream). */
  messageBytes?: number;
}

type Row = Record<string, unknown>;

const [kind, socket, wanted, natsUrl, bytes, way] = process.argv.slice(2);
const ROWS = Number(wanted);

/** The row as text both consumers agree on: id, n, s, d, t, m in order. */
const line = (r: Row) => `${String(r.id)}|${String(r.n)}|${String(r.s)}|${String(r.d)}|${String(r.t)}|${String(r.m)}\n`;

async function ours(onRow: (r: Row) => boolean): Promise<void> {
  for await (const e of connectBinlog({ socketPath: socket, user: 'root', file: 'binlog.000001', serverId: 101 })) {
    if (e.type !== 'WRITE_ROWS_EVENT_V1' && e.type !== 'WRITE_ROWS_EVENT') continue;
    for (const r of e.rows!) if (onRow((r as { after: Row }).after)) return;
  }
}

/** zongji names each event's class by getTypeName(). */
function isWriteRows(e: AnyBinlogEvent): e is WriteRowsEvent {
  return e.getTypeName() === 'WriteRows';
}

async function zongji(onRow: (r: Row) => boolean): Promise<void> {
  const { default: ZongJi } = await import('@vlasky/zongji');
  return new Promise((resolve, reject) => {
    // dateStrings: DATETIME as its text, as ours is (zongji's DECIMAL is a string already).
    const z = new ZongJi({ socketPath: socket, user: 'root', dateStrings: true });
    let done = false;
    z.on('error', (e: Error) => reject(e));
    z.on('binlog', (e) => {
      if (done || !isWriteRows(e)) return;
      for (const r of e.rows) {
        if (onRow(r)) {
          done = true;
          z.stop();
          resolve();
          return;
        }
      }
    });
    z.start({ serverId: 102, filename: 'binlog.000001', position: 4, includeEvents: ['tablemap', 'writerows'] });
  });
}

/** The binlog's frames from its start to the end of the logs, undecoded; how many. */
async function frames(): Promise<number> {
  let n = 0;
  for await (const _ of connectBinlogFrames({
    socketPath: socket,
    user: 'root',
    file: 'binlog.000001',
    serverId: 104,
    until: 'logs',
  }))
    n++;
  return n;
}

/**
 * The streamer from the binlog's start to its end; the messages acknowledged, their bodies' bytes, and when
 * the first was published (`published`, called then).
 */
async function jetstream(published: () => void): Promise<{ rows: number; bodyBytes: number }> {
  const open = natsSink({ url: natsUrl!, stream: 'bench' });
  let bodyBytes = 0;
  // The bodies are counted on their way to the sink, for the ceiling to publish messages of their size.
  const counted: OpenSink = async (acks) => {
    const sink = await open(acks);
    return {
      ...sink,
      publish: (m, seq) => {
        if (bodyBytes === 0) published();
        bodyBytes += m.body.length;
        sink.publish(m, seq);
      },
    };
  };
  const streamer = new BinlogStreamer({
    binlog: (from) =>
      connectBinlog({ socketPath: socket, user: 'root', file: 'binlog.000001', serverId: 103, until: 'logs', ...from }),
    sink: counted,
  });
  await streamer.run();
  return { rows: streamer.snapshot().acknowledged, bodyBytes };
}

/** The ceiling's messages waiting for their acknowledgement at most: the streamer's default window. */
const CEILING_WINDOW = 1000;
/** The publisher is woken a quarter below it, as the streamer's window wakes its reader: a batch a turn. */
const CEILING_LOW_WATER = 750;

/**
 * How the ceiling makes a message's header and reads its answer (what refused it, if anything): as the sink
 * does (sinks/nats.ts), or with the client's own headers() and JSON.
 */
const CEILING_WAYS: Record<string, { header(id: string): MsgHdrs; refused(m: Msg): string | undefined }> = {
  sink: {
    header: (id) => new MsgIdHeader(id),
    refused: (m) => {
      const read = readPubAck(m.data);
      return 'refused' in read ? read.refused : undefined;
    },
  },
  client: {
    header: (id) => {
      const h = headers();
      h.set('Nats-Msg-Id', id);
      return h;
    },
    refused: (m) => m.json<{ error?: { description: string } }>().error?.description,
  },
};

/**
 * The NATS client alone: ROWS messages of BYTES bytes into the stream the streamer makes, each with a
 * Nats-Msg-Id of the streamer's form, the acknowledgements counted on one reply subscription; `published`
 * is called at the first.
 */
async function ceiling(published: () => void): Promise<number> {
  const ways = CEILING_WAYS[way ?? 'sink'];
  if (!ways) throw new Error(`the ceiling's way is sink or client, not ${way}`);
  const nc = await connect({ servers: natsServers(natsUrl!) });
  await (await jetstreamManager(nc)).streams.add({ name: 'bench', subjects: ['binlog.>'], duplicate_window: 600e9 });
  const body = new Uint8Array(Number(bytes)).fill(0x78);
  const inbox = `${createInbox()}.`;
  let sent = 0;
  let acked = 0;
  let wake: (() => void) | undefined;
  const done = new Promise<void>((resolve, reject) => {
    nc.subscribe(`${inbox}*`, {
      callback: (e, m) => {
        const why = e?.message ?? (m.data.length === 0 ? `status ${m.headers?.code}` : ways.refused(m));
        if (why !== undefined) {
          reject(new Error(`the ceiling's publish failed: ${why}`));
          // The publishing loop ends too, at the failure, rather than wait for acknowledgements.
          sent = ROWS;
          return wake?.();
        }
        if (++acked === ROWS) resolve();
        if (sent - acked <= CEILING_LOW_WATER) wake?.();
      },
    });
  });
  published();
  while (sent < ROWS) {
    if (sent - acked >= CEILING_WINDOW) await new Promise<void>((r) => (wake = r));
    const id = `103/0-1-${1000 + Math.floor(sent / 1000)}/${sent % 1000}`;
    nc.publish('binlog.live.t', body, { headers: ways.header(id), reply: inbox + sent++ });
  }
  await done;
  await nc.close();
  return acked;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const hash = createHash('sha256');
  let rows = 0;
  let rssPeak = 0;
  let firstSecs: number | undefined;
  // The digest is the check, not the work measured: its lines go to the hash a thousand at a time.
  let lines = '';
  const onRow = (r: Row) => {
    firstSecs ??= (performance.now() - t0) / 1000;
    lines += line(r);
    if ((++rows & 1023) === 0) {
      hash.update(lines);
      lines = '';
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }
    if (rows !== ROWS) return false;
    hash.update(lines);
    return true;
  };
  let messageBytes: number | undefined;
  const published = () => (firstSecs ??= (performance.now() - t0) / 1000);
  if (kind === 'jetstream') {
    const sent = await jetstream(published);
    rows = sent.rows;
    messageBytes = sent.bodyBytes / Math.max(1, sent.rows);
  } else if (kind === 'nats-ceiling') rows = await ceiling(published);
  else if (kind === 'frames') rows = await frames();
  else await (kind === 'zongji' ? zongji(onRow) : ours(onRow));
  const secs = (performance.now() - t0) / 1000;
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  const digest = kind === 'ours' || kind === 'zongji' ? hash.digest('hex') : '';
  const result: LiveResult = { kind: kind!, secs, firstSecs, rows, digest, rssPeak, messageBytes };
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`live-run ${kind}: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
