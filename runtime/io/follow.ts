/**
 * Following a binlog that a server is still writing: read to the end, wait for more (an incomplete event
 * is kept until the rest of it arrives), and at a ROTATE go on with the next file in the same folder.
 */
import { open, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEffects } from '../../generated/events.js';
import type { BinlogEvent } from '../events/event-codec.js';
import { Framer, type ReadOptions } from './stream.js';

export interface FollowOptions extends ReadOptions {
  /** Stops following (the generator then returns). */
  signal?: AbortSignal;
  /** How often to look for new bytes (default 100 ms). */
  pollMs?: number;
}

const CHUNK = 1 << 20;

export async function* followBinlog(path: string, options: FollowOptions = {}): AsyncGenerator<BinlogEvent> {
  const poll = options.pollMs ?? 100;
  let file = path;
  while (!options.signal?.aborted) {
    const next = yield* followOne(file, options, poll);
    if (next === undefined) return;
    file = join(dirname(file), next);
    // The server creates the next file right after writing the ROTATE; wait for it.
    while (!(await exists(file))) if (!(await idle(poll, options.signal))) return;
  }
}

/** Follows one file until a ROTATE (returning the next file's name) or the signal (returning undefined). */
async function* followOne(path: string, options: FollowOptions, poll: number): AsyncGenerator<BinlogEvent, string | undefined> {
  const framer = new Framer(options);
  const handle = await open(path, 'r');
  const buf = new Uint8Array(CHUNK);
  let offset = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, offset);
      if (bytesRead === 0) {
        if (!(await idle(poll, options.signal))) return undefined;
        continue;
      }
      offset += bytesRead;
      framer.push(buf.slice(0, bytesRead));
      for (const event of framer.drain()) {
        yield event;
        if (EventEffects[event.type] === 'rotates' && 'nextFile' in event && typeof event.nextFile === 'string') return event.nextFile;
      }
    }
  } finally {
    await handle.close();
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
