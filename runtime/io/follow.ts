/**
 * Following a binlog that a server is still writing: read to the end, wait for more (an incomplete event
 * is kept until the rest of it arrives), and at a ROTATE go on with the next file in the same folder.
 * Each event carries the `file` it is in, so that a reader can note where it is (`file`, and the `pos`
 * plus `header.eventSize` of the last event it handled) and go on from there later (`position`).
 */
import { open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEffects } from '../../generated/events.js';
import type { BinlogEvent } from '../events/event-codec.js';
import type { EventSelection } from './filter.js';
import { Framer, selected, selectionOf, type ReadOptions } from './stream.js';

export interface FollowOptions extends ReadOptions {
  /** Stops following (the generator then returns). */
  signal?: AbortSignal;
  /** How often to look for new bytes (default 100 ms). */
  pollMs?: number;
  /**
   * Where in the first file to begin: the offset of an event (an event's `pos`, or its end), as noted
   * before. The events before it are framed and checked, not decoded (but those the later ones need:
   * the FORMAT_DESCRIPTION, TABLE_MAPs), and not delivered.
   */
  position?: number;
}

const CHUNK = 1 << 20;

/** The events of the binlog `path` and of the files that follow it, as the server writes them. */
export async function* followBinlog(path: string, options: FollowOptions = {}): AsyncGenerator<BinlogEvent> {
  const poll = options.pollMs ?? 100;
  const selection = selectionOf(options);
  let file = path;
  let from = options.position ?? 0;
  while (!options.signal?.aborted) {
    const framer = new Framer({ ...options, file: basename(file) });
    const next = yield* followOne(file, framer, from, selection, options, poll);
    if (next === undefined) return;
    from = 0;
    file = join(dirname(file), next);
    // The server creates the next file right after writing the ROTATE; wait for it.
    while (!(await exists(file))) if (!(await idle(poll, options.signal))) return;
  }
}

/**
 * Follows one file from offset `from` until a ROTATE (returning the next file's name), the filters' stop
 * or the signal (returning undefined).
 */
async function* followOne(
  path: string,
  framer: Framer,
  from: number,
  selection: EventSelection | undefined,
  options: FollowOptions,
  poll: number,
): AsyncGenerator<BinlogEvent, string | undefined> {
  const signal = options.signal;
  const handle = await open(path, 'r');
  const buf = new Uint8Array(CHUNK);
  let offset = 0;
  let next: string | undefined;
  // Every event read, the filters' or not, may be the ROTATE.
  const noted = (e: BinlogEvent) => {
    if (EventEffects[e.type] === 'rotates' && 'nextFile' in e && typeof e.nextFile === 'string') next = e.nextFile;
  };
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, offset);
      if (bytesRead === 0) {
        if (!(await idle(poll, signal))) return undefined;
        continue;
      }
      offset += bytesRead;
      framer.push(buf.slice(0, bytesRead));
      if (!framer.skipTo(from)) continue;
      const read = watched(framer.drain(), noted);
      yield* selected(read, selection, options);
      if (selection?.stopped) return undefined;
      if (next !== undefined) return next;
    }
  } finally {
    await handle.close();
  }
}

function* watched(events: Iterable<BinlogEvent>, see: (e: BinlogEvent) => void): Generator<BinlogEvent> {
  for (const e of events) {
    see(e);
    yield e;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Waits `ms`; false when the signal says to stop. */
async function idle(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
