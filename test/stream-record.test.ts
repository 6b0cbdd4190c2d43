/**
 * A rows event's change records as message bodies (sinks/record.ts): each body is the dump's JSON form of
 * its whole record, though the parts the records share are written once and the bodies share one buffer.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { rowKind } from '../protocol/row-kinds.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { BinlogError } from '../runtime/core/errors.js';
import type { RowChange } from '../runtime/core/values.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { readBinlog } from '../runtime/io/stream.js';
import { JsonRows } from '../runtime/rows/json-rows.js';
import { DUMP_ROWS } from '../runtime/rows/row-tables.js';
import { changeBodies, renderedBodies, type SharedParts } from '../sinks/record.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

const SAMPLE = join(import.meta.dirname, 'fixtures', 'sample.bin');

const source = { server_id: 1, file: 'binlog.000001', pos: 4711, gtid: '0-1-42', db: 'shop', table: 'orders', row: 0 };
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

it('writes a record of plain values as JSON, keys in the record order', () => {
  const rows: RowChange[] = [
    { after: { id: 7, v: 'a"b', d: '2024-01-01 00:00:00.000001', m: '-1.50', z: null, b: [3, 5] } },
  ];
  expect(changeBodies(rows, { op: 'c', ts_ms: 1000, source }).map(text)).toEqual([
    '{"before":null,"after":{"id":7,"v":"a\\"b","d":"2024-01-01 00:00:00.000001",' +
      '"m":"-1.50","z":null,"b":[3,5]},"op":"c","ts_ms":1000,' +
      '"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":"0-1-42",' +
      '"db":"shop","table":"orders","row":0}}',
  ]);
});

it("writes bytes, 64-bit integers and -0 in the dump's form, and each row's index", () => {
  const rows: RowChange[] = [
    { before: { id: 2n ** 63n - 1n, s: 5n }, after: { id: -0, h: new Uint8Array([0, 255]) } },
    { before: { id: 1 }, after: { id: 12 } },
  ];
  const shared: SharedParts = { op: 'u', ts_ms: 0, source: { ...source, gtid: null } };
  const tail =
    '"op":"u","ts_ms":0,"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":null,' +
    '"db":"shop","table":"orders","row":';
  expect(changeBodies(rows, shared).map(text)).toEqual([
    `{"before":{"id":"9223372036854775807","s":5},"after":{"id":"-0","h":{"hex":"00ff"}},${tail}0}}`,
    `{"before":{"id":1},"after":{"id":12},${tail}1}}`,
  ]);
});

const value = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.array(fc.nat(), { maxLength: 3 }),
  fc.constant(null),
  fc.uint8Array({ maxLength: 8 }),
);
const image = fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 6 });
const change = fc.record({ before: fc.option(image, { nil: undefined }), after: fc.option(image, { nil: undefined }) });

it('gives each body the bytes of its whole record, for any images and shared parts', () => {
  fc.assert(
    fc.property(
      fc.array(change, { maxLength: 5 }),
      fc.constantFrom<SharedParts['op']>('c', 'u', 'd'),
      fc.nat(),
      fc.string(),
      fc.option(fc.string(), { nil: null }),
      (rows, op, ts_ms, table, gtid) => {
        const shared: SharedParts = { op, ts_ms, source: { ...source, table, gtid } };
        const whole = rows.map((r, row) =>
          toJsonLine({
            before: r.before ?? null,
            after: r.after ?? null,
            ...shared,
            source: { ...shared.source, row },
          }),
        );
        expect(changeBodies(rows, shared).map(text)).toEqual(whole);
      },
    ),
    { seed: 43, numRuns: 300 },
  );
});

/**
 * The events of `file`, read as asked; a well-framed event that does not decode comes as its bytes, and a
 * framing fault (some fixtures are cut short on purpose) ends the list.
 */
async function eventsOf(file: string, dumpRows: boolean): Promise<BinlogEvent[]> {
  const options = { payloads: 'flat' as const, onError: () => 'skip' as const, ...(dumpRows && { [DUMP_ROWS]: true }) };
  const events: BinlogEvent[] = [];
  try {
    for await (const e of readBinlog(file, options)) events.push(e);
  } catch (e) {
    if (!(e instanceof BinlogError)) throw e;
  }
  return events;
}

/**
 * Compares, for every rows event of `file`, the records written from the dump's JSON of its images
 * (renderedBodies) with those written from its decoded rows (changeBodies). Returns how many rows events
 * were compared, and how many of their changes had a null bitmap's unused bits set (`nullSpare`).
 */
async function expectSameRecords(file: string, name: string): Promise<{ events: number; spare: number }> {
  const [eager, dumped] = [await eventsOf(file, false), await eventsOf(file, true)];
  expect(dumped.length, name).toBe(eager.length);
  let events = 0;
  let spare = 0;
  dumped.forEach((d, i) => {
    const rows: unknown = (d as { rows?: unknown }).rows;
    if (!(rows instanceof JsonRows)) return;
    const decoded = (eager[i] as { rows?: RowChange[] }).rows ?? [];
    const shared: SharedParts = { op: OPS_OF[rowKind(d.type)!], ts_ms: 1000, source: { ...source, pos: d.pos } };
    const where = `${name}, event at ${d.pos}`;
    expect(renderedBodies(rows, shared).map(text), where).toEqual(changeBodies(decoded, shared).map(text));
    events++;
    spare += decoded.filter((r) => r.nullSpare !== undefined).length;
  });
  return { events, spare };
}

const OPS_OF = { write: 'c', update: 'u', delete: 'd' } as const;

it("writes the same records from the dump's JSON of the images as from the decoded rows (sample.bin)", async () => {
  const { events } = await expectSameRecords(SAMPLE, 'sample.bin');
  expect(events).toBe(4);
});

describeWithFixtures('records from the JSON of the images, shared fixtures', () => {
  it('every rows event of every fixture', async () => {
    let events = 0;
    let spare = 0;
    for (const f of fixtures()) {
      const n = await expectSameRecords(f.path, f.name);
      events += n.events;
      spare += n.spare;
    }
    expect(events).toBeGreaterThan(1000);
    // Changes whose bitmaps have unused bits set are among them, so that their nullSpare is left out too.
    expect(spare).toBeGreaterThan(1000);
  }, 300_000);
});
