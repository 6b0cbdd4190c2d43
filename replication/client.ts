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
  let start: DumpStart | undefined;
  let wire: Wire | undefined;
  let closed = false;
  const events = async function* (): AsyncGenerator<BinlogEvent> {
    wire = await Wire.open(options);
    try {
      if (closed) return;
      const dump = await startDump(wire, options);
      start = dump.start;
      tracker = new CheckpointTracker({ file: dump.start.file, position: dump.start.position }, dump.start.gtid);
      yield* decoded(liveFrames(dump, options.until === 'file'), dump.start, tracker, options);
    } finally {
      wire.close();
    }
  };
  return {
    [Symbol.asyncIterator]: events,
    get checkpoint() {
      return tracker?.checkpoint ?? { file: options.file ?? '', position: options.position ?? 4, gtid: options.gtid ?? '' };
    },
    get start() {
      return start;
    },
    close() {
      closed = true;
      wire?.close();
    },
  };
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
