import { describe, expect, it } from 'vitest';
import { decodeJsonb, encodeJsonb } from '../../runtime/values/binary-json.js';
import type { JsonTree } from '../../runtime/core/values.js';

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

  it.each([
    ['too few bytes for DECIMAL(14,4)', '0e04810dfb'],
    ['a scale above the precision', '0205810d'],
  ])('keeps %s opaque, byte for byte', (_, data) => {
    const bytes = opaque(data);
    const tree = decodeJsonb(bytes, 0, '$');
    expect(tree).toEqual({ $opaque: 246, hex: data });
    expect(Buffer.from(encodeJsonb(tree, '$'))).toEqual(bytes);
  });
});
