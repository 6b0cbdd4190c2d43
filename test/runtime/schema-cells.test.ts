/**
 * The cells of schemas/cells.yaml, generated: known bytes from the servers' layouts (my_time.cc's
 * comments and Field_*::pack), both ways, and the refusals a layout implies.
 */
import { describe, expect, it } from 'vitest';
import { CellLayouts, FractionLayouts } from '../../generated/columns.js';
import { ColumnType } from '../../generated/rows.js';
import { EncodeError, InvalidValueError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import type { CellValue } from '../../runtime/core/values.js';
import { Writer } from '../../runtime/core/writer.js';
import { cellCodec } from '../../runtime/values/cells.js';
import type { Column } from '../../runtime/values/column.js';
import { caught, hex } from './helpers.js';

function column(type: number, meta: Record<string, unknown> = {}, more: Partial<Column> = {}): Column {
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
const read = (c: Column, bytes: string) => cellCodec(c).reader(c, 'T.c')(new Reader(hex(bytes)));
function write(c: Column, v: CellValue): string {
  const w = new Writer();
  cellCodec(c).writer(c, 'T.c')(w, v);
  return Buffer.from(w.finish()).toString('hex');
}
/** big-endian hex of v in n bytes */
const be = (v: bigint, n: number) => v.toString(16).padStart(2 * n, '0');

describe('temporal cells', () => {
  // DATETIME2: sign bit, 17 bits of year*13+month, 5 of day, 5 of hour, 6 of minute, 6 of second.
  const dt2 = (y: number, mo: number, d: number, h: number, mi: number, s: number) =>
    (1n << 39n) |
    (BigInt(y * 13 + mo) << 22n) |
    (BigInt(d) << 17n) |
    (BigInt(h) << 12n) |
    (BigInt(mi) << 6n) |
    BigInt(s);

  it.each([
    [0, '2012-06-21 15:55:33', be(dt2(2012, 6, 21, 15, 55, 33), 5)],
    [3, '2012-06-21 15:55:33.123', be(dt2(2012, 6, 21, 15, 55, 33), 5) + be(1230n, 2)],
    [6, '9999-12-31 23:59:59.999999', be(dt2(9999, 12, 31, 23, 59, 59), 5) + be(999999n, 3)],
    [1, '0000-00-00 00:00:00.0', '800000000000'],
  ])('DATETIME2(%i) %s', (fsp, text, bytes) => {
    const c = column(ColumnType.DATETIME2, { fsp });
    expect(read(c, bytes)).toBe(text);
    expect(write(c, text)).toBe(bytes);
  });

  it('DATETIME2 refuses a clear sign bit and a fraction of more digits than its precision', () => {
    const c = column(ColumnType.DATETIME2, { fsp: 2 });
    expect(caught(InvalidValueError, () => read(c, '00 00 00 00 00 00')).message).toContain('negative DATETIME');
    // The precision-2 fraction is one byte of hundredths: 0x64 = 100 of them is a whole second.
    expect(read(c, `${be(dt2(2000, 1, 1, 0, 0, 0), 5)}63`)).toBe('2000-01-01 00:00:00.99');
    expect(caught(InvalidValueError, () => read(c, `${be(dt2(2000, 1, 1, 0, 0, 0), 5)}64`)).message).toMatch(
      /fraction .* has more than 2 digits/,
    );
    // DATETIME2(1) stores tenths as hundredths: 0x0b = .11 is not a tenth.
    const c1 = column(ColumnType.DATETIME2, { fsp: 1 });
    expect(caught(InvalidValueError, () => read(c1, `${be(dt2(2000, 1, 1, 0, 0, 0), 5)}0b`)).message).toContain(
      'fraction .110000 has more than 1 digits',
    );
    expect(caught(EncodeError, () => write(c, '2000-01-01 00:00:00.123')).message).toContain(
      'fraction .123 has more than 2 digits',
    );
  });

  it.each([
    ['DATETIME2', '2000-13-01 00:00:00', 'month 13'], // year * 13 + month would make it 2001-00-01
    ['DATETIME2', '2000-01-32 00:00:00', 'day 32'],
    ['DATETIME2', '2000-01-01 24:00:00', 'hour 24'],
    ['TIMESTAMP2', '1970-13-01 00:00:00', 'month 13'], // Date.UTC would roll it over to 1971
    ['DATETIME', '2000-01-01 00:60:00', 'minute 60'],
    ['TIME2', '10:00:60', 'second 60'],
    ['DATE', '1815-13-10', 'month 13'],
  ] as const)('%s refuses %s: its %s is out of range, not carried into the next field', (type, text, field) => {
    const c = column(ColumnType[type], { fsp: 0 });
    expect(caught(EncodeError, () => write(c, text)).message).toContain(`${field} is out of range`);
  });

  // TIME2: 0x800000 + floor(packed / 2^24), then C's remainder in the precision's units, two's complement.
  it.each([
    [0, '00:00:00', '800000'],
    [0, '-00:00:01', '7fffff'],
    [1, '-00:00:00.5', '7fffffce'],
    [2, '12:34:56.78', be(0x800000n + ((12n << 12n) | (34n << 6n) | 56n), 3) + '4e'],
    [6, '-838:59:59.000001', be(0x800000000000n - (((838n << 12n) | (59n << 6n) | 59n) * 2n ** 24n + 1n), 6)],
  ])('TIME2(%i) %s', (fsp, text, bytes) => {
    const c = column(ColumnType.TIME2, { fsp });
    expect(read(c, bytes)).toBe(text);
    expect(write(c, text)).toBe(bytes);
  });

  it('DATE packs day, month and year into 3 little-endian bytes; a month past 12 is refused both ways', () => {
    const c = column(ColumnType.DATE);
    const v = (2024 << 9) | (2 << 5) | 29;
    const bytes = Buffer.from([v & 0xff, (v >> 8) & 0xff, v >> 16]).toString('hex');
    expect(read(c, bytes)).toBe('2024-02-29');
    expect(write(c, '2024-02-29')).toBe(bytes);
    expect(caught(EncodeError, () => write(c, '2024-16-01')).message).toContain('month 16 is out of range');
    const month13 = (1815 << 9) | (13 << 5) | 10;
    const garbage = Buffer.from([month13 & 0xff, (month13 >> 8) & 0xff, month13 >> 16]).toString('hex');
    expect(caught(InvalidValueError, () => read(c, garbage)).message).toContain('month 13 of 1815 is no month');
  });

  it('DATETIME (before 5.6) is YYYYMMDDhhmmss in 8 bytes, and a number that is no datetime is refused', () => {
    const c = column(ColumnType.DATETIME);
    const bytes = Buffer.from(new BigUint64Array([20240229235958n]).buffer).toString('hex');
    expect(read(c, bytes)).toBe('2024-02-29 23:59:58');
    expect(write(c, '2024-02-29 23:59:58')).toBe(bytes);
    const bad = Buffer.from(new BigUint64Array([20241329235958n]).buffer).toString('hex');
    expect(caught(InvalidValueError, () => read(c, bad)).message).toContain('is not a YYYYMMDDhhmmss datetime');
  });

  it('TIME (before 5.6) is ±hhmmss in 3 bytes; a number that is no time is refused', () => {
    const c = column(ColumnType.TIME);
    expect(read(c, 'ffffff')).toBe('-00:00:01');
    expect(write(c, '-00:00:01')).toBe('ffffff');
    // 99: 99 seconds, which Field_time never stores (MariaDB's own TIME(n) read as this type gives such).
    expect(caught(InvalidValueError, () => read(c, '630000')).message).toContain('99 is not a ±hhmmss time');
  });

  describe("MariaDB's own fractional temporals, the digits from a definition", () => {
    const hires = (type: number, fsp: number) => ({
      ...column(type, { fsp }),
      layout: FractionLayouts[type as keyof typeof FractionLayouts],
    });
    const seconds = (y: number, mo: number, d: number, h: number, mi: number, s: number) =>
      BigInt(((((y * 13 + mo) * 32 + d) * 24 + h) * 60 + mi) * 60 + s);

    it('DATETIME(n): seconds * 10^n + the fraction, big-endian in 5 to 8 bytes, exact past 2^53', () => {
      const last = be(seconds(9999, 12, 31, 23, 59, 59) * 1000000n + 999999n, 8);
      expect(read(hires(ColumnType.DATETIME, 6), last)).toBe('9999-12-31 23:59:59.999999');
      expect(write(hires(ColumnType.DATETIME, 6), '9999-12-31 23:59:59.999999')).toBe(last);
      const two = be(seconds(2000, 0, 0, 0, 0, 0) * 100n + 50n, 6);
      expect(read(hires(ColumnType.DATETIME, 2), two)).toBe('2000-00-00 00:00:00.50');
      expect(write(hires(ColumnType.DATETIME, 2), '2000-00-00 00:00:00.5')).toBe(two);
      expect(
        caught(EncodeError, () => write(hires(ColumnType.DATETIME, 2), '2000-01-01 00:00:00.125')).message,
      ).toContain('has more than 2 digits');
    });

    it('TIME(n): 3020400 seconds (838:59:59 and one) plus the signed value, in units of 10^-n, big-endian', () => {
      const t3 = be(3020400n * 1000n - (3723n * 1000n + 4n), 5);
      expect(read(hires(ColumnType.TIME, 3), t3)).toBe('-01:02:03.004');
      expect(write(hires(ColumnType.TIME, 3), '-01:02:03.004')).toBe(t3);
      expect(read(hires(ColumnType.TIME, 1), be(3020400n * 10n - 5n, 4))).toBe('-00:00:00.5');
      expect(caught(InvalidValueError, () => read(hires(ColumnType.TIME, 1), be(0n, 4))).message).toContain(
        'is out of range',
      );
    });

    it('TIMESTAMP(n): big-endian seconds, then the fraction in n digits (not rounded up to an even count)', () => {
      expect(read(hires(ColumnType.TIMESTAMP, 1), '3b9aca00 01')).toBe('2001-09-09 01:46:40.1');
      expect(write(hires(ColumnType.TIMESTAMP, 3), '2001-09-09 01:46:40.123')).toBe('3b9aca00007b');
      expect(read(hires(ColumnType.TIMESTAMP, 5), '00000000 000000')).toBe('0000-00-00 00:00:00.00000');
    });
  });

  it('TIMESTAMP2 is big-endian seconds then the fraction; 0 is the zero date', () => {
    const c = column(ColumnType.TIMESTAMP2, { fsp: 4 });
    expect(read(c, '00000000 0000')).toBe('0000-00-00 00:00:00.0000');
    expect(read(c, `${be(86400n, 4)}${be(1234n, 2)}`)).toBe('1970-01-02 00:00:00.1234');
    expect(write(c, '1970-01-02 00:00:00.1234')).toBe(`${be(86400n, 4)}${be(1234n, 2)}`);
  });

  it('YEAR is 1900 + n, 0 the zero year; one outside 1901-2155 is refused', () => {
    const c = column(ColumnType.YEAR);
    expect(read(c, '7c')).toBe(2024);
    expect(read(c, '00')).toBe(0);
    expect(write(c, 2155)).toBe('ff');
    expect(caught(EncodeError, () => write(c, 1900)).message).toContain('year 1900 is out of range');
  });
});

describe('number, BIT, ENUM and SET cells', () => {
  it("integers are little-endian two's complement unless unsigned, BIGINT a bigint; out of range is refused", () => {
    const signed = { unsigned: false };
    expect(read(column(ColumnType.INT24, {}, signed), 'ffff7f')).toBe(8388607);
    expect(read(column(ColumnType.INT24, {}, signed), '000080')).toBe(-8388608);
    expect(read(column(ColumnType.INT24, {}, { unsigned: true }), '000080')).toBe(8388608);
    expect(read(column(ColumnType.LONGLONG, {}, signed), 'ffffffffffffffff')).toBe(-1n);
    expect(write(column(ColumnType.LONGLONG, {}, { unsigned: true }), '18446744073709551615')).toBe('ffffffffffffffff');
    expect(caught(EncodeError, () => write(column(ColumnType.SHORT, {}, signed), 32768)).message).toContain(
      '32768 is out of range',
    );
  });

  it('an integer of unknown signedness: both readings where its high bit is set, either taken back', () => {
    const unknown = column(ColumnType.INT24);
    expect(read(unknown, 'ffff7f')).toBe(8388607);
    expect(read(unknown, '000080')).toEqual({ signed: -8388608, unsigned: 8388608 });
    expect(read(column(ColumnType.LONGLONG), 'feffffffffffffff')).toEqual({
      signed: -2n,
      unsigned: 18446744073709551614n,
    });
    for (const v of [{ signed: -8388608, unsigned: 8388608 }, 8388608, -8388608])
      expect(write(unknown, v)).toBe('000080');
    expect(write(column(ColumnType.LONGLONG), { signed: -2n, unsigned: 18446744073709551614n })).toBe(
      'feffffffffffffff',
    );
    // A pair of known signedness is written as the reading the column has.
    expect(write(column(ColumnType.INT24, {}, { unsigned: true }), { signed: -8388608, unsigned: 8388608 })).toBe(
      '000080',
    );
    expect(caught(EncodeError, () => write(unknown, { signed: -1, unsigned: 8388608 })).problem).toBe(
      'expected the signed and unsigned readings of the same 3 bytes, found {"signed":-1,"unsigned":8388608}',
    );
    expect(caught(EncodeError, () => write(unknown, 16777216)).message).toContain('out of range');
  });

  it("BIT is big-endian in its metadata's bytes, and a value past its bits is refused", () => {
    const c = column(ColumnType.BIT, { bits: 10, wholeBytes: 1, bitsInLastByte: 2 });
    expect(read(c, '0301')).toBe(0x301n);
    expect(write(c, 0x3ffn)).toBe('03ff');
    expect(caught(EncodeError, () => write(c, 0x400n)).message).toContain('does not fit BIT(10)');
  });

  it('ENUM is its 1-based member index, SET a bit per member, in the bytes the metadata says', () => {
    const e = column(ColumnType.ENUM, { maxLength: 2 }, { members: ['a', 'b'] });
    expect(read(e, '0200')).toBe('b');
    expect(write(e, 'a')).toBe('0100');
    const s = column(ColumnType.SET, { maxLength: 1 }, { members: ['x', 'y', 'z'] });
    expect(read(s, '05')).toEqual(['x', 'z']);
    expect(write(s, ['y', 'z'])).toBe('06');
    expect(read(s, '08')).toBe(8);
  });
});
