import { describe, expect, it } from 'vitest';
import {
  BadMagicError,
  BinlogError,
  ChecksumError,
  EncodeError,
  InvalidValueError,
  LengthError,
  SchemaCheckError,
  TruncatedError,
} from '../../runtime/core/errors.js';

describe('BinlogError message: "problem [offset N, event at P (type T), in path]"', () => {
  it('names the offset and the schema path', () => {
    const e = new TruncatedError('need 4 bytes, 1 left', { offset: 120, schemaPath: 'Query.statusVars' });
    expect(e.message).toBe('need 4 bytes, 1 left [offset 120, in Query.statusVars]');
    expect(e.problem).toBe('need 4 bytes, 1 left');
    expect(e.offset).toBe(120);
    expect(e.schemaPath).toBe('Query.statusVars');
    expect(e.eventPos).toBeUndefined();
    expect(e.eventType).toBeUndefined();
  });

  it('names offset 0 (a valid offset)', () => {
    expect(new BadMagicError('not a binlog', { offset: 0 }).message).toBe('not a binlog [offset 0]');
  });

  it('leaves out the schema path when there is none', () => {
    expect(new LengthError('too long', { offset: 7 }).message).toBe('too long [offset 7]');
  });

  it('atEvent adds the event position and type, keeping offset and path', () => {
    const e = new InvalidValueError('bad code 9', { offset: 300, schemaPath: 'Intvar.kind' });
    const same = e.atEvent(256, 5);
    expect(same).toBe(e);
    expect(e.eventPos).toBe(256);
    expect(e.eventType).toBe(5);
    expect(e.message).toBe('bad code 9 [offset 300, event at 256 (type 5), in Intvar.kind]');
  });

  it('atEvent with an unknown type names the position alone', () => {
    const e = new TruncatedError('cut', { offset: 10 }).atEvent(4, undefined);
    expect(e.message).toBe('cut [offset 10, event at 4]');
  });

  it("atEvent with the type's name says it beside the code", () => {
    const e = new TruncatedError('cut', { offset: 10 }).atEvent(4, 160, 'ANNOTATE_ROWS_EVENT');
    expect(e.message).toBe('cut [offset 10, event at 4 (type 160, ANNOTATE_ROWS_EVENT)]');
    expect(e.within('in the block', 2).message).toBe('in the block: cut [offset 2]');
  });

  it('atEvent does not overwrite an event already named (the innermost knows best)', () => {
    const e = new TruncatedError('cut', { offset: 10, eventPos: 4, eventType: 15 });
    expect(e.message).toBe('cut [offset 10, event at 4 (type 15)]');
    e.atEvent(999, 2);
    expect(e.eventPos).toBe(4);
    expect(e.eventType).toBe(15);
    expect(e.message).toBe('cut [offset 10, event at 4 (type 15)]');
  });

  it('EncodeError has no offset (-1), so the message names only the path', () => {
    const e = new EncodeError('missing', 'Rotate.nextFile');
    expect(e.offset).toBe(-1);
    expect(e.schemaPath).toBe('Rotate.nextFile');
    expect(e.message).toBe('missing [in Rotate.nextFile]');
  });

  it('ChecksumError states both CRCs as 8 lowercase hex digits', () => {
    const e = new ChecksumError(0xdeadbeef, 0x12, { offset: 4, eventPos: 4, eventType: 15 });
    expect(e.expected).toBe(0xdeadbeef);
    expect(e.actual).toBe(0x12);
    expect(e.problem).toBe('checksum mismatch: stored 0xdeadbeef, computed 0x00000012');
    expect(e.message).toBe(
      'checksum mismatch: stored 0xdeadbeef, computed 0x00000012 [offset 4, event at 4 (type 15)]',
    );
  });
});

describe('error classes: kind and name', () => {
  const site = { offset: 1 };
  it.each([
    [new TruncatedError('p', site), 'truncated', 'TruncatedError'],
    [new BadMagicError('p', site), 'bad-magic', 'BadMagicError'],
    [new ChecksumError(1, 2, site), 'checksum', 'ChecksumError'],
    [new LengthError('p', site), 'length', 'LengthError'],
    [new InvalidValueError('p', site), 'invalid-value', 'InvalidValueError'],
    [new SchemaCheckError('p', site), 'schema-check', 'SchemaCheckError'],
    [new EncodeError('p', 'X'), 'encode', 'EncodeError'],
  ] as const)('%s has kind %s and name %s', (e, kind, name) => {
    expect(e.kind).toBe(kind);
    expect(e.name).toBe(name);
    expect(e).toBeInstanceOf(BinlogError);
    expect(e).toBeInstanceOf(Error);
  });

  it('subclasses are distinct: a TruncatedError is not a LengthError', () => {
    const e: BinlogError = new TruncatedError('p', site);
    expect(e).not.toBeInstanceOf(LengthError);
  });

  it('String(error) starts with the class name', () => {
    expect(String(new LengthError('bad', { offset: 3 }))).toBe('LengthError: bad [offset 3]');
  });
});
