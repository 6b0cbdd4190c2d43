/**
 * The fuzzer of the byte-stream path (`binlog dump -`, `readBinlog` of a stream): the same mutants as the
 * file fuzzer, each given in chunks of random sizes, must give what decoding the whole buffer gives: the
 * same events in the same order, and the same typed error at the same offset, or none. Deterministic for a
 * seed.
 */
import { Readable } from 'node:stream';
import { toJsonLine } from '../../runtime/core/dump-json.js';
import { iterateBinlog, readBinlog } from '../../runtime/io/stream.js';
import { mutants, rng, type FuzzResult } from './fuzz.js';
import { difference, reading } from './outcomes.js';

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

/** Runs `count` mutants both ways; a case whose readings differ, or that throws untyped, is a failure. */
export async function fuzzByteStream(corpus: Uint8Array[], count: number, seed: number): Promise<FuzzResult> {
  const rand = rng(seed ^ 0x5eed);
  const result: FuzzResult = { cases: count, decoded: 0, refused: 0, failures: [], slowestMs: 0 };
  for (const { n, mutation, input } of mutants(corpus, count, seed)) {
    const start = performance.now();
    const whole = await reading((lines) => {
      for (const e of iterateBinlog(input)) lines.push(toJsonLine(e));
    });
    const streamed = await reading(async (lines) => {
      for await (const e of readBinlog(Readable.from(chunks(input, rand)))) lines.push(toJsonLine(e));
    });
    result.slowestMs = Math.max(result.slowestMs, performance.now() - start);
    const problem = difference(whole, streamed);
    if (problem) result.failures.push({ case: n, mutation, problem, input });
    else if (whole.end === 'end') result.decoded++;
    else result.refused++;
  }
  return result;
}
