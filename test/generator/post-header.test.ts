/**
 * The post-header lengths the generator computes from `postHeader:` (EventPostHeaderLengths): the bytes
 * of a body's fields through the named one, under each event's arguments, as a v4 FORMAT_DESCRIPTION
 * lists them. The real servers' lists are checked in test/post-header-lengths.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateFiles } from '../../generator/generate.js';

const SCHEMA = `
context:
  binlogVersion: { type: number }
  postHeaderLength: { type: number }
enums:
  Kind: { values: { A: 1, B: 2 } }
structs:
  Plain:
    postHeader: length
    fields:
      - { name: id, type: u32 }
      - { name: derived, type: number, computed: id + 1 }
      - { name: length, type: u16 }
      - { name: name, type: string, size: length }
  ByArguments:
    params:
      long: { type: boolean }
      kind: { type: number }
    postHeader: last
    fields:
      - { name: first, type: u8 }
      - { name: extra, type: u32, if: long }
      - { name: forB, type: u16, if: kind == Kind.B }
      - { name: last, type: u8 }
  ByContext:
    postHeader: flags
    fields:
      - { name: position, type: u64, if: ctx.binlogVersion > 1 }
      - { name: tableId, type: uint, size: 'ctx.postHeaderLength == 6 ? 4 : 6' }
      - { name: status, type: u16, if: ctx.postHeaderLength >= 16 }
      - { name: flags, type: u16 }
  Empty:
    postHeader: false
    fields:
      - { name: value, type: u64 }
  Unsaid:
    fields:
      - { name: value, type: u64 }
events:
  - { code: 1, name: PLAIN_EVENT, server: both, body: Plain }
  - { code: 2, name: SHORT_A_EVENT, server: both, body: ByArguments, args: { long: false, kind: Kind.A } }
  - { code: 3, name: LONG_B_EVENT, server: both, body: ByArguments, args: { long: true, kind: Kind.B } }
  - { code: 4, name: CONTEXT_EVENT, server: both, body: ByContext }
  - { code: 5, name: EMPTY_EVENT, server: both, body: Empty }
  - { code: 6, name: UNSAID_EVENT, server: both, body: Unsaid }
  - { code: 7, name: RAW_EVENT, server: both }
`;

function lengths(): Record<string, number | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'post-header-'));
  writeFileSync(join(dir, 'events.yaml'), SCHEMA);
  const result = generateFiles([join(dir, 'events.yaml')]);
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return Object.fromEntries(result.ir.events.map((e) => [e.name, e.postHeaderLength]));
}

describe('post-header lengths from the schemas', () => {
  const got = lengths();
  it('are the fixed sizes of the fields through postHeader, a computed field taking none', () => {
    expect(got.PLAIN_EVENT).toBe(6);
  });
  it("count a field there by the event's arguments only where they make it so", () => {
    expect(got.SHORT_A_EVENT).toBe(2);
    expect(got.LONG_B_EVENT).toBe(8);
  });
  it(
    'read the context of a v4 binlog, at the length the fields ' +
      'give (6-byte table ids, not the 4 of a 6-byte post-header)',
    () => {
      // A position (v4 is past v1), a 6-byte table id, the status a post-header of 16 or more holds (as
      // QUERY's status length is in one of 13), the flags.
      expect(got.CONTEXT_EVENT).toBe(8 + 6 + 2 + 2);
    },
  );
  it('are 0 for postHeader: false, and none where the schema does not say or there is no body', () => {
    expect(got.EMPTY_EVENT).toBe(0);
    expect(got.UNSAID_EVENT).toBeUndefined();
    expect(got.RAW_EVENT).toBeUndefined();
  });
});
