/**
 * A change record's JSON (sinks/record.ts): the fast path for images of plain values writes what the
 * dump's JSON form writes, and the images that need that form (bytes, 64-bit integers, -0) get it.
 */
import { expect, it } from 'vitest';
import { changeJson, type ChangeRecord } from '../sinks/record.js';

const source = { server_id: 1, file: 'binlog.000001', pos: 4711, gtid: '0-1-42', db: 'shop', table: 'orders', row: 0 };

it('writes a record of plain values as JSON, keys in the record order', () => {
  const r: ChangeRecord = {
    before: null,
    after: { id: 7, v: 'a"b', d: '2024-01-01 00:00:00.000001', m: '-1.50', z: null, b: true },
    op: 'c',
    ts_ms: 1000,
    source,
  };
  expect(changeJson(r)).toBe(
    '{"before":null,"after":{"id":7,"v":"a\\"b","d":"2024-01-01 00:00:00.000001","m":"-1.50","z":null,"b":true},"op":"c","ts_ms":1000,' +
      '"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":"0-1-42","db":"shop","table":"orders","row":0}}',
  );
});

it("writes bytes, 64-bit integers and -0 in the dump's form", () => {
  const r: ChangeRecord = {
    before: { id: 2n ** 63n - 1n, s: 5n },
    after: { id: -0, h: new Uint8Array([0, 255]) },
    op: 'u',
    ts_ms: 0,
    source: { ...source, gtid: null },
  };
  expect(changeJson(r)).toBe(
    '{"before":{"id":"9223372036854775807","s":5},"after":{"id":"-0","h":{"hex":"00ff"}},"op":"u","ts_ms":0,' +
      '"source":{"server_id":1,"file":"binlog.000001","pos":4711,"gtid":null,"db":"shop","table":"orders","row":0}}',
  );
});
