/**
 * `binlog dump` writes its JSON as bytes (runtime/core/json-bytes.ts): byte for byte what toJsonLine, the
 * object path it replaced, writes, on values made to be hard, every shared fixture, and fuzzed inputs.
 * The binlogs of the MariaDB tests are checked where they are made (test/support/rows.ts's expectRoundTrip).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJsonLine } from '../runtime/core/json-form.js';
import { decodeBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { JsonBytes } from '../runtime/core/json-bytes.js';
import { expectSameEventJson, expectSameJson, jsonDisagreement } from './support/dump-json.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { fuzzCorpus } from './fuzz/corpus.js';
import { mutants } from './fuzz/fuzz.js';

describe('JSON written as bytes', () => {
  it('escapes and numbers as JSON.stringify and the replacer write them', () => {
    const hard = [
      'plain',
      'quote " backslash \\ slash / \b\f\n\r\t \u0000 \u001f \u007f',
      'é ß 名前 😀 \ud83d\ude00',
      'lone \ud800 and \udfff and \udc00\ud800 reversed',
      `${'long enough for the copy path '.repeat(3)}é 名`,
      `${'long enough, then an escape '.repeat(3)}"\n`,
      `${'long, then a lone surrogate '.repeat(3)}\ud800`,
      0, -0, 1, -1, 0.1, -1e-7, 1e21, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1.7976931348623157e308, 5e-324, NaN, Infinity, -Infinity,
      9, 10, 99999999, 100000000, 2147483647, 2147483648, -2147483648, -2147483649, 4294967295, 100000000 * 21474836 + 99999999, 1e15 + 7, 4503599627370497,
      10n, -10n, 2147483648n, -100000000000000007n, 9007199254740991n, 9007199254740992n, -9007199254740992n, 18446744073709551615n, -9223372036854775808n,
      true, false, null,
      new Uint8Array([0, 1, 0xab, 0xff]), Buffer.from('buffer'), new Uint8Array(0),
      [undefined, () => 1, null, [], {}],
      { a: undefined, b: () => 1, c: 1, '10': 'integer keys first', 'k"\\\n': 'escaped key', 'é': 'non-ASCII key' },
      Object.assign(Object.create(null) as object, { x: 1, y: [-0] }),
      { nested: { bytes: new Uint8Array([1]), big: 2n ** 64n, neg: -0 } },
    ];
    expectSameJson(hard, 'hard values');
  });

  it("rows whose images' columns change from one change to the next", () => {
    const changes = [
      { before: { a: 1, b: 'x' }, after: { a: 2, b: null } },
      { after: { b: 'y', a: -0, c: new Uint8Array([7]) }, nullSpare: { after: 3 } },
      { before: { '1': 'integer name', z: 1n } },
      { after: Object.assign(Object.create(null) as object, { a: 1 }) },
      { before: { a: undefined, b: 2 } },
      Object.assign(Object.create(null) as object, { after: { a: 1 } }),
    ];
    expectSameJson([changes], 'rows', (w, v) => w.rows(v));
  });

  it('finds a difference when there is one', () => {
    // The checker itself: a writer that gets -0 wrong must be caught.
    const original = JsonBytes.prototype.number;
    JsonBytes.prototype.number = function (n: number) {
      this.ascii(String(n));
    };
    try {
      expect(jsonDisagreement([{ x: -0 }])).toEqual({ at: 0, reference: '{"x":"-0"}', written: '{"x":0}' });
    } finally {
      JsonBytes.prototype.number = original;
    }
  });

  it('grows past its buffer for one long line', () => {
    const long = { query: 'x'.repeat(100_000), rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, v: `é${i}` })) };
    expectSameJson([long], 'one long value');
  });

  it('fuzzed binlogs: every event that decodes', () => {
    const corpus = fuzzCorpus();
    let compared = 0;
    for (const { n, mutation, input } of mutants(corpus, 3000, 20261203)) {
      compared += expectSameEventJson(input, `fuzz case ${n} (${mutation})`).events;
    }
    expect(compared).toBeGreaterThan(10_000);
  }, 120_000);
});

describeWithFixtures('JSON written as bytes, shared fixtures', () => {
  it('every event of every fixture', () => {
    let compared = 0;
    let generated = 0;
    for (const f of fixtures()) {
      const n = expectSameEventJson(readFileSync(f.path), f.name);
      compared += n.events;
      generated += n.generated;
    }
    expect(compared).toBeGreaterThan(10_000);
    // The generated writers wrote nearly all of them, the rest (raw, undecoded) going through JsonBytes.value.
    expect(generated / compared).toBeGreaterThan(0.95);
  }, 300_000);
});

/** `binlog dump [args] FILE`'s standard output. */
function dump(args: string[], input?: Uint8Array): Buffer {
  const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'binlog'), ...args], { input, maxBuffer: 1 << 30 });
  return r.stdout;
}

describeWithFixtures('binlog dump, end to end, against the object path', () => {
  const byName = (end: string) => fixtures().find((f) => f.name.endsWith(end))!;
  const cases: [string, string[], ReadOptions][] = [
    // The dump's default is nested payloads, decodeBinlog's flat ones.
    ['mariadb-repl-bin.000002', [], { payloads: 'nested' }],
    ['tests__events__8.0__folder__binlog.000693', [], { payloads: 'nested' }],
    ['mysql-bin.sakila', [], { payloads: 'nested' }],
    ['mysql-bin.compressed', ['--payloads', 'flat'], { payloads: 'flat' }],
    ['transaction_compression.000001', [], { payloads: 'nested' }],
  ];
  for (const [name, args, options] of cases) {
    it(`${name} ${args.join(' ')}: toJsonLine's lines, and encode gives the file back`, () => {
      const f = byName(name);
      const bytes = readFileSync(f.path);
      const out = dump(['dump', ...args, f.path]);
      const lines = decodeBinlog(bytes, { ...options, file: basename(f.path) }).map((e) => `${toJsonLine(e)}\n`);
      expect(out.equals(Buffer.from(lines.join(''), 'utf8'))).toBe(true);
      const dir = mkdtempSync(join(tmpdir(), 'dump-json-'));
      try {
        dump(['encode', '-', '-o', join(dir, 'again')], out);
        expect(Buffer.compare(readFileSync(join(dir, 'again')), bytes)).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});
