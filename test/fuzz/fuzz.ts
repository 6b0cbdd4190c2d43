/**
 * The fuzzer: mutates real binlogs (bit flips, inserted and deleted bytes, truncation, forged lengths and
 * counts, swapped type codes, shuffled events) and makes random byte strings, and checks what must hold
 * for any input: decoding ends in events or a typed BinlogError (never another exception, never a
 * hang), and whatever decodes re-encodes to exactly the input bytes (so nothing was read wrong in
 * silence), encrypted events included. Deterministic for a seed.
 */
import { BinlogError } from '../../runtime/core/errors.js';
import { decodeBinlog, encodeBinlog } from '../../runtime/io/stream.js';
import { MYSQL_HEADER_LENGTH } from '../../generated/encryption.js';
import {
  encryptMysqlBinlog,
  mysqlEncryptionOf,
  type Keyring,
  type MysqlHeaderFields,
} from '../../runtime/io/mysql-encryption.js';
import type { FuzzSeed, SeedOptions } from './corpus.js';

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (rand: Rand, n: number) => Math.floor(rand() * n);

/** Start offsets of the events of a well-formed binlog. */
function eventStarts(b: Uint8Array): number[] {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: number[] = [];
  for (let p = 4; p + 19 <= b.length;) {
    out.push(p);
    const size = dv.getUint32(p + 9, true);
    if (size < 19) break;
    p += size;
  }
  return out;
}

const FORGED = [0, 1, 0xfb, 0xfc, 0xfe, 0xff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff];

const MUTATIONS: Record<string, (b: Uint8Array, rand: Rand) => Uint8Array> = {
  flipBit(b, rand) {
    const out = Uint8Array.from(b);
    const i = int(rand, out.length);
    out[i]! ^= 1 << int(rand, 8);
    return out;
  },
  setByte(b, rand) {
    const out = Uint8Array.from(b);
    out[int(rand, out.length)] = [0, 0xff, 0xfb, 0xfc, 0xfe, int(rand, 256)][int(rand, 6)]!;
    return out;
  },
  insert(b, rand) {
    const i = int(rand, b.length);
    const extra = Uint8Array.from({ length: 1 + int(rand, 8) }, () => int(rand, 256));
    return Uint8Array.from([...b.subarray(0, i), ...extra, ...b.subarray(i)]);
  },
  delete(b, rand) {
    const i = int(rand, b.length);
    return Uint8Array.from([...b.subarray(0, i), ...b.subarray(i + 1 + int(rand, 8))]);
  },
  truncate(b, rand) {
    return b.subarray(0, int(rand, b.length));
  },
  forgeLength(b, rand) {
    const out = Uint8Array.from(b);
    const i = int(rand, Math.max(1, out.length - 4));
    new DataView(out.buffer).setUint32(i, FORGED[int(rand, FORGED.length)]!, true);
    return out;
  },
  forgeEventSize(b, rand) {
    const starts = eventStarts(b);
    const out = Uint8Array.from(b);
    if (starts.length)
      new DataView(out.buffer).setUint32(
        starts[int(rand, starts.length)]! + 9,
        FORGED[int(rand, FORGED.length)]!,
        true,
      );
    return out;
  },
  swapType(b, rand) {
    const starts = eventStarts(b);
    const out = Uint8Array.from(b);
    const codes = [2, 4, 5, 13, 14, 15, 16, 19, 23, 24, 25, 30, 31, 32, 160, 161, 162, 163, 166, int(rand, 256)];
    if (starts.length) out[starts[int(rand, starts.length)]! + 4] = codes[int(rand, codes.length)]!;
    return out;
  },
  shuffle(b, rand) {
    const starts = eventStarts(b);
    if (starts.length < 3) return b;
    const ends = [...starts.slice(1), b.length];
    const events = starts.map((s, i) => b.subarray(s, ends[i]));
    const [x, y] = [1 + int(rand, events.length - 1), 1 + int(rand, events.length - 1)];
    [events[x], events[y]] = [events[y]!, events[x]!];
    return Uint8Array.from([...b.subarray(0, 4), ...events.flatMap((e) => [...e])]);
  },
  random(_b, rand) {
    const body = Uint8Array.from({ length: int(rand, 200) }, () => int(rand, 256));
    return rand() < 0.5 ? Uint8Array.from([0xfe, 0x62, 0x69, 0x6e, ...body]) : body;
  },
};

export interface Failure {
  case: number;
  mutation: string;
  problem: string;
  input: Uint8Array;
}

export interface FuzzResult {
  cases: number;
  decoded: number;
  refused: number;
  failures: Failure[];
  slowestMs: number;
}

/** The inputs of a run: `count` mutated seeds, the same for the same seed. */
export function* mutants(
  corpus: Uint8Array[],
  count: number,
  seed: number,
): Generator<{ n: number; mutation: string; input: Uint8Array; from: number }> {
  const rand = rng(seed);
  const names = Object.keys(MUTATIONS);
  for (let n = 0; n < count; n++) {
    const mutation = names[int(rand, names.length)]!;
    const from = int(rand, corpus.length);
    let input = corpus[from]!;
    // Now and then two mutations, for inputs no single change reaches.
    for (let k = 1 + (rand() < 0.2 ? 1 : 0); k > 0; k--) input = MUTATIONS[mutation]!(input, rand);
    yield { n, mutation, input, from };
  }
}

/** Runs `count` cases from `seed` over the seed binlogs; a case slower than `maxMs` is a failure (a hang). */
export function fuzz(corpus: FuzzSeed[], count: number, seed: number, maxMs = 2000): FuzzResult {
  const result: FuzzResult = { cases: count, decoded: 0, refused: 0, failures: [], slowestMs: 0 };
  const bytes = corpus.map((s) => s.bytes);
  for (const { n, mutation, input, from } of mutants(bytes, count, seed)) {
    const start = performance.now();
    const problem = check(input, corpus[from]!.options);
    const ms = performance.now() - start;
    result.slowestMs = Math.max(result.slowestMs, ms);
    if (problem === 'decoded') result.decoded++;
    else if (problem === 'refused') result.refused++;
    else result.failures.push({ case: n, mutation, problem, input });
    if (ms > maxMs) result.failures.push({ case: n, mutation, problem: `took ${ms.toFixed(0)} ms`, input });
  }
  return result;
}

function check(input: Uint8Array, options: SeedOptions): string {
  let events;
  let header: MysqlHeaderFields | undefined;
  try {
    // The seed's keys read its mutants' encrypted events; the seeds without any have none encrypted.
    events =
      'keyring' in options
        ? decodeBinlog(input, { keyring: options.keyring, onMysqlHeader: (h) => (header = h) })
        : decodeBinlog(input, { keys: options.mariadb.keys, cipher: options.mariadb.cipher });
  } catch (e) {
    if (e instanceof BinlogError && e.kind !== 'internal') return 'refused';
    return `${e instanceof BinlogError ? 'internal' : 'untyped'} ${(e as Error).name}: ${(e as Error).message}`;
  }
  try {
    // A mutation may leave no FORMAT_DESCRIPTION first: the events are written back as they were read.
    const encryption = 'mariadb' in options ? options.mariadb : undefined;
    const plain = encodeBinlog(events, { assumeFormat: true, encryption });
    const back = header && 'keyring' in options ? mysqlFile(plain, header, options.keyring, input) : plain;
    const same = back.length === input.length && back.every((b, i) => b === input[i]);
    return same ? 'decoded' : `decoded, but re-encodes to other bytes (${back.length} vs ${input.length})`;
  } catch (e) {
    return `decoded, but does not re-encode: ${(e as Error).message}`;
  }
}

/**
 * A MySQL encrypted mutant's events written back under its own header's key id, password and IV. MySQL reads
 * the header's fields up to the first type 0 and no further, so the rest of its 512 bytes is taken from the
 * input: a mutation there changes nothing that is read.
 */
function mysqlFile(plain: Uint8Array, header: MysqlHeaderFields, keyring: Keyring, input: Uint8Array): Uint8Array {
  const back = encryptMysqlBinlog(plain, mysqlEncryptionOf(header, keyring));
  const used = 7 + Buffer.byteLength(header.keyId, 'latin1') + 1 + 32 + 1 + 16;
  back.set(input.subarray(used, MYSQL_HEADER_LENGTH), used);
  return back;
}
