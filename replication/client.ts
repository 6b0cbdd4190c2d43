/**
 * `connectBinlog`: a running server's binlog read as a replica reads it, event by event, decoded as the
 * file readers decode (runtime/io/stream.ts's Framer, the same filters, payload forms and errors), so
 * that an event is the same object and the same JSON line as the file's event at that `pos`.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { Framer, inForm, selectionOf, type ReadOptions } from '../runtime/io/stream.js';
import { CheckpointTracker, type Checkpoint } from './checkpoint.js';
import { startDump, type DumpOptions, type DumpStart } from './dump.js';
import { liveFrames, type LiveFrame } from './frames.js';
import { Wire, type ConnectOptions } from './wire.js';

export interface LiveOptions extends ConnectOptions, DumpOptions, Omit<ReadOptions, 'file' | 'maxEventSize'> {}

/** A dump in progress: its events, and where to start the next one to go on after those handled. */
export interface BinlogStream extends AsyncIterable<BinlogEvent> {
  /**
   * Where to start again (`file`, `position`, or `gtid`) to get the transactions after those whose
   * events have been handed out: it moves when the last event of a transaction is handed out, so a
   * consumer stores it once it has handled that event. Before the first event: the start.
   */
  readonly checkpoint: Checkpoint;
  /** Where the dump started, as the source was asked, once connected. */
  readonly start: DumpStart | undefined;
  /** Ends the dump and closes the connection (leaving the loop over the events does too). */
  close(): void;
}

/**
 * Connects, asks for the binlog from `file` and `position`, after the GTID state `gtid`, or from now,
 * and gives its events as they come. Events the source sends beside its file's carry `notInFile`; they
 * pass no filter and move no checkpoint.
 */
export function connectBinlog(options: LiveOptions): BinlogStream {
  let tracker: CheckpointTracker | undefined;
  const dump = new LiveDump(options);
  return {
    [Symbol.asyncIterator]: () =>
      dump.run((frames, start) => {
        tracker = new CheckpointTracker({ file: start.file, position: start.position }, start.gtid);
        return decoded(frames, start, tracker, options);
      }),
    get checkpoint() {
      return tracker?.checkpoint ?? { file: options.file ?? '', position: options.position ?? 4, gtid: options.gtid ?? '' };
    },
    get start() {
      return dump.start;
    },
    close: () => dump.close(),
  };
}

/**
 * The dump's events undecoded, as the source sends them (those of its files byte for byte): what a
 * binlog archiver writes. Each is decoded only as far as the frame needs (a ROTATE's next file).
 */
export function connectBinlogFrames(options: ConnectOptions & DumpOptions): AsyncIterable<LiveFrame> & { close(): void } {
  const dump = new LiveDump(options);
  return { [Symbol.asyncIterator]: () => dump.run((frames) => frames), close: () => dump.close() };
}

/** One connection and its dump, run for one loop over what `over` makes of its frames. */
class LiveDump {
  start: DumpStart | undefined;
  private wire: Wire | undefined;
  private closed = false;

  constructor(private readonly options: ConnectOptions & DumpOptions) {}

  async *run<T>(over: (frames: AsyncIterable<LiveFrame>, start: DumpStart) => AsyncIterable<T>): AsyncGenerator<T> {
    const wire = (this.wire = await Wire.open(this.options));
    try {
      if (this.closed) return;
      const dump = await startDump(wire, this.options);
      this.start = dump.start;
      yield* over(liveFrames(dump, this.options.until === 'file'), dump.start);
    } finally {
      wire.close();
    }
  }

  close(): void {
    this.closed = true;
    this.wire?.close();
  }
}

/** The frames decoded by the file readers' Framer, through the filters, the checkpoint following. */
async function* decoded(frames: AsyncIterable<LiveFrame>, start: DumpStart, tracker: CheckpointTracker, options: LiveOptions): AsyncGenerator<BinlogEvent> {
  const framer = new Framer(options);
  // The fake ROTATE comes before any FORMAT_DESCRIPTION: whether it ends with a CRC32 is the source's binlog_checksum.
  framer.format.checksums = start.checksums;
  const selection = selectionOf(options);
  for await (const f of frames) {
    framer.file = f.file;
    const event = framer.event(f.bytes, f.pos);
    if (f.notInFile) {
      yield { ...event, notInFile: f.notInFile };
      continue;
    }
    for (const e of selection ? selection.apply([event]) : [event]) yield* handedOut(e, tracker, options);
    if (selection?.stopped) return;
  }
  if (selection) for (const e of selection.end()) yield* handedOut(e, tracker, options);
}

/** One event in the form asked for (a payload's events after it when flat): the checkpoint moves before the last is handed out. */
function* handedOut(e: BinlogEvent, tracker: CheckpointTracker, options: LiveOptions): Generator<BinlogEvent> {
  const parts = [...inForm([e], options)];
  for (let i = 0; i < parts.length; i++) {
    if (i === parts.length - 1) tracker.step(e);
    yield parts[i]!;
  }
}
