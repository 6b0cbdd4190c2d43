/**
 * `binlog stream`: a server's row changes into NATS JetStream, exactly once across restarts
 * (sinks/stream.ts), with a status line on a terminal and `--stats` JSON lines for monitoring.
 */
import { parseArgs } from 'node:util';
import type { Checkpoint } from '../protocol/checkpoint.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { BinlogStreamer, type StreamStats, type TakeSnapshot } from '../sinks/stream.js';
import { reportFailure, schemaHistorySeed } from './options.js';
import { clock, StatusLine } from './progress.js';
import { remoteOptions } from './remote.js';
import { withPasswordPrompt } from './secrets.js';
import { snapshotRequest, snapshotThenBinlog, type SnapshotRequest, type SnapshotValues } from './snapshot.js';
import { EXIT, STREAM_OPTIONS, UsageError } from './usage.js';

export async function streamCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: withPasswordPrompt(args),
    allowPositionals: true,
    options: STREAM_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  if (!values['read-from-remote-server'])
    throw new UsageError('stream reads a server: give -R (--read-from-remote-server) and its connection');
  if (!values.to) throw new UsageError('stream needs --to=nats://HOST:PORT');
  if (!values.to.split(',').every((url) => /^(nats:\/\/)?[^/\s,]+:\d+$/.test(url))) {
    throw new UsageError(`--to takes nats://HOST:PORT, or several separated by commas, not '${values.to}'`);
  }
  if (positionals.length > 1) throw new UsageError('stream reads one LOGNAME');
  const snapshot = snapshotRequest(values, positionals[0]);
  if (!snapshot && (values.database || values.table))
    throw new UsageError('--database and --table choose the tables of --snapshot: give --snapshot');
  const count = (v: string | undefined, option: string) => {
    if (v === undefined) return undefined;
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) throw new UsageError(`${option} takes a number above 0`);
    return Number(v);
  };
  const whole = (v: string | undefined, option: string) => {
    const n = count(v, option);
    if (n !== undefined && !Number.isInteger(n)) throw new UsageError(`${option} takes a whole number above 0`);
    return n;
  };
  const start =
    values['start-position'] === undefined ? undefined : count(values['start-position'], '--start-position');
  let live;
  try {
    live = await remoteOptions(
      { ...values, 'to-last-log': false },
      positionals[0],
      start,
      (m) => new UsageError(m),
      false,
    );
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
  const prefix = values['subject-prefix'] ?? 'binlog';
  if (!/^[^.*>\s]+(\.[^.*>\s]+)*$/.test(prefix))
    throw new UsageError(
      `--subject-prefix '${prefix}' is not a NATS subject (tokens between dots, no '*', '>' or spaces)`,
    );
  // NATS's client is loaded once the command line is known good (not for --help or a usage error).
  const { natsSink } = await import('../sinks/nats.js');
  const streamer = new BinlogStreamer({
    binlog: (from, history) =>
      connectBinlog({ ...live, until: values['to-last-log'] ? 'logs' : 'never', ...from, schemaHistory: history }),
    schemaHistory: schemaHistorySeed(values),
    sink: natsSink({ url: values.to, stream: values.stream, prefix, replicas: whole(values.replicas, '--replicas') }),
    prefix,
    ddl: values.ddl,
    inFlight: whole(values['in-flight'], '--in-flight'),
    ackTimeout: count(values['ack-timeout'], '--ack-timeout'),
    partitions: whole(values.partitions, '--partitions'),
    sinkLost: (e) => process.stderr.write(`binlog: ${e.message}; trying again from the checkpoint\n`),
    resumed: (c) => process.stderr.write(`binlog: ${startSentence(c, live, snapshot !== undefined)}\n`),
    snapshot: snapshot && takeSnapshot(live, values, snapshot),
  });
  const stats = count(values.stats, '--stats');
  return run(streamer, stats, values.progress ?? process.stderr.isTTY === true);
}

/** Runs the stream to its end or a signal, with the stats lines and the status line asked for. */
async function run(streamer: BinlogStreamer, statsSeconds: number | undefined, progress: boolean): Promise<number> {
  const stop = () => streamer.stop();
  process.on('SIGINT', stop).on('SIGTERM', stop);
  const line = progress
    ? new StatusLine(process.stderr, (elapsed) => statusLine(streamer.snapshot(), elapsed), 500)
    : undefined;
  const started = Date.now();
  const statsLine = () => {
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), seconds, ...streamer.snapshot() })}\n`);
  };
  const timer = statsSeconds === undefined ? undefined : setInterval(statsLine, statsSeconds * 1000);
  try {
    await streamer.run();
    return EXIT.ok;
  } catch (e) {
    return reportFailure(e, 'stream');
  } finally {
    clearInterval(timer);
    line?.done();
    if (statsSeconds !== undefined) statsLine();
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}

/**
 * The snapshot the streamer takes first: the rows handed to it as they come, its point where the binlog
 * goes on. Its status line is the stream's (the snapshot's own would write over it).
 */
function takeSnapshot(live: LiveOptions, values: SnapshotValues, request: SnapshotRequest): TakeSnapshot {
  return async (to, history) => {
    const writer = { start: to.start, rows: to.rows, end: async () => {} };
    return (await snapshotThenBinlog(live, values, request, writer, history, false)).point;
  };
}

/** Where the stream begins, said once it is known. */
function startSentence(c: Checkpoint | undefined, live: LiveOptions, snapshot: boolean): string {
  if (c?.snapshotDone === false) return 'the snapshot did not finish: taking it again';
  if (c) {
    const at = [c.file ? `${c.file}:${c.position}` : '', c.gtid ? `GTID ${c.gtid}` : ''].filter((s) => s !== '');
    return `resuming from the checkpoint ${at.join(', ')}`;
  }
  if (snapshot) return 'no checkpoint yet: taking the snapshot, then the binlog from its point';
  if (live.gtid !== undefined) return `no checkpoint yet: starting after GTID ${live.gtid}`;
  if (live.file !== undefined) return `no checkpoint yet: starting at ${live.file}:${live.position ?? 4}`;
  return "no checkpoint yet and no LOGNAME: starting at the end of the server's current binlog";
}

/** The status line: transactions acknowledged and their rate, messages, the lag, losses. */
export function statusLine(s: StreamStats, elapsed: number): string {
  const snapshot = s.snapshotting ? [`snapshot: ${s.snapshotRows} rows sent`] : [];
  const parts = [
    ...snapshot,
    `${s.transactions} transactions (${(s.transactions / Math.max(elapsed, 0.001)).toFixed(0)}/s)`,
    `${s.acknowledged} messages acknowledged`,
    `${s.inFlight} in flight`,
    `lag ${clock(s.lagSeconds)}`,
  ];
  if (s.sinkLosses) parts.push(`broker lost ${s.sinkLosses}×`);
  if (s.reconnects) parts.push(`${s.reconnects} reconnects`);
  return parts.join(', ');
}
