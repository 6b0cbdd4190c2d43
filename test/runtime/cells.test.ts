import { describe, expect, it } from 'vitest';
import { CellLayouts } from '../../generated/columns.js';
import { ColumnType } from '../../generated/rows.js';
import { cellCodec } from '../../runtime/values/cells.js';
import { InvalidValueError, LengthError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { caught, hex } from './helpers.js';
import type { Column } from '../../runtime/values/column.js';
import { decodeDecimal } from '../../runtime/values/decimal.js';

function column(type: number, meta: Record<string, unknown>, more: Partial<Column> = {}): Column {
  return {
    index: 0,
    name: 'c',
    type,
    realType: type,
    layout: CellLayouts[type as keyof typeof CellLayouts],
    nullable: true,
    meta,
    ...more,
  };
}

describe('DECIMAL cells', () => {
  // The example of decimal2bin's comment in MySQL's strings/decimal.c: DECIMAL(14,4), 1 + 9 whole digits
  // (1 byte, then 4) and 4 fraction digits (2 bytes), every byte inverted when negative, then the first bit.
  it.each([
    ['81 0d fb 38 d2 04 d2', '1234567890.1234'],
    ['7e f2 04 c7 2d fb 2d', '-1234567890.1234'],
  ])('reads %s as %s', (bytes, text) => {
    expect(decodeDecimal(hex(bytes), 14, 4)).toBe(text);
    const c = column(ColumnType.NEWDECIMAL, { precision: 14, scale: 4 });
    expect(cellCodec(c).reader(c, 'P')(new Reader(hex(bytes)))).toBe(text);
  });

  it('keeps leading zeros of the fraction, and a whole part of 0', () => {
    // DECIMAL(14,4) 0.0012: every whole group 0, the fraction group 12 of 4 digits.
    expect(decodeDecimal(hex('80 00 00 00 00 00 0c'), 14, 4)).toBe('0.0012');
    expect(decodeDecimal(hex('7f ff ff ff ff ff f3'), 14, 4)).toBe('-0.0012');
  });

  it('reads precisions past the 15 digits a double holds, group by group', () => {
    // DECIMAL(20,0): 2 whole digits in 1 byte, then two groups of 9: 12 345678901 234567890.
    expect(decodeDecimal(hex('8c 14 9a a4 35 0d fb 38 d2'), 20, 0)).toBe('12345678901234567890');
  });

  it('refuses a digit group holding more digits than it may, naming the offset and the column', () => {
    // The 4-byte group of DECIMAL(14,4) holds 9 digits; ff ff ff ff would be 4294967295.
    const c = column(ColumnType.NEWDECIMAL, { precision: 14, scale: 4 });
    const e = caught(InvalidValueError, () =>
      cellCodec(c).reader(c, 'Rows.amount')(new Reader(hex('00 00 80 ff ff ff ff 00 00'), 2, 9, 1000)),
    );
    expect(e.offset).toBe(1002);
    expect(e.schemaPath).toBe('Rows.amount');
    expect(e.message).toContain('4294967295');
  });
});

describe('text cells that repeat', () => {
  const c = column(ColumnType.VARCHAR, { maxLength: 40 }, { charset: 'utf8mb4', collation: 45 });
  const varchar = (s: string) => {
    const b = Buffer.from(s);
    return [b.length, ...b];
  };

  it('read each value of an event as written, when neighbours have the same length', () => {
    const read = cellCodec(c).reader(c, 'P');
    const r = new Reader(
      Uint8Array.from([...varchar('Zoë 1'), ...varchar('Zoë 1'), ...varchar('Zoë 2'), ...varchar('Zoë 1')]),
    );
    expect([read(r), read(r), read(r), read(r)]).toEqual(['Zoë 1', 'Zoë 1', 'Zoë 2', 'Zoë 1']);
    expect(r.pos).toBe(r.end);
  });

  it('never give back a value of bytes that have changed since, in a buffer used again', () => {
    const read = cellCodec(c).reader(c, 'P');
    const buf = Uint8Array.from(varchar('abc'));
    expect(read(new Reader(buf))).toBe('abc');
    buf.set(varchar('xyz'));
    // The same bytes at the same place, read for the next event: they are read again.
    expect(read(new Reader(buf))).toBe('xyz');
  });

  it('check the value runs inside the event before comparing it', () => {
    const read = cellCodec(c).reader(c, 'P');
    const bytes = Uint8Array.from([...varchar('abc'), ...varchar('abc')]);
    const r = new Reader(bytes, 0, bytes.length - 1);
    expect(read(r)).toBe('abc');
    caught(LengthError, () => read(r));
  });
});
