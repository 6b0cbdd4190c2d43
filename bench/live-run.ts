/**
 * One live consumer of the bench's throwaway server, in a process of its own (its RSS is its own): ours
 * (connectBinlog) or @vlasky/zongji, reading binlog.000001 from its start until `rows` rows of live.t
 * are seen. Prints {secs, rows, digest, rssPeak} as JSON: the digest is of every row's values in order.
 * `firstSecs` is when the first row came: what follows it is the stream's own rate, connecting and
 * start-up left out. `frames` reads the same binlog's frames undecoded (connectBinlogFrames, to the end
 * of the logs): what the server and the socket allow any client. Or `binlog stream`'s streamer into NATS
 * JetStream (sinks/), to the end of the binlog, every message acknowledged and the checkpoint written:
 * rows is the messages acknowledged (no digest).
 *
 * node live-run.mjs ours|zongji|frames SOCKET ROWS
 * node live-run.mjs jetstream SOCKET ROWS NATS_URL
 */
import { createHash } from 'node:crypto';
import type { AnyBinlogEvent, WriteRowsEvent } from '@vlasky/zongji';
import { connectBinlog, connectBinlogFrames } from '../replication/client.js';
import { natsSink } from '../sinks/nats.js';
import { BinlogStreamer } from '../sinks/stream.js';

export interface LiveResult {
  kind: string;
  secs: number;
  /** Seconds to the first row (ours and zongji). */
  firstSecs?: number;
  rows: number;
  digest: string;
  rssPeak: number;
}

type Row = Record<string, unknown>;

const [kind, socket, wanted, natsUrl] = process.argv.slice(2);
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
  for await (const _ of connectBinlogFrames({ socketPath: socket, user: 'root', file: 'binlog.000001', serverId: 104, until: 'logs' })) n++;
  return n;
}

/** The streamer from the binlog's start to its end; the messages acknowledged. */
async function jetstream(): Promise<number> {
  const streamer = new BinlogStreamer({ binlog: (from) => connectBinlog({ socketPath: socket, user: 'root', file: 'binlog.000001', serverId: 103, until: 'logs', ...from }), sink: natsSink({ url: natsUrl!, stream: 'bench' }) });
  await streamer.run();
  return streamer.snapshot().acknowledged;
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
  if (kind === 'jetstream') rows = await jetstream();
  else if (kind === 'frames') rows = await frames();
  else await (kind === 'zongji' ? zongji(onRow) : ours(onRow));
  const secs = (performance.now() - t0) / 1000;
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  const result: LiveResult = { kind: kind!, secs, firstSecs, rows, digest: kind === 'jetstream' || kind === 'frames' ? '' : hash.digest('hex'), rssPeak };
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`live-run ${kind}: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
