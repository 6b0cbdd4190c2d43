import { describe, expect, it } from 'vitest';
import { toHex, toJsonLine } from '../../runtime/core/dump-json.js';

describe('toJsonLine: bigints', () => {
  it.each([
    [0n, '0'],
    [5n, '5'],
    [-5n, '-5'],
    [9007199254740991n, '9007199254740991'],
    [-9007199254740991n, '-9007199254740991'],
  ])('a safe bigint %s becomes the number %s', (v, json) => {
    expect(toJsonLine(v)).toBe(json);
  });

  it.each([
    [9007199254740992n, '"9007199254740992"'],
    [-9007199254740992n, '"-9007199254740992"'],
    [18446744073709551615n, '"18446744073709551615"'],
    [-9223372036854775808n, '"-9223372036854775808"'],
  ])('an unsafe bigint %s becomes the decimal string %s', (v, json) => {
    expect(toJsonLine(v)).toBe(json);
  });
});

describe('toJsonLine: bytes as {"hex": …} in lowercase', () => {
  it('a Uint8Array', () => {
    expect(toJsonLine(Uint8Array.of(0xde, 0xad, 0x0f, 0xab))).toBe('{"hex":"dead0fab"}');
  });

  it('an empty Uint8Array', () => {
    expect(toJsonLine(new Uint8Array(0))).toBe('{"hex":""}');
  });

  it('a subarray gives only its own bytes', () => {
    const whole = Uint8Array.of(1, 2, 3, 4, 5);
    expect(toJsonLine(whole.subarray(1, 3))).toBe('{"hex":"0203"}');
  });

  it('a Node Buffer (whose toJSON would give {type, data})', () => {
    expect(toJsonLine(Buffer.from([0xca, 0xfe]))).toBe('{"hex":"cafe"}');
    expect(toJsonLine({ b: Buffer.from([0x0a]) })).toBe('{"b":{"hex":"0a"}}');
    expect(toJsonLine([Buffer.from([0xff])])).toBe('[{"hex":"ff"}]');
  });

  it('toHex is lowercase and honours the view', () => {
    expect(toHex(Uint8Array.of(0xab, 0xcd, 0xef))).toBe('abcdef');
    expect(toHex(Uint8Array.of(9, 0xa0, 0x0b, 9).subarray(1, 3))).toBe('a00b');
  });
});

describe('toJsonLine: numbers', () => {
  it('negative zero becomes "-0"', () => {
    expect(toJsonLine(-0)).toBe('"-0"');
    expect(toJsonLine({ x: -0 })).toBe('{"x":"-0"}');
    expect(toJsonLine([-0, 0])).toBe('["-0",0]');
  });

  it('positive zero and ordinary numbers stay numbers', () => {
    expect(toJsonLine(0)).toBe('0');
    expect(toJsonLine(-1.5)).toBe('-1.5');
    expect(toJsonLine(2 ** 53)).toBe('9007199254740992');
  });
});

describe('toJsonLine: structure', () => {
  it('converts values nested in objects and arrays', () => {
    const value = {
      header: { pos: 4n, type: 15, flags: -0 },
      rows: [
        [1n, Uint8Array.of(0x41)],
        [2n ** 63n, null],
      ],
      name: 'tëst',
    };
    expect(toJsonLine(value)).toBe(
      '{"header":{"pos":4,"type":15,"flags":"-0"},' +
        '"rows":[[1,{"hex":"41"}],["9223372036854775808",null]],"name":"tëst"}',
    );
  });

  it('omits undefined properties', () => {
    expect(toJsonLine({ a: undefined, b: 1, c: undefined })).toBe('{"b":1}');
    expect(toJsonLine({ nested: { x: undefined } })).toBe('{"nested":{}}');
  });

  it('writes undefined in an array as null, as JSON does', () => {
    expect(toJsonLine([undefined, 1])).toBe('[null,1]');
  });

  it('a property named "hex" on a plain object is left alone', () => {
    expect(toJsonLine({ hex: 'zz' })).toBe('{"hex":"zz"}');
  });

  it('is one line: no newlines or indentation', () => {
    const line = toJsonLine({ a: [1, { b: 'x\ny' }] });
    expect(line).toBe('{"a":[1,{"b":"x\\ny"}]}');
    expect(line.includes('\n')).toBe(false);
  });
});
