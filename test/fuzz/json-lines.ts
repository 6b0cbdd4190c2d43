/**
 * The fuzzer of encode's input: the dump's JSON lines of real binlogs, mutated as JSON (a value swapped for
 * one of another type, an integer past its field's range, a key taken out, a string or nesting far longer
 * than any binlog holds), read back as `binlog encode` reads them. What must hold for any such input: the
 * lines become bytes or a typed BinlogError, never another exception, never a hang. Deterministic for a seed.
 */
import { BinlogError } from '../../runtime/core/errors.js';
import { toJsonLine } from '../../runtime/core/dump-json.js';
import { eventFromJson } from '../../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../../runtime/io/stream.js';
import { rng, type Failure, type FuzzResult } from './fuzz.js';

type Rand = () => number;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const int = (rand: Rand, n: number) => Math.floor(rand() * n);

/** Each seed binlog's dump, as the parsed lines encode reads. */
export function jsonCorpus(binlogs: Uint8Array[]): Json[][] {
  return binlogs.map((b) => decodeBinlog(b).map((e) => JSON.parse(toJsonLine(e)) as Json));
}

/** How deep a nested value goes at the most: far past any real event's, within what JSON.parse takes. */
const DEEP = 5000;
/** The longest hex text a mutation writes: a multi-megabyte BLOB's, as in a dump of real rows. */
const LONG_HEX = 16_000_000;

/** Values of the kinds a field may be given wrongly, and integers just past each field width. */
const ODD_VALUES: Json[] = [
  -1,
  -0.5,
  2 ** 8,
  2 ** 16,
  2 ** 24,
  2 ** 32,
  2 ** 40,
  2 ** 53,
  1e308,
  '18446744073709551616',
  '-9223372036854775809',
  '',
  'x'.repeat(70_000),
  true,
  null,
  [],
  {},
  { hex: 'abc' },
  { hex: 'zz' },
];

/**
 * What stands for the deep value until the lines are text: JSON.stringify recurses and cannot write it,
 * while JSON.parse reads it, as encode's reading of a line does.
 */
const DEEP_MARK = '\u0000deep';
const DEEP_TEXT = `${'['.repeat(DEEP)}1${']'.repeat(DEEP)}`;

/** The containers of a value with their keys: the places a mutation can change. */
function places(v: Json, out: Array<[Json[] | Record<string, Json>, string | number]> = []) {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push([v, i]), places(x, out)));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) (out.push([v, k]), places(v[k]!, out));
  return out;
}

const MUTATIONS: Record<string, (at: Json[] | Record<string, Json>, key: string | number, rand: Rand) => void> = {
  oddValue(at, key, rand) {
    (at as Record<string, Json>)[key] = ODD_VALUES[int(rand, ODD_VALUES.length)]!;
  },
  remove(at, key) {
    if (Array.isArray(at)) at.splice(Number(key), 1);
    else delete at[key];
  },
  deep(at, key) {
    (at as Record<string, Json>)[key] = DEEP_MARK;
  },
  longHex(at, key, rand) {
    // Now and then an odd length, which is no bytes.
    (at as Record<string, Json>)[key] = { hex: 'ab'.repeat(LONG_HEX / 2) + (rand() < 0.5 ? 'a' : '') };
  },
  swapWithSibling(at, key, rand) {
    const keys = Object.keys(at);
    const other = keys[int(rand, keys.length)]!;
    const a = at as Record<string, Json>;
    [a[key], a[other]] = [a[other]!, a[key]!];
  },
};

/** The heavy mutations (megabytes of text, thousands of levels) are drawn less often, so a run stays quick. */
const WEIGHTS: Record<string, number> = { oddValue: 10, remove: 4, deep: 1, longHex: 0.2, swapWithSibling: 3 };

function pick(rand: Rand): string {
  const total = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
  let r = rand() * total;
  for (const [name, w] of Object.entries(WEIGHTS)) if ((r -= w) < 0) return name;
  return 'oddValue';
}

/** Runs `count` mutated dumps through encode's reading; a case slower than `maxMs` is a failure (a hang). */
export function fuzzJsonLines(corpus: Json[][], count: number, seed: number, maxMs = 5000): FuzzResult {
  const rand = rng(seed);
  const result: FuzzResult = { cases: count, decoded: 0, refused: 0, failures: [], slowestMs: 0 };
  for (let n = 0; n < count; n++) {
    const lines = structuredClone(corpus[int(rand, corpus.length)]!);
    const mutation = pick(rand);
    const spots = places(lines);
    const [at, key] = spots[int(rand, spots.length)]!;
    MUTATIONS[mutation]!(at, key, rand);
    const text = lines
      .map((l) => JSON.stringify(l))
      .join('\n')
      .replace(JSON.stringify(DEEP_MARK), DEEP_TEXT);
    const start = performance.now();
    const outcome = encoded(text);
    const ms = performance.now() - start;
    result.slowestMs = Math.max(result.slowestMs, ms);
    if (outcome === 'decoded') result.decoded++;
    else if (outcome === 'refused') result.refused++;
    else result.failures.push(failure(n, mutation, outcome, text));
    if (ms > maxMs) result.failures.push(failure(n, mutation, `took ${ms.toFixed(0)} ms`, text));
  }
  return result;
}

function failure(n: number, mutation: string, problem: string, text: string): Failure {
  return {
    case: n,
    mutation,
    problem,
    input: Buffer.from(text.length > 100_000 ? `${text.slice(0, 100_000)}…` : text),
  };
}

/** What encode makes of the lines: 'decoded' (bytes), 'refused' (a typed error), or the problem. */
function encoded(text: string): string {
  try {
    const events = text.split('\n').map((line, i) => eventFromJson(JSON.parse(line), `line ${i + 1}`));
    encodeBinlog(events, { assumeFormat: true });
    return 'decoded';
  } catch (e) {
    if (e instanceof BinlogError && e.kind !== 'internal') return 'refused';
    return (
      `${e instanceof BinlogError ? 'internal' : 'untyped'} ${(e as Error).name}: ` +
      `${(e as Error).message.slice(0, 200)}`
    );
  }
}
