/**
 * The fuzzer of the byte-stream path (`binlog dump -`, `readBinlog` of a stream): the same mutants as the
 * file fuzzer, each given in chunks of random sizes, must give what decoding the whole buffer gives: the
 * same events in the same order, and the same typed error at the same offset, or none. Deterministic for a
 * seed.
 */
import { Readable } from 'node:stream';
import { BinlogError } from '../../runtime/core/errors.js';
import { toJsonLine } from '../../runtime/core/dump-json.js';
import { iterateBinlog, readBinlog } from '../../runtime/io/stream.js';
import { mutants, rng, type FuzzResult } from './fuzz.js';

/** What a reading gave: each event's line, then how it ended. */
interface Outcome {
  lines: string[];
  end: string;
}

/** How a reading ended: 'end', a typed error's kind and offset, or (a failure) another exception. */
function ending(e: unknown): string {
  if (e instanceof BinlogError && e.kind !== 'internal') return `${e.kind} at ${e.offset}`;
  return `untyped ${(e as Error).name}: ${(e as Error).message.slice(0, 200)}`;
}

function whole(input: Uint8Array): Outcome {
  const lines: string[] = [];
  try {
    for (const e of iterateBinlog(input)) lines.push(toJsonLine(e));
    return { lines, end: 'end' };
  } catch (e) {
    return { lines, end: ending(e) };
  }
}

/** The input cut into chunks of 1 to 64 bytes, most of them small, so that every boundary is crossed. */
function chunks(input: Uint8Array, rand: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < input.length;) {
    const size = 1 + Math.floor(rand() ** 2 * 64);
    out.push(input.subarray(at, at + size));
    at += size;
  }
  return out;
}

async function streamed(parts: Uint8Array[]): Promise<Outcome> {
  const lines: string[] = [];
  try {
    for await (const e of readBinlog(Readable.from(parts))) lines.push(toJsonLine(e));
    return { lines, end: 'end' };
  } catch (e) {
    return { lines, end: ending(e) };
  }
}

/** Runs `count` mutants both ways; a case whose readings differ, or that throws untyped, is a failure. */
export async function fuzzByteStream(corpus: Uint8Array[], count: number, seed: number): Promise<FuzzResult> {
  const rand = rng(seed ^ 0x5eed);
  const result: FuzzResult = { cases: count, decoded: 0, refused: 0, failures: [], slowestMs: 0 };
  for (const { n, mutation, input } of mutants(corpus, count, seed)) {
    const start = performance.now();
    const [a, b] = [whole(input), await streamed(chunks(input, rand))];
    result.slowestMs = Math.max(result.slowestMs, performance.now() - start);
    const problem = difference(a, b);
    if (problem) result.failures.push({ case: n, mutation, problem, input });
    else if (a.end === 'end') result.decoded++;
    else result.refused++;
  }
  return result;
}

/** What differs between the whole buffer's reading and the stream's, or undefined when nothing does. */
function difference(a: Outcome, b: Outcome): string | undefined {
  for (const o of [a, b]) if (o.end.startsWith('untyped')) return o.end;
  const n = a.lines.findIndex((line, i) => line !== b.lines[i]);
  if (n >= 0) return `event ${n} differs: ${a.lines[n]!.slice(0, 120)} / ${b.lines[n]?.slice(0, 120)}`;
  if (a.lines.length !== b.lines.length) return `${a.lines.length} events from the buffer, ${b.lines.length} streamed`;
  if (a.end !== b.end) return `the buffer's reading ended with ${a.end}, the stream's with ${b.end}`;
  return undefined;
}
