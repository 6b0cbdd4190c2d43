/**
 * `connectBinlog`: a running server's binlog read as a replica reads it, event by event, decoded as the
 * file readers decode (runtime/io/stream.ts's Framer, the same filters, payload forms and errors), so
 * that an event is the same object and the same JSON line as the file's event at that `pos`.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { ConnectionError } from '../runtime/core/errors.js';
import { Framer, inForm, selectionOf, type ReadOptions } from '../runtime/io/stream.js';
import type { HintFn } from '../runtime/values/column.js';
import type { Text } from '../runtime/core/reader.js';
import type { SchemaHistory } from '../runtime/tables/history.js';
import { Backoff, isTransient, type ReconnectOptions } from '../protocol/backoff.js';
import { resumeAt, type Checkpoint, type CheckpointedEvents } from '../protocol/checkpoint.js';
import { MariadbGtidState, MysqlGtidSet, type GtidState } from '../protocol/gtid-sets.js';
import { CheckpointTracker } from './checkpoint-tracker.js';
import { InformationSchemaColumns } from './replica-columns.js';
import { startDump, type DumpOptions, type DumpStart } from './replica-dump.js';
import { liveFrames, type LiveFrame } from './replica-frames.js';
import { Wire, type ConnectOptions, type QueueStats } from './wire.js';

export interface LiveOptions extends ConnectOptions, DumpOptions, Omit<ReadOptions, 'file' | 'maxEventSize'> {
  /**
   * Connect again when the connection is lost (the server restarted or stopped, the dump thread killed,
   * the network cut, no heartbeat in time), from where the events handed out stop: `true` for the
   * defaults, or the attempts and backoff. Off by default: the loss is the ConnectionError then.
   */
  reconnect?: boolean | ReconnectOptions;
  /**
   * 'information_schema': for tables whose TABLE_MAP has no column names (binlog_row_metadata NO_LOG or
   * MINIMAL), read names, signedness, charsets and ENUM/SET members from information_schema.COLUMNS
   * over a second connection (replication/replica-columns.ts says what it cannot know). `columnHints` given
   * as well come first.
   */
  columnNames?: 'information_schema';
}

/** A dump in progress: its events, and where to start the next one to go on after those handled. */
export interface BinlogStream extends CheckpointedEvents {
  /**
   * Where to start again (`file`, `position`, or `gtid`) to get the transactions after those whose
   * events have been handed out: it moves when the last event of a transaction is handed out, so a
   * consumer stores it once it has handled that event. Before the first event, it is the start.
   */
  readonly checkpoint: Checkpoint;
  /** Where the dump started, as the source was asked, once connected (the first connection's). */
  readonly start: DumpStart | undefined;
  /** How many times the connection was made again after a loss. */
  readonly reconnects: number;
  /** The packets waiting for the consumer: bytes now, the peak, and how often the socket was paused. */
  readonly queue: Readonly<QueueStats>;
  /** Ends the dump and closes the connection (leaving the loop over the events does too). */
  close(): void;
}

/**
 * Connects, asks for the binlog from `file` and `position`, after the GTID state `gtid`, or from now,
 * and gives its events as they come. Events the source sends beside its file's carry `notInFile`; they
 * pass no filter and move no checkpoint.
 *
 * After a reconnect, the dump starts again at the end of the last transaction read (filtered out or not)
 * and passes over the events already read before the loss. A transaction cut by the loss is so handed
 * out once: the part before the loss as it came, the rest after the reconnect. Nothing is held for it.
 */
export function connectBinlog(options: LiveOptions): BinlogStream {
  let trackers: Trackers | undefined;
  const dump = new LiveDump(options, () => resumeAt(trackers!.read.checkpoint));
  return {
    [Symbol.asyncIterator]: () => decoded(dump, options, (t) => (trackers = t)),
    get checkpoint() {
      return (
        trackers?.handed.checkpoint ?? {
          file: options.file ?? '',
          position: options.position ?? 4,
          gtid: options.gtid ?? '',
        }
      );
    },
    get start() {
      return dump.start;
    },
    get reconnects() {
      return dump.reconnects;
    },
    queue: dump.queue,
    close: () => dump.close(),
  };
}

/**
 * The dump's events undecoded, as the source sends them (those of its files byte for byte): what a
 * binlog archiver writes. Each is decoded only as far as the frame needs (a ROTATE's next file).
 */
export function connectBinlogFrames(
  options: ConnectOptions & DumpOptions & Pick<LiveOptions, 'reconnect'>,
): AsyncIterable<LiveFrame> & { close(): void } {
  // An archive writes frames, not transactions, so after a reconnect it goes on right after the last
  // frame it was handed, even in the middle of a transaction.
  const dump: LiveDump = new LiveDump(options, () => dump.afterLast());
  return { [Symbol.asyncIterator]: () => dump.frames(() => {}), close: () => dump.close() };
}

/** A dump's frames, over as many connections as the reconnect options allow, each frame of a file once. */
class LiveDump {
  start: DumpStart | undefined;
  reconnects = 0;
  readonly queue: QueueStats = { bytes: 0, peak: 0, pauses: 0 };
  private wire: Wire | undefined;
  private closed = false;
  /** The last frame of a file handed out. */
  private last: LiveFrame | undefined;
  private readonly backoff: Backoff | undefined;

  constructor(
    private readonly options: LiveOptions,
    /** Where a new connection's dump starts. */
    private readonly resume: () => Pick<DumpOptions, 'file' | 'position' | 'gtid'>,
  ) {
    this.backoff = options.reconnect ? new Backoff(options.reconnect) : undefined;
  }

  /** The frames; `started` is told of each connection's start before its frames. */
  async *frames(started: (start: DumpStart) => void): AsyncGenerator<LiveFrame> {
    for (;;) {
      try {
        for await (const f of this.connection(this.start ? this.resume() : {}, started)) {
          // A frame at or before the last one handed out was read before the loss, and is not handed out twice.
          if (!f.notInFile && this.last && !isAfter(f, this.last)) continue;
          if (!f.notInFile) this.last = f;
          yield f;
        }
        return;
      } catch (e) {
        if (this.closed || !this.backoff || !isTransient(e)) throw e;
        await this.backoff.next(e as Error);
        if (this.closed) return;
      }
    }
  }

  private async *connection(
    at: Pick<DumpOptions, 'file' | 'position' | 'gtid'>,
    started: (start: DumpStart) => void,
  ): AsyncGenerator<LiveFrame> {
    const wire = (this.wire = await Wire.open(this.options));
    try {
      if (this.closed) return;
      const dump = await startDump(wire, { ...this.options, ...at }, this.queue);
      if (this.start) this.reconnects++;
      this.start ??= dump.start;
      this.backoff?.started();
      started(dump.start);
      yield* liveFrames(dump, this.options.until === 'file');
      // A dump that waits for new events ends only when the server ends it (a shutdown sends its EOF).
      if ((this.options.until ?? 'never') === 'never') throw new ConnectionError('the server ended the dump');
    } finally {
      wire.close();
    }
  }

  /** Where a dump goes on after the last frame handed out (before any: where it started). */
  afterLast(): Pick<DumpOptions, 'file' | 'position' | 'gtid'> {
    const f = this.last;
    return f ? { file: f.file, position: f.pos + f.bytes.length, gtid: undefined } : {};
  }

  close(): void {
    this.closed = true;
    this.backoff?.cancel();
    this.wire?.close();
  }
}

/** Whether frame `f` comes after `last` in the server's binlog: a later offset, or a later file. */
function isAfter(f: LiveFrame, last: LiveFrame): boolean {
  if (f.file === last.file) return f.pos > last.pos;
  return fileNumber(f.file) > fileNumber(last.file);
}

/** A binlog file's sequence number, its extension ('binlog.000042' → 42; past 999999 it grows a digit). */
function fileNumber(name: string): number {
  return Number(/\.(\d+)$/.exec(name)?.[1] ?? -1);
}

/** What the events handed out have reached (the checkpoint), and what the events read have (a reconnect's start). */
interface Trackers {
  handed: CheckpointTracker;
  read: CheckpointTracker;
}

/** The frames decoded by the file readers' Framer, through the filters, the checkpoints following. */
async function* decoded(
  dump: LiveDump,
  options: LiveOptions,
  tracked: (t: Trackers) => void,
): AsyncGenerator<BinlogEvent> {
  const columns = options.columnNames === 'information_schema' ? new InformationSchemaColumns(options) : undefined;
  try {
    yield* decodedWith(dump, options, tracked, columns);
  } finally {
    columns?.close();
  }
}

async function* decodedWith(
  dump: LiveDump,
  options: LiveOptions,
  tracked: (t: Trackers) => void,
  columns: InformationSchemaColumns | undefined,
): AsyncGenerator<BinlogEvent> {
  const given = options.columnHints;
  // With a schema history, information_schema's answers are definitions it checks, not hints.
  const history = options.schemaHistory;
  const hint: HintFn | undefined =
    columns && !history ? (t, c) => ({ ...columns.hint(t, c), ...given?.(t, c) }) : undefined;
  const framer = new Framer(hint ? { ...options, columnHints: hint } : options);
  const selection = selectionOf(options);
  let trackers: Trackers | undefined;
  const frames = dump.frames((start) => {
    // The fake ROTATE comes before any FORMAT_DESCRIPTION: whether it ends with a CRC32 is the source's
    // binlog_checksum.
    framer.format.checksums = start.checksums;
    if (trackers) return;
    const at = { file: start.file, position: start.position };
    trackers = { handed: new CheckpointTracker(at, start.gtid), read: new CheckpointTracker(at, copyOf(start.gtid)) };
    tracked(trackers);
  });
  for await (const f of frames) {
    framer.file = f.file;
    let event = framer.event(f.bytes, f.pos);
    const again =
      columns && (history ? await learned(event, framer, columns, history) : await hinted(event, framer, columns));
    if (again) event = framer.event(f.bytes, f.pos);
    if (f.notInFile) {
      yield { ...event, notInFile: f.notInFile };
      continue;
    }
    trackers!.read.step(event);
    for (const e of selection ? selection.apply([event]) : [event]) yield* handedOut(e, trackers!.handed, options);
    if (selection?.stopped) return;
  }
  if (selection) for (const e of selection.end()) yield* handedOut(e, trackers!.handed, options);
}

/**
 * With information_schema's columns: a TABLE_MAP without names whose table's columns were (re)read now,
 * to be decoded again with them; a DDL statement marks the tables to be read again.
 */
async function hinted(event: BinlogEvent, framer: Framer, columns: InformationSchemaColumns): Promise<boolean> {
  if (event.type === 'QUERY_EVENT') columns.passed(event.query);
  if (event.type !== 'TABLE_MAP_EVENT' || event.optionalMetadata.some((m) => m.code === 'COLUMN_NAME')) return false;
  if (!(await columns.load(event.schemaName, event.tableName, event.columnTypes.length))) return false;
  framer.format.tables.forget(event.tableId);
  return true;
}

/**
 * With information_schema's columns and a schema history: a TABLE_MAP without names whose table the
 * history does not have, given COLUMNS's definition of it now, to be decoded again with it (which checks it).
 */
async function learned(
  event: BinlogEvent,
  framer: Framer,
  columns: InformationSchemaColumns,
  history: SchemaHistory,
): Promise<boolean> {
  if (event.type !== 'TABLE_MAP_EVENT' || event.optionalMetadata.some((m) => m.code === 'COLUMN_NAME')) return false;
  const name = (v: Text) => (typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));
  const qualified = `${name(event.schemaName)}.${name(event.tableName)}`;
  if (history.has(qualified)) return false;
  const definition = await columns.definition(event.schemaName, event.tableName);
  if (!definition) return false;
  const at = { ...(event.file === undefined ? {} : { file: event.file }), pos: event.pos };
  history.learn(qualified, definition, at, '-- information_schema.COLUMNS at its first TABLE_MAP');
  framer.format.tables.forget(event.tableId);
  return true;
}

/** A second GTID state that starts equal to `g` and grows apart. */
function copyOf(g: GtidState): GtidState {
  return g instanceof MysqlGtidSet ? new MysqlGtidSet(g.toString()) : new MariadbGtidState(g.toString());
}

/**
 * One event in the form asked for (a payload's events after it when flat): the checkpoint moves before the last is
 * handed out.
 */
function* handedOut(e: BinlogEvent, tracker: CheckpointTracker, options: LiveOptions): Generator<BinlogEvent> {
  const parts = [...inForm([e], options)];
  for (let i = 0; i < parts.length; i++) {
    if (i === parts.length - 1) tracker.step(e);
    yield parts[i]!;
  }
}
