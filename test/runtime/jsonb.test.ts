import { describe, expect, it } from 'vitest';
import { decodeJsonb, encodeJsonb } from '../../runtime/values/binary-json.js';
import { jsonDecimalCell } from '../../generated/cells.js';
import { Reader } from '../../runtime/core/reader.js';
import type { CellColumn, JsonTree } from '../../runtime/core/values.js';
import { decimalBytes, decimalSize, decodeDecimal } from '../../runtime/values/decimal.js';

describe('binary JSON objects', () => {
  it('a key named __proto__ decodes as a key, and encodes back', () => {
    const doc = JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as JsonTree;
    const bytes = encodeJsonb(doc, '$');
    const back = decodeJsonb(bytes, 0, '$') as Record<string, JsonTree>;
    expect(Object.keys(back)).toEqual(['b', '__proto__']);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Buffer.from(encodeJsonb(back, '$'))).toEqual(Buffer.from(bytes));
  });
});

describe('binary JSON opaque decimals', () => {
  // An opaque value: type 0x0f, the column type (246, NEWDECIMAL), the data's length, then the data:
  // precision, scale and decimal2bin's bytes (here MySQL's own example, 1234567890.1234 as DECIMAL(14,4)).
  const opaque = (data: string) => Buffer.from(`0ff6${(data.length / 2).toString(16).padStart(2, '0')}${data}`, 'hex');

  it('reads exactly decimal2bin bytes as the decimal, and writes them back', () => {
    const bytes = opaque('0e04810dfb38d204d2');
    const tree = decodeJsonb(bytes, 0, '$');
    expect(tree).toEqual({ $decimal: '1234567890.1234', precision: 14, scale: 4 });
    expect(Buffer.from(encodeJsonb(tree, '$'))).toEqual(bytes);
  });

  it('reads and writes a document holding one, byte for byte', () => {
    // {"d": …}: a small object of 1 member in 23 bytes, its key at 11, its value (OPAQUE) at 12.
    const bytes = Buffer.from('00 0100 1700 0b00 0100 0f0c00 64 f609 0e04810dfb38d204d2'.replace(/ /g, ''), 'hex');
    const tree = decodeJsonb(bytes, 0, '$');
    expect(tree).toEqual({ d: { $decimal: '1234567890.1234', precision: 14, scale: 4 } });
    expect(Buffer.from(encodeJsonb(tree, '$'))).toEqual(bytes);
  });

  it.each([
    ['-0.0012', 14, 4, '0e047fffffffffff f3'],
    ['0', 1, 0, '010080'],
    ['-0.9', 1, 1, '0101 76'],
  ] as const)('%s as DECIMAL(%i,%i) is %s, both ways', (text, precision, scale, data) => {
    const bytes = opaque(data.replace(/ /g, ''));
    expect(decodeJsonb(bytes, 0, '$')).toEqual({ $decimal: text, precision, scale });
    expect(Buffer.from(encodeJsonb({ $decimal: text, precision, scale }, '$'))).toEqual(bytes);
  });

  it.each([
    ['too few bytes for DECIMAL(14,4)', '0e04810dfb'],
    ['one byte short of DECIMAL(14,4)', '0e04810dfb38d204'],
    ['one byte past DECIMAL(14,4)', '0e04810dfb38d204d200'],
    ['a precision and no scale', '0e'],
    ['no data', ''],
    ['a scale above the precision', '0205810d'],
    ['the precision and the scale swapped', '040e810dfb38d204d2'],
  ])('keeps %s opaque, byte for byte', (_, data) => {
    const bytes = opaque(data);
    const tree = decodeJsonb(bytes, 0, '$');
    expect(tree).toEqual({ $opaque: 246, hex: data });
    expect(Buffer.from(encodeJsonb(tree, '$'))).toEqual(bytes);
  });
});

describe('binary JSON decimals refused', () => {
  it("refuses, in the schema's cell, a scale above the precision before sizing the digits by them", () => {
    const cell = jsonDecimalCell({ decimalSize, decimalText: decodeDecimal, decimalBytes });
    const column: CellColumn = { type: 246, meta: {}, layout: {} };
    expect(() => cell.reader(column, '$')(new Reader(Buffer.from('0205810d', 'hex')))).toThrow(
      /DECIMAL\(2,5\) has more fraction digits than digits/,
    );
  });

  it('refuses data of the right size whose digit group holds more digits than it may, as today', () => {
    // DECIMAL(1,1): one byte, the digit 10 once its sign bit is taken off.
    expect(() => decodeJsonb(Buffer.from('0ff603' + '01018a', 'hex'), 0, '$')).toThrow(
      /DECIMAL digit group 10 has more than 1 digits/,
    );
  });

  it('refuses to write a decimal without its precision and scale, or one that does not fit them', () => {
    expect(() => encodeJsonb({ d: { $decimal: '1.5' } }, '$')).toThrow(/precision, scale/);
    expect(() => encodeJsonb({ $decimal: '123.45', precision: 4, scale: 2 }, '$')).toThrow(
      /does not fit DECIMAL\(4,2\)/,
    );
    expect(() => encodeJsonb({ $decimal: '1', precision: 300, scale: 0 }, '$')).toThrow(
      /precision 300 does not fit u8/,
    );
  });
});

describe('binary JSON opaque temporals', () => {
  // MySQL's packed longlong (my_time.cc TIME_to_longlong_*_packed), built here from its definition alone.
  const packed = (ymd: number, hour: number, minute: number, second: number, micro: number, negative = false) => {
    const hms = BigInt((hour << 12) | (minute << 6) | second);
    const n = (((BigInt(ymd) << 17n) | hms) << 24n) + BigInt(micro);
    return negative ? -n : n;
  };
  const ymd = (y: number, m: number, d: number) => ((y * 13 + m) << 5) | d;
  const TYPES = { $date: 10, $time: 11, $datetime: 12, $timestamp: 7 } as const;
  /** An opaque value of `type` whose data is `n` as 8 bytes little-endian (or `data` itself). */
  const opaque = (type: number, n: bigint | Buffer) => {
    const data = Buffer.isBuffer(n) ? n : Buffer.alloc(8);
    if (!Buffer.isBuffer(n)) data.writeBigInt64LE(n);
    return Buffer.concat([Buffer.from([0x0f, type, data.length]), data]);
  };

  it.each([
    ['$datetime', packed(ymd(2024, 2, 29), 23, 59, 58, 987654), '2024-02-29 23:59:58.987654'],
    ['$datetime', packed(ymd(1000, 1, 1), 0, 0, 0, 0), '1000-01-01 00:00:00'],
    ['$timestamp', packed(ymd(2038, 1, 19), 3, 14, 7, 1), '2038-01-19 03:14:07.000001'],
    ['$date', packed(ymd(9999, 12, 31), 0, 0, 0, 0), '9999-12-31'],
    ['$date', packed(ymd(0, 0, 0), 0, 0, 0, 0), '0000-00-00'],
    ['$time', packed(0, 838, 59, 59, 0), '838:59:59'],
    ['$time', packed(0, 838, 59, 59, 999999, true), '-838:59:59.999999'],
    ['$time', packed(0, 0, 0, 0, 500000, true), '-00:00:00.500000'],
    ['$time', packed(0, 12, 0, 1, 0, true), '-12:00:01'],
  ] as const)('%s of the packed %s reads as %s, and writes back', (tag, n, text) => {
    const bytes = opaque(TYPES[tag], n);
    expect(decodeJsonb(bytes, 0, '$')).toEqual({ [tag]: text });
    expect(Buffer.from(encodeJsonb({ [tag]: text }, '$'))).toEqual(bytes);
  });

  it.each([
    ['a negative DATETIME', 12, packed(ymd(2024, 1, 1), 0, 0, 0, 0, true)],
    ['a fraction of more than a million microseconds', 12, packed(ymd(2024, 1, 1), 0, 0, 0, 0) + 1_000_000n],
    ['a minute of 60', 11, packed(0, 1, 60, 0, 0)],
    ['hour 24', 12, packed(ymd(2024, 1, 1), 24, 0, 0, 0)],
    ['a DATE with a time', 10, packed(ymd(2024, 1, 1), 1, 0, 0, 0)],
    ['7 bytes', 12, Buffer.alloc(7)],
    ['9 bytes', 11, Buffer.alloc(9)],
  ] as const)('keeps %s opaque, byte for byte', (_, type, n) => {
    const bytes = opaque(type, n);
    const tree = decodeJsonb(bytes, 0, '$');
    expect(tree).toEqual({ $opaque: type, hex: bytes.subarray(3).toString('hex') });
    expect(Buffer.from(encodeJsonb(tree, '$'))).toEqual(bytes);
  });

  it('refuses to write what is no temporal of its tag, naming the path', () => {
    expect(() => encodeJsonb({ a: { $datetime: '2024-01-01' } }, '$')).toThrow(/a datetime/);
    expect(() => encodeJsonb({ $time: '1000:00:00' }, '$')).toThrow(/is not a time/);
  });
});
