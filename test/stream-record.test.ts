/**
 * A rows event's change records as message bodies (sinks/record.ts): each body is the dump's JSON form of
 * its whole record, though the parts the records share are written once and the bodies share one buffer.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { RowChange } from '../runtime/core/values.js';
import { changeBodies, type SharedParts } from '../sinks/record.js';

const source = { server_id: 1, file: 'binlog.000001', pos: 4711, gtid: '0-1-42', db: 'shop', table: 'orders', row: 0 };
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

it('writes a record of plain values as JSON, keys in the record order', () => {
  const rows: RowChange[] = [
    { after: { id: 7, v: 'a"b', d: '2024-01-01 00:00:00.000001', m: '-1.50', z: null, b: [3, 5] } },
  ];
  expect(changeBodies(rows, { op: 'c', ts_ms: 1000, source }).map(text)).toEqual([
    '{"before":null,"after":{"id":7,"v":"a\\"b","d":"2024-01-01 00:00:00.000001","m":"-1.50","z":null,"b":[3,5]},"op":"c","ts_ms":1000,' +
      '"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":"0-1-42","db":"shop","table":"orders","row":0}}',
  ]);
});

it("writes bytes, 64-bit integers and -0 in the dump's form, and each row's index", () => {
  const rows: RowChange[] = [
    { before: { id: 2n ** 63n - 1n, s: 5n }, after: { id: -0, h: new Uint8Array([0, 255]) } },
    { before: { id: 1 }, after: { id: 12 } },
  ];
  const shared: SharedParts = { op: 'u', ts_ms: 0, source: { ...source, gtid: null } };
  const tail =
    '"op":"u","ts_ms":0,"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":null,"db":"shop","table":"orders","row":';
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
