/**
 * `binlog dump` writes its JSON as bytes (runtime/core/dump-json-bytes.ts): byte for byte what JSON.stringify
 * writes with the dump's rules (test/support/dump-json.ts's referenceLine), on values made to be hard,
 * every shared fixture, and fuzzed inputs.
 * The binlogs of the MariaDB tests are checked where they are made (test/support/rows.ts's expectRoundTrip).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBinlog, encodeBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { JsonBytes, JsonWords } from '../runtime/core/dump-json-bytes.js';
import {
  dumpedEvents,
  expectSameEventJson,
  expectSameJson,
  jsonDisagreement,
  referenceLine,
} from './support/dump-json.js';
import { type DumpReadEvent, writeDumpEvent } from '../runtime/events/event-dump-json.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { crc32 } from 'node:zlib';
import { BinlogWriter } from '../builder/binlog-writer.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { fuzzCorpus } from './fuzz/corpus.js';
import { mutants } from './fuzz/fuzz.js';
import { SchemaHistory } from '../runtime/tables/history.js';

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
      0,
      -0,
      1,
      -1,
      0.1,
      -1e-7,
      1e21,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      2 ** 53,
      1.7976931348623157e308,
      5e-324,
      NaN,
      Infinity,
      -Infinity,
      9,
      10,
      99999999,
      100000000,
      2147483647,
      2147483648,
      -2147483648,
      -2147483649,
      4294967295,
      100000000 * 21474836 + 99999999,
      1e15 + 7,
      4503599627370497,
      10n,
      -10n,
      2147483648n,
      -100000000000000007n,
      9007199254740991n,
      9007199254740992n,
      -9007199254740992n,
      18446744073709551615n,
      -9223372036854775808n,
      true,
      false,
      null,
      new Uint8Array([0, 1, 0xab, 0xff]),
      Buffer.from('buffer'),
      new Uint8Array(0),
      [undefined, () => 1, null, [], {}],
      { a: undefined, b: () => 1, c: 1, '10': 'integer keys first', 'k"\\\n': 'escaped key', é: 'non-ASCII key' },
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

  it("UTF-8 text from its bytes: what the strict decoder's text writes, or refused where it refuses", () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const expectSame = (bytes: Uint8Array) => {
      let text: string | undefined;
      try {
        text = strict.decode(bytes);
      } catch {
        text = undefined;
      }
      const w = new JsonBytes(8);
      w.byte(0x2a);
      const wrote = w.utf8(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.length), 0, bytes.length);
      const expected = text === undefined ? '*' : `*${JSON.stringify(text)}`;
      expect([wrote, w.take().toString('utf8')], Buffer.from(bytes).toString('hex')).toEqual([
        text !== undefined,
        expected,
      ]);
    };
    // Every one- and two-byte sequence, then each lead byte with every second byte before one and two continuations,
    // and random sequences around the boundaries of the well-formed table.
    for (let a = 0; a < 256; a++) {
      expectSame(Uint8Array.of(a));
      for (let b = 0; b < 256; b++) {
        expectSame(Uint8Array.of(a, b));
        expectSame(Uint8Array.of(0x41, a, b, 0x80, 0x22));
        expectSame(Uint8Array.of(0x41, a, b, 0x80, 0x80, 0x22));
      }
    }
    let seed = 20261204;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
    const near = [
      0x00, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
      0xf4, 0xf5, 0xff,
    ];
    for (let i = 0; i < 50_000; i++)
      expectSame(
        Uint8Array.from({ length: 1 + (next() % 7) }, () => (next() % 2 ? near[next() % near.length]! : next() & 0xff)),
      );
    // Four plain ASCII bytes are copied as one word: every byte at every place of two words of letters, and
    // longer text of mostly letters with the bytes at the edges of what JSON keeps as it is.
    for (let a = 0; a < 256; a++)
      for (let k = 0; k < 9; k++) expectSame(Uint8Array.from({ length: 9 }, (_, i) => (i === k ? a : 0x61)));
    const edges = [0x00, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xc3, 0xa9, 0xff];
    for (let i = 0; i < 20_000; i++)
      expectSame(
        Uint8Array.from({ length: 4 + (next() % 13) }, () => (next() % 5 ? 0x61 : edges[next() % edges.length]!)),
      );
  });

  it("bytes written a word at a time: each text whole, its last word's padding written over, through growth", () => {
    const texts = Array.from({ length: 40 }, (_, i) => Buffer.from(`,"${'k'.repeat(i % 11)}${i}":`));
    const words = texts.map((t) => new JsonWords(t));
    const w = new JsonBytes(5);
    texts.forEach((_, i) => {
      w.words(words[i]!);
      w.byte(0x30 + (i % 10));
      // A buffer the writer is given to go on in from its start (as the dump's batches are) holds what comes after.
      if (i === 20) {
        w.use(Buffer.alloc(3, 0xff));
        w.pos = 0;
      }
    });
    const expected = texts.slice(21).map((t, i) => Buffer.concat([t, Buffer.of(0x30 + ((i + 21) % 10))]));
    expect(w.buf.subarray(0, w.pos).toString('latin1')).toBe(Buffer.concat(expected).toString('latin1'));
  });

  it('grows past its buffer for one long line', () => {
    const long = { query: 'x'.repeat(100_000), rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, v: `é${i}` })) };
    expectSameJson([long], 'one long value');
  });

  describe("the dump's rows, written from their bytes in one pass", () => {
    const sample = new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin')));
    const writeRows = decodeBinlog(sample).find((e) => e.type === 'WRITE_ROWS_EVENT_V1')!;
    // The first row of sample.people's INSERT: its null bitmap after the post-header (6 + 2), the column count and the
    // columns-present bitmap.
    const nulls = writeRows.pos + 19 + 6 + 2 + 1 + 1;
    /** The sample with the first row's bytes changed, and its event's CRC32 made right again. */
    const forged = (edit: (b: Uint8Array) => void): Uint8Array => {
      const b = Uint8Array.from(sample);
      edit(b);
      const end = writeRows.pos + writeRows.header.eventSize - 4;
      new DataView(b.buffer).setUint32(end, crc32(b.subarray(writeRows.pos, end)), true);
      return b;
    };
    /** The event at the row event's place, decoded eagerly, and its line as the dump writes it. */
    const lines = (b: Uint8Array) => {
      const at = (events: BinlogEvent[]) => events.find((e) => e.pos === writeRows.pos)!;
      const w = new JsonBytes();
      const written = writeDumpEvent(w, new JsonBytes(), at(dumpedEvents(b, 'dump')) as DumpReadEvent);
      return { eager: at(dumpedEvents(b)), line: w.take().toString('utf8'), written };
    };

    it("a value that does not read: the eager decode's line, its images kept as bytes", () => {
      // born, a DATE after id (4), name (1 + 3) and score (3): 1815-12-10, forged to month 15.
      const born = nulls + 1 + 4 + 4 + 3;
      const b = forged((b) => {
        expect(b[born]! | (b[born + 1]! << 8) | (b[born + 2]! << 16)).toBe(10 + 12 * 32 + 1815 * 512);
        const v = 10 + 15 * 32 + 1815 * 512;
        [b[born], b[born + 1], b[born + 2]] = [v & 0xff, (v >> 8) & 0xff, v >> 16];
      });
      const { eager, line, written } = lines(b);
      expect((eager as { rowImagesUndecoded?: string }).rowImagesUndecoded).toMatch(
        /^the row images do not split into rows: .*born/,
      );
      expect(line).toBe(referenceLine(eager));
      expect((written as { rowImagesUndecoded?: string }).rowImagesUndecoded).toBe(
        (eager as { rowImagesUndecoded?: string }).rowImagesUndecoded,
      );
    });

    it("unused null-bitmap bits a server would not leave: the eager decode's line, nullSpare first", () => {
      // Five columns: the bitmap's top three bits are unused, and servers set them.
      const b = forged((b) => {
        expect(b[nulls]! >> 5).toBe(7);
        b[nulls]! &= 0x1f;
      });
      const { eager, line } = lines(b);
      expect((eager as { rows: object[] }).rows[0]).toHaveProperty('nullSpare', { after: 0 });
      expect(line).toBe(referenceLine(eager));
    });

    it(
      "unused null-bitmap bits in an UPDATE's before image, after image or both: " +
        'nullSpare as the eager change has it',
      () => {
        const events = decodeBinlog(sample);
        const at = events.findIndex((e) => e.type === 'UPDATE_ROWS_EVENT_V1');
        const cases: { before?: number; after?: number }[] = [{ before: 0 }, { after: 1 }, { before: 2, after: 0 }];
        for (const nullSpare of cases) {
          const edited = events.map((e, i) =>
            i === at ? { ...e, rows: (e as { rows: object[] }).rows.map((c) => ({ nullSpare, ...c })) } : e,
          );
          const b = encodeBinlog(edited as BinlogEvent[]);
          const eager = dumpedEvents(b)[at]!;
          expect((eager as { rows: object[] }).rows[0]).toHaveProperty('nullSpare', nullSpare);
          const w = new JsonBytes();
          writeDumpEvent(w, new JsonBytes(), dumpedEvents(b, 'dump')[at] as DumpReadEvent);
          expect(w.take().toString('utf8')).toBe(referenceLine(eager));
        }
      },
    );

    it('text that is not UTF-8, and text that needs escapes', () => {
      // name 'Ada' (after its length byte) forged to bytes that are not UTF-8 (a sequence cut short by the value's
      // end among them, whose missing bytes are the next value's), then to a quote, a backslash and a newline.
      const name = nulls + 1 + 4 + 1;
      for (const bytes of [
        [0xc3, 0x28, 0x41],
        [0x41, 0x41, 0xc3],
        [0x41, 0xe2, 0x82],
        [0x22, 0x5c, 0x0a],
        [0xed, 0xa0, 0x80],
        [0xef, 0xbb, 0xbf],
      ]) {
        const { eager, line } = lines(forged((b) => b.set(bytes, name)));
        expect(line).toBe(referenceLine(eager));
      }
    });
  });

  it('integers of every width, with and without their signedness, at the edges of exact numbers', () => {
    const edges = [
      0n,
      1n,
      -1n,
      127n,
      -128n,
      2n ** 31n,
      -(2n ** 31n),
      2n ** 32n - 1n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 53n + 1n,
      -(2n ** 53n) + 1n,
      -(2n ** 53n),
      -(2n ** 53n) - 1n,
    ];
    const bigints = [...edges, 2n ** 63n - 1n, -(2n ** 63n), -(2n ** 32n), 2n ** 32n, -(2n ** 32n) - 1n];
    const unsignedBigints = [
      0n,
      1n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 63n,
      2n ** 64n - 1n,
      2n ** 64n - 2n ** 32n,
    ];
    for (const rowMetadata of ['FULL', 'NO_LOG'] as const) {
      const w = new BinlogWriter({ rowMetadata });
      const signed = w.createTable({
        schema: 's',
        name: 'i',
        columns: [
          { name: 'b', type: 'bigint' },
          { name: 'n', type: 'int' },
          { name: 't', type: 'tinyint' },
        ],
      });
      const unsigned = w.createTable({
        schema: 's',
        name: 'u',
        columns: [
          { name: 'b', type: 'bigint unsigned' },
          { name: 'n', type: 'int unsigned' },
        ],
      });
      const fits = (v: bigint, bits: number) => (v >= -(2n ** BigInt(bits - 1)) && v < 2n ** BigInt(bits - 1) ? v : 0n);
      w.insert(
        signed,
        bigints.map((b) => ({ b, n: Number(fits(b, 32)), t: Number(fits(b, 8)) })),
      ).commit();
      w.insert(
        unsigned,
        unsignedBigints.map((b) => ({ b, n: b < 2n ** 32n ? Number(b) : 7 })),
      ).commit();
      expect(expectSameEventJson(w.toBytes(), `integers, row metadata ${rowMetadata}`).events).toBeGreaterThan(5);
    }
  });

  it('text in single-byte charsets: ASCII copied from its bytes with escapes, anything else through its text', () => {
    const w = new BinlogWriter({ rowMetadata: 'FULL' });
    const t = w.createTable({
      schema: 's',
      name: 't',
      columns: [
        { name: 'v', type: 'varchar(40)', charset: 'latin1' },
        { name: 'c', type: 'char(8)', charset: 'latin1' },
        { name: 'k', type: 'varchar(40)', charset: 'koi8r' },
        { name: 'u', type: 'varchar(40)', charset: 'ucs2' },
      ],
    });
    const escapes = 'a "quote", a \\ and\n\t\u0001';
    const rows = [
      { v: 'plain', c: 'plain', k: 'plain', u: 'plain' },
      { v: escapes, c: '"\\\n\u0001', k: escapes, u: escapes },
      { v: '', c: '', k: '', u: '' },
      // Latin1's bytes of 'Ã©tÃ©' are UTF-8's of 'été': they are not ASCII, so they go through their text.
      { v: 'Ã©tÃ©', c: 'café ÿ', k: 'привет', u: 'привет' },
    ];
    w.insert(t, rows).commit();
    const dumped = dumpedEvents(w.toBytes(), 'dump');
    const eager = dumpedEvents(w.toBytes()).find((e) => e.type === 'WRITE_ROWS_EVENT_V1') as {
      rows: { after: object }[];
    };
    expect(eager.rows.map((r) => r.after)).toEqual(rows);
    expect(dumped.length).toBeGreaterThan(3);
    expect(expectSameEventJson(w.toBytes(), 'single-byte charsets').events).toBe(dumped.length);
  });

  it("DECIMAL values written as digits from their parts: the text the server's decimal2bin stored", () => {
    // Each value is given in the form the dump writes (exactly `scale` fraction digits, no leading zeros), so the
    // dump's JSON must give it back as it is.
    const cases: [number, number, string[]][] = [
      [1, 0, ['0', '9', '-9']],
      [5, 5, ['0.00000', '0.00001', '-0.99999', '0.10000']],
      [9, 0, ['999999999', '-999999999', '100000000']],
      [10, 4, ['0.0001', '-123456.0100', '999999.9999']],
      [12, 2, ['0.37', '-1.05', '9999999999.99', '-10000000.00']],
      [15, 0, ['999999999999999', '-100000000000000', '123456789012345']],
      [24, 9, ['999999999999999.999999999', '-0.000000001', '1000000000.100000000']],
      [30, 10, ['12345678901234567890.0123456789', '-0.0000000001']],
      [65, 30, [`${'9'.repeat(35)}.${'0'.repeat(29)}1`, '-1.000000000000000000000000000000']],
    ];
    const w = new BinlogWriter();
    for (const [k, [precision, scale, values]] of cases.entries()) {
      const t = w.createTable({
        schema: 's',
        name: `d${k}`,
        columns: [{ name: 'd', type: `decimal(${precision},${scale})` }],
      });
      w.insert(
        t,
        values.map((d) => ({ d })),
      ).commit();
    }
    const dumped = dumpedEvents(w.toBytes(), 'dump').filter((e) => e.type === 'WRITE_ROWS_EVENT_V1');
    const written = dumped.map((e) => {
      const line = new JsonBytes();
      writeDumpEvent(line, new JsonBytes(), e as DumpReadEvent);
      return (JSON.parse(line.take().toString('utf8')) as { rows: { after: { d: string } }[] }).rows.map(
        (r) => r.after.d,
      );
    });
    expect(written).toEqual(cases.map(([, , values]) => values));
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
  const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'binlog'), ...args], {
    input,
    maxBuffer: 1 << 30,
  });
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
    it(`${name} ${args.join(' ')}: the reference's lines, and encode gives the file back`, () => {
      const f = byName(name);
      const bytes = readFileSync(f.path);
      const out = dump(['dump', ...args, f.path]);
      // The dump reads with a schema history (the tables the file creates get their names), and so does this.
      const lines = decodeBinlog(bytes, { ...options, file: basename(f.path), schemaHistory: new SchemaHistory() }).map(
        (e) => `${referenceLine(e)}\n`,
      );
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
