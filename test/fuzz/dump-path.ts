/**
 * The fuzzer of the dump's own path (`binlog dump`'s): the same mutants as the file fuzzer, read with the
 * dump's rows (images kept as bytes, written as JSON in one pass) and written by writeDumpEvent, must give
 * the line of each event that the eager decode gives, and end where it ends, with the same typed error.
 * Deterministic for a seed.
 */
import { JsonBytes } from '../../runtime/core/dump-json-bytes.js';
import { toJsonLine } from '../../runtime/core/dump-json.js';
import { writeDumpEvent, type DumpReadEvent } from '../../runtime/events/event-dump-json.js';
import { iterateBinlog, type ReadOptions } from '../../runtime/io/stream.js';
import { DUMP_ROWS, type DumpRowsOption } from '../../runtime/rows/row-tables.js';
import { mutants, type FuzzResult } from './fuzz.js';
import { difference, reading } from './outcomes.js';

/** The dump's reading: its rows kept as bytes, to be written as JSON in one pass. */
const DUMPED: ReadOptions & DumpRowsOption = { [DUMP_ROWS]: true };

/** Runs `count` mutants both ways; a case whose lines or ending differ, or that throws untyped, fails. */
export async function fuzzDumpPath(corpus: Uint8Array[], count: number, seed: number): Promise<FuzzResult> {
  const result: FuzzResult = { cases: count, decoded: 0, refused: 0, failures: [], slowestMs: 0 };
  const [w, rows] = [new JsonBytes(), new JsonBytes()];
  for (const { n, mutation, input } of mutants(corpus, count, seed)) {
    const start = performance.now();
    const eager = await reading((lines) => {
      for (const e of iterateBinlog(input)) lines.push(toJsonLine(e));
    });
    const dumped = await reading((lines) => {
      w.pos = 0;
      for (const e of iterateBinlog(input, DUMPED)) {
        // The reader types its events as the eager ones; under DUMP_ROWS their rows are JsonRows.
        writeDumpEvent(w, rows, e as DumpReadEvent);
        lines.push(w.take().toString('utf8'));
      }
    });
    result.slowestMs = Math.max(result.slowestMs, performance.now() - start);
    const problem = difference(eager, dumped);
    if (problem) result.failures.push({ case: n, mutation, problem, input });
    else if (eager.end === 'end') result.decoded++;
    else result.refused++;
  }
  return result;
}
