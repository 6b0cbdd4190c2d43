import { describe, expect, it } from 'vitest';
import { decodeJsonb, encodeJsonb, type JsonTree } from '../../runtime/jsonb.js';

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
