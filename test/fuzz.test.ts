/**
 * Bounded fuzz runs (fixed seeds) over real binlogs: only typed errors, no hang, and anything that decodes
 * re-encodes exactly; the same mutants read as a stream in chunks give what the whole buffer gives; the
 * dump's JSON lines, mutated, give bytes or a typed error in encode. And the fuzzer itself is tested: a
 * bounds check taken out is caught.
 */
import { describe, expect, it } from 'vitest';
import { Reader } from '../runtime/core/reader.js';
import { fuzzCorpus, fuzzSeeds } from './fuzz/corpus.js';
import { fuzzByteStream } from './fuzz/byte-stream.js';
import { fuzzDumpPath } from './fuzz/dump-path.js';
import { fuzz } from './fuzz/fuzz.js';
import { fuzzJsonLines, jsonCorpus } from './fuzz/json-lines.js';

const corpus = fuzzCorpus();
const seeds = fuzzSeeds();
/** The seeds read with keys of their own: the real AES_CTR files and the MySQL 8 encrypted ones. */
const ownKeySeeds = seeds.filter((s) => 'keyring' in s.options || s.options.mariadb.cipher === 'AES_CTR');

describe('fuzzing', () => {
  it('20 000 mutated and random inputs: typed errors only, no hang, exact re-encoding', () => {
    const r = fuzz(seeds, 20_000, 20261201);
    expect(r.failures.map((f) => `case ${f.case} (${f.mutation}): ${f.problem}`)).toEqual([]);
    // The run reached both outcomes in quantity, so it exercised the decoders and not only the framer.
    expect(r.decoded).toBeGreaterThan(1000);
    expect(r.refused).toBeGreaterThan(1000);
  }, 120_000);

  it('2 000 mutants of the AES_CTR and MySQL 8 encrypted seeds, each read with its own keys', () => {
    expect(ownKeySeeds.map((s) => ('keyring' in s.options ? 'mysql' : 'ctr'))).toEqual([
      'ctr',
      'ctr',
      'mysql',
      'mysql',
    ]);
    const r = fuzz(ownKeySeeds, 2000, 20261208);
    expect(r.failures.map((f) => `case ${f.case} (${f.mutation}): ${f.problem}`)).toEqual([]);
    expect(r.decoded).toBeGreaterThan(100);
    expect(r.refused).toBeGreaterThan(100);
  }, 120_000);

  it(
    '5 000 mutants read as a stream in chunks of 1 to 64 bytes: ' + 'the same events and errors as the buffer',
    async () => {
      const r = await fuzzByteStream(corpus, 5000, 20261206);
      expect(r.failures.map((f) => `case ${f.case} (${f.mutation}): ${f.problem}`)).toEqual([]);
      expect(r.decoded).toBeGreaterThan(250);
      expect(r.refused).toBeGreaterThan(250);
    },
    120_000,
  );

  it("5 000 mutants through the dump's own path: each event's line the eager decode's, the same ending", async () => {
    const r = await fuzzDumpPath(corpus, 5000, 20261207);
    expect(r.failures.map((f) => `case ${f.case} (${f.mutation}): ${f.problem}`)).toEqual([]);
    expect(r.decoded).toBeGreaterThan(250);
    expect(r.refused).toBeGreaterThan(250);
  }, 120_000);

  it("2 000 mutated dumps through encode's reading: bytes or typed errors only, no hang", () => {
    const r = fuzzJsonLines(jsonCorpus(corpus), 2000, 20261206);
    expect(r.failures.map((f) => `case ${f.case} (${f.mutation}): ${f.problem}`)).toEqual([]);
    expect(r.decoded).toBeGreaterThan(100);
    expect(r.refused).toBeGreaterThan(500);
  }, 120_000);

  it('catches a missing bounds check', () => {
    const original = Reader.prototype.need;
    Reader.prototype.need = () => {}; // the injected bug: fixed-size reads go unchecked
    try {
      const r = fuzz(seeds, 3000, 7);
      expect(r.failures.length).toBeGreaterThan(0);
    } finally {
      Reader.prototype.need = original;
    }
  }, 60_000);
});
