/**
 * Encode input at the edges of size (issue 41's E1 and E2): a value nested thousands of levels deep is
 * refused with a typed error that shows a short piece of it, and bytes of several megabytes decode.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EncodeError } from '../runtime/core/errors.js';
import { jBytes, shown, toJsonLine } from '../runtime/core/dump-json.js';
import { eventFromJson } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';

const sample = decodeBinlog(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin')));
const DEPTH = 3000;

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** The first event of a type, as the dump's JSON parsed back. */
interface Line {
  header: Record<string, unknown>;
  rows?: { after: Record<string, unknown> }[];
}
function lineOf(type: string): Line {
  return JSON.parse(toJsonLine(sample.find((e) => e.type === type)!)) as Line;
}

function refusal(run: () => unknown): EncodeError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(EncodeError);
    return e as EncodeError;
  }
  return expect.fail('no error');
}

describe('encode input nested thousands of levels deep', () => {
  it('in a header field: an EncodeError that shows the start of the value', () => {
    const line = lineOf('QUERY_EVENT');
    line.header.timestamp = nested(DEPTH);
    const e = refusal(() => eventFromJson(line, 'line 1'));
    expect(e.message).toContain(`expected an integer, found ${'['.repeat(60)}…`);
  });

  it('in a row cell: an EncodeError naming the path', () => {
    const line = lineOf('WRITE_ROWS_EVENT_V1');
    line.rows![0]!.after.id = nested(DEPTH);
    const e = refusal(() => eventFromJson(line, 'line 1'));
    expect(e.message).toMatch(/nest more than \d+ deep/);
    expect(e.message).toContain('rows[0].after.id[0][0]');
  });

  it('shown cuts the value short without following it to its end', () => {
    expect(shown(nested(100_000))).toBe(`${'['.repeat(60)}…`);
    expect(shown({ a: 'x'.repeat(10) })).toBe('{"a":"xxxxxxxxxx"}');
    expect(shown(undefined)).toBe('nothing');
  });
});

describe('{"hex": …} of several megabytes', () => {
  it('decodes', () => {
    const bytes = Buffer.alloc(6 << 20, 0xa5);
    bytes[bytes.length - 1] = 0x0f;
    expect(Buffer.from(jBytes({ hex: bytes.toString('hex') }, '$')).equals(bytes)).toBe(true);
  });

  it('refuses text that is not pairs of hex digits, even after megabytes of them', () => {
    const long = 'ab'.repeat(3 << 20);
    for (const hex of [`${long}a`, `${long}zz`, `zz${long}`, 'A', 'g0']) {
      expect(() => jBytes({ hex }, '$.x')).toThrow(/expected \{"hex": "…"\}/);
    }
    expect(Array.from(jBytes({ hex: 'DEADbeef' }, '$'))).toEqual([0xde, 0xad, 0xbe, 0xef]);
  });
});
