/**
 * `streamBinlog`: a server's row changes into a broker, exactly once across restarts. Each change is a
 * message with a deterministic id (record.ts), so that the broker drops what a resend repeats; the
 * checkpoint is written to the sink only once every message before it is acknowledged, and a start
 * resumes from it. A lost sink (the broker restarted or gone) ends the dump: another sink is opened,
 * with backoff, and the dump starts again from the newest acknowledged checkpoint, so that the broker
 * gets the changes again in order, those it has already dropped as duplicates.
 */
import { Backoff, type ReconnectOptions } from '../protocol/backoff.js';
import { resumeAt, type Checkpoint, type CheckpointedEvents, type ResumePoint } from '../protocol/checkpoint.js';
import { ConnectionError } from '../runtime/core/errors.js';
import type { SnapshotPoint, SnapshotRow, SnapshotTable } from '../protocol/snapshot-rows.js';
import type { DumpRowsOption } from '../runtime/rows/row-tables.js';
import { isBefore, SchemaHistory, type HistoryEntry, type SchemaHistoryOptions } from '../runtime/tables/history.js';
import { Lag } from './lag.js';
import { Outbox } from './outbox.js';
import { ChangeMessages } from './record.js';
import type { OpenSink, Sink, SinkAcks } from './sink.js';
import { SnapshotMessages } from './snapshot-records.js';
import { AckWindow } from './window.js';

/**
 * How the streamer asks for a dump: from a checkpoint's place (none: where the caller's options start
 * when the sink holds no checkpoint), each TRANSACTION_PAYLOAD's events handed out after it, as the
 * records are made from them.
 */
export type DumpFrom = Partial<ResumePoint> & { payloads: 'flat' } & Partial<DumpRowsOption>;

/** Where a snapshot hands its point and its rows (bin/stream.ts takes the snapshot: sinks know no more of it). */
export interface SnapshotTarget {
  start(point: SnapshotPoint, tables: SnapshotTable[]): Promise<void>;
  rows(table: SnapshotTable, rows: SnapshotRow[]): Promise<void>;
}

/** Takes a consistent snapshot into `to`, seeding `history` with the tables' definitions; resolves to its point. */
export type TakeSnapshot = (to: SnapshotTarget, history: SchemaHistory) => Promise<SnapshotPoint>;

export interface StreamOptions {
  /**
   * Opens a dump of the server, as asked, read with `history` (bin/stream.ts passes
   * `(from, history) => connectBinlog({ ...live, ...from, schemaHistory: history })`).
   * The streamer knows no more of the replication client than this, so that the sinks and the client
   * stay two capabilities apart.
   */
  binlog: (from: DumpFrom, history: SchemaHistory) => CheckpointedEvents;
  sink: OpenSink;
  /**
   * The schema history's start when the sink keeps none (its seed and where its lines go): the dump reads
   * with it, and each change is kept in the sink beside the checkpoint, so that a start from a checkpoint
   * reads with the definitions of that point.
   */
  schemaHistory?: Omit<SchemaHistoryOptions, 'record'>;
  /** It is the subjects' first token (default 'binlog'): rows go on PREFIX.<db>.<table>, DDL on PREFIX._ddl. */
  prefix?: string;
  /** When it is set, DDL statements are published too. */
  ddl?: boolean;
  /** It bounds the publishes that await their acknowledgement (default 1000). */
  inFlight?: number;
  /** Seconds a message may wait for its acknowledgement before the sink counts as lost (default 10). */
  ackTimeout?: number;
  /**
   * With it, row changes go on PREFIX.<db>.<table>.<P>, P the primary key's hash modulo it (record.ts):
   * order is kept per key, not per table.
   */
  partitions?: number;
  /** It says how the sink is opened again once lost (default: every 0.2 s doubling to 5 s, 1000 attempts in a row). */
  sinkRetry?: ReconnectOptions;
  /**
   * It is told once, on the first opening of the sink, of the checkpoint it holds (undefined when none:
   * the options say where to start).
   */
  resumed?: (checkpoint: Checkpoint | undefined) => void;
  /** It is told why the sink was lost, each time, before the sink is opened again. */
  sinkLost?: (e: Error) => void;
  /**
   * With it, the stream begins with the rows the snapshot reads (`op: "r"` records, snapshot-records.ts)
   * when the sink holds no checkpoint or one whose snapshot did not finish, then goes on with the binlog
   * from the snapshot's point. Its checkpoints carry `snapshotDone`.
   */
  snapshot?: TakeSnapshot;
}

export interface StreamStats {
  /** It counts the transactions whose messages are all acknowledged, since the start. */
  transactions: number;
  /** They count the messages published (resends included) and acknowledged, and those the broker already had. */
  published: number;
  acknowledged: number;
  duplicates: number;
  inFlight: number;
  /** It is the checkpoint written last (or resumed from). */
  checkpoint: Checkpoint | undefined;
  /** Seconds the acknowledged changes are behind the server's newest event (sinks/lag.ts says how it is measured). */
  lagSeconds: number;
  /** They count how often the sink was lost and opened again, and how often the dump reconnected apart from those. */
  sinkLosses: number;
  reconnects: number;
  /**
   * It counts the rows of the snapshot (`snapshot`) published since the snapshot last started (again after a
   * lost connection, under --reconnect); its read records are among `published`.
   */
  snapshotRows: number;
  /** It is true while the snapshot's rows are being read and sent. */
  snapshotting: boolean;
}

const DEFAULT_IN_FLIGHT = 1000;
const DEFAULT_ACK_TIMEOUT = 10;
/** What the kept seed entry says it is. */
const SEED_STATEMENT = '-- the definitions at the start of the stream';
const SNAPSHOT_STATEMENT = '-- the definitions at the snapshot';
const DEFAULT_SINK_RETRY: ReconnectOptions = { delay: 0.2, maxDelay: 5, retries: 1000 };

/** Says that the sink is lost: the broker went away or refused; the stream starts again on a new one. */
class SinkLost extends Error {
  constructor(override readonly cause: unknown) {
    super(`the broker was lost: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** Says that the stream was stopped while its snapshot was being taken. */
class SnapshotStopped extends Error {
  constructor() {
    super('the stream was stopped during its snapshot');
  }
}

/** Runs what the sink does: its failure is the sink's loss. */
async function sinkSide<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw new SinkLost(e);
  }
}

/** A stream from a server into a sink, until `stop()` (or the end of a dump that ends, as `until` asks). */
export class BinlogStreamer {
  readonly stats: StreamStats = {
    transactions: 0,
    published: 0,
    acknowledged: 0,
    duplicates: 0,
    inFlight: 0,
    checkpoint: undefined,
    lagSeconds: 0,
    sinkLosses: 0,
    reconnects: 0,
    snapshotRows: 0,
    snapshotting: false,
  };
  private binlog: CheckpointedEvents | undefined;
  private window: AckWindow | undefined;
  private stopping = false;
  private readonly lag = new Lag();
  private opened = false;
  private readonly backoff: Backoff;
  /** The schema history's entries the sink keeps, and those kept since, in order. */
  private kept: HistoryEntry[] = [];

  constructor(private readonly options: StreamOptions) {
    this.backoff = new Backoff(options.sinkRetry ?? DEFAULT_SINK_RETRY);
  }

  /**
   * Streams until stopped or the binlog ends; rejects with the dump's error, or when the sink cannot be opened again.
   */
  async run(): Promise<void> {
    let resume: Checkpoint | undefined;
    for (;;) {
      let sink: Sink | undefined;
      // This opening's acknowledgements go to this opening's window: a lost sink's late ones reach no other.
      const attempt: { window?: AckWindow } = {};
      const acks: SinkAcks = {
        acked: (seq, duplicate) => attempt.window?.acked(seq, duplicate),
        lost: (e, seq) => attempt.window?.lost(e, seq),
      };
      try {
        const opened = (sink = await sinkSide(this.options.sink(acks)));
        this.backoff.started();
        if (!this.opened) {
          resume = await sinkSide(opened.readCheckpoint());
          this.kept = (await sinkSide(opened.readHistory?.() ?? Promise.resolve([]))) ?? [];
          this.opened = true;
          this.stats.checkpoint = resume;
          this.options.resumed?.(resume);
        }
        await this.pump(opened, resume, attempt);
        return;
      } catch (e) {
        if (!(e instanceof SinkLost)) throw e;
        if (this.stopping) return; // what was acknowledged has its checkpoint written, or is sent again
        this.stats.sinkLosses++;
        this.options.sinkLost?.(e);
        resume = this.stats.checkpoint;
        await this.backoff.next(e);
        if (this.stopping) return;
      } finally {
        await sink?.close().catch(() => {});
      }
    }
  }

  /** Ends the stream once what was read is acknowledged and its checkpoint written. */
  stop(): void {
    this.stopping = true;
    this.backoff.cancel();
    this.binlog?.close();
  }

  /**
   * One dump into one sink, from `resume` (else where the options start); first the snapshot when one is
   * asked for and `resume` does not say it finished.
   */
  private async pump(sink: Sink, resume: Checkpoint | undefined, attempt: { window?: AckWindow }): Promise<void> {
    const { prefix, ddl, partitions } = this.options;
    const messages = new ChangeMessages(prefix ?? 'binlog', ddl ?? false, partitions);
    this.binlog = undefined;
    const writer = new CheckpointWriter(
      sink,
      (c) => (this.stats.checkpoint = c),
      () => this.binlog?.close(),
    );
    const snapshot =
      this.options.snapshot && (!resume || resume.snapshotDone === false) ? this.options.snapshot : undefined;
    // The checkpoints say snapshotDone where a snapshot was taken, now or before this start; not otherwise.
    const snapshotted = snapshot !== undefined || resume?.snapshotDone !== undefined;
    const limit = this.options.inFlight ?? DEFAULT_IN_FLIGHT;
    const window =
      (this.window =
      attempt.window =
        new AckWindow(
          limit,
          (this.options.ackTimeout ?? DEFAULT_ACK_TIMEOUT) * 1000,
          (c, at, n) => {
            this.stats.transactions += n;
            this.lag.acknowledged(at);
            writer.write(snapshotted ? { ...c, snapshotDone: true } : c);
          },
          () => this.binlog?.close(), // the dump waits no longer for events that cannot be sent
        ));
    const reconnectsBefore = this.stats.reconnects;
    // As many messages rendered ahead as the window holds in flight: memory stays within twice the window.
    const outbox = new Outbox(sink, window, limit, () => this.stats.published++);
    let binlog: CheckpointedEvents | undefined;
    try {
      const { start, history } = snapshot
        ? await this.takeSnapshot(snapshot, sink, window, writer)
        : { start: resume, history: undefined };
      const from: DumpFrom = { ...(start && resumeAt(start)), payloads: 'flat', ...messages.rowsOption() };
      binlog = this.binlog = this.options.binlog(from, history ?? this.historyAt(from, sink));
      let checkpoint = binlog.checkpoint;
      for await (const e of binlog) {
        if (e.notInFile === 'heartbeat') this.lag.heartbeat();
        else if (!e.notInFile) this.lag.read(e.header.timestamp);
        outbox.add(messages.of(e, checkpoint));
        this.stats.reconnects = reconnectsBefore + binlog.reconnects;
        if (binlog.checkpoint !== checkpoint) {
          checkpoint = binlog.checkpoint;
          messages.ended();
          outbox.end(checkpoint, e.header.timestamp);
        }
        await outbox.room();
      }
      await outbox.flush();
      await window.drain();
      await writer.flush();
    } catch (e) {
      if (window.failure !== undefined || writer.failure !== undefined)
        throw new SinkLost(window.failure ?? writer.failure);
      if (!(this.stopping && (e instanceof ConnectionError || e instanceof SnapshotStopped))) throw e;
      await sinkSide(window.drain());
      await sinkSide(writer.flush());
    } finally {
      outbox.close();
      window.close();
      binlog?.close();
    }
  }

  /**
   * The snapshot's rows into the sink: a checkpoint at its point with `snapshotDone: false` before any row
   * (a start that finds it takes the snapshot again), one with `snapshotDone: true` once every row is
   * acknowledged. The schema history starts again from the snapshot's definitions, kept as one entry at
   * the start of the point's file. Resolves to where the binlog goes on, and the history to read it with.
   */
  private async takeSnapshot(
    take: TakeSnapshot,
    sink: Sink,
    window: AckWindow,
    writer: CheckpointWriter,
  ): Promise<{ start: Checkpoint; history: SchemaHistory }> {
    this.kept = [];
    const keep = (entry: HistoryEntry) => {
      this.kept.push(entry);
      sink.keepHistory?.(entry).catch(() => {});
    };
    const history = new SchemaHistory({ ...this.options.schemaHistory, record: keep });
    const startedAt = Date.now();
    Object.assign(this.stats, { snapshotRows: 0, snapshotting: true });
    let records: SnapshotMessages | undefined;
    const point = await take(
      {
        start: async (p) => {
          // Taken again after a lost connection (--reconnect), the snapshot's rows are counted afresh.
          this.stats.snapshotRows = 0;
          records = new SnapshotMessages(this.options.prefix ?? 'binlog', p, startedAt, this.options.partitions);
          writer.write({ file: p.file, position: p.position, gtid: p.gtid, snapshotDone: false });
          await writer.flush();
        },
        rows: async (table, rows) => {
          if (this.stopping) throw new SnapshotStopped();
          this.stats.snapshotRows += rows.length;
          for (const m of records!.of(table, rows)) {
            this.stats.published++;
            sink.publish(m, window.take(m));
            if (window.full) await window.room();
          }
        },
      },
      history,
    );
    this.stats.snapshotting = false;
    keep(history.snapshot({ file: point.file, pos: 0 }, SNAPSHOT_STATEMENT));
    const start = { file: point.file, position: point.position, gtid: point.gtid, snapshotDone: true };
    window.mark(start, Math.floor(startedAt / 1000));
    return { start, history };
  }

  /**
   * The schema history at the dump's start: the kept entries before it, or, when the sink keeps none, the
   * caller's seed, kept first as one entry at the start file's beginning. Each change from here is kept in
   * the sink (its failure is the sink's loss, which the next checkpoint's write meets).
   */
  private historyAt(from: DumpFrom, sink: Sink): SchemaHistory {
    const at = from.file === undefined ? undefined : { file: from.file, pos: from.position ?? 0 };
    this.kept = at ? this.kept.filter((e) => isBefore(e, at)) : this.kept;
    const keep = (entry: HistoryEntry) => {
      this.kept.push(entry);
      sink.keepHistory?.(entry).catch(() => {});
    };
    const options = { ...this.options.schemaHistory, record: keep };
    if (this.kept.length) return SchemaHistory.replayed([...this.kept], undefined, options);
    const history = new SchemaHistory(options);
    if (history.size) keep(history.snapshot(at ? { file: at.file, pos: 0 } : { pos: 0 }, SEED_STATEMENT));
    return history;
  }

  /** Returns the stats as they stand now: in flight, acknowledged, the lag. */
  snapshot(): StreamStats {
    const w = this.window;
    if (w) Object.assign(this.stats, { inFlight: w.inFlight, duplicates: w.duplicates });
    this.stats.acknowledged = this.stats.published - (w?.inFlight ?? 0);
    this.stats.lagSeconds = this.lag.seconds(w?.waiting ?? false);
    return { ...this.stats };
  }
}

/** Writes the newest checkpoint given, one write at a time: those given meanwhile are passed over for the newest. */
class CheckpointWriter {
  private newest: Checkpoint | undefined;
  private writing: Promise<void> | undefined;
  failure: unknown;

  constructor(
    private readonly sink: Sink,
    private readonly written: (c: Checkpoint) => void,
    private readonly failed: () => void,
  ) {}

  write(c: Checkpoint): void {
    this.newest = c;
    this.writing ??= this.loop();
  }

  private async loop(): Promise<void> {
    try {
      while (this.newest) {
        const c = this.newest;
        this.newest = undefined;
        await this.sink.writeCheckpoint(c);
        this.written(c);
      }
    } catch (e) {
      this.failure = e;
      this.failed();
    } finally {
      this.writing = undefined;
    }
  }

  /** Waits for the writes given so far; rejects if one failed. */
  async flush(): Promise<void> {
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }
}
