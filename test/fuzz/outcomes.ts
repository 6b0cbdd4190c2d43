/**
 * Two readings of one input compared (the fuzzers of the byte-stream path and of the dump's path): each
 * reading's lines and how it ended, and what differs between two of them.
 */
import { BinlogError } from '../../runtime/core/errors.js';

/** What a reading gave: each event's line, then how it ended. */
export interface Outcome {
  lines: string[];
  end: string;
}

/** How a reading ended: a typed error's kind and offset, or (a failure) another exception. */
function ending(e: unknown): string {
  if (e instanceof BinlogError && e.kind !== 'internal') return `${e.kind} at ${e.offset}`;
  return `untyped ${(e as Error).name}: ${(e as Error).message.slice(0, 200)}`;
}

/** The lines `read` gives, and its end: 'end', or the error that stopped it. */
export async function reading(read: (lines: string[]) => Promise<void> | void): Promise<Outcome> {
  const lines: string[] = [];
  try {
    await read(lines);
    return { lines, end: 'end' };
  } catch (e) {
    return { lines, end: ending(e) };
  }
}

/** What differs between two readings (an untyped exception in either first), or undefined. */
export function difference(a: Outcome, b: Outcome): string | undefined {
  for (const o of [a, b]) if (o.end.startsWith('untyped')) return o.end;
  const n = a.lines.findIndex((line, i) => line !== b.lines[i]);
  if (n >= 0) return `event ${n} differs: ${a.lines[n]!.slice(0, 160)} / ${b.lines[n]?.slice(0, 160)}`;
  if (a.lines.length !== b.lines.length) return `${a.lines.length} events one way, ${b.lines.length} the other`;
  if (a.end !== b.end) return `one reading ended with ${a.end}, the other with ${b.end}`;
  return undefined;
}
