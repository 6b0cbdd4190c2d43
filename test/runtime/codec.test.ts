import { describe, expect, it } from 'vitest';
import {
  checkConst,
  checkDerived,
  enumCode,
  enumName,
  noCase,
  required,
  versionAtLeast,
} from '../../runtime/core/schema-helpers.js';
import { EncodeError, InvalidValueError, SchemaCheckError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { caught } from './helpers.js';

const Alg = { OFF: 0, CRC32: 1, UNDEF: 255 } as const;
const AlgNames: Readonly<Record<number, 'OFF' | 'CRC32' | 'UNDEF'>> = { 0: 'OFF', 1: 'CRC32', 255: 'UNDEF' };

/** A reader whose cursor is at file offset 1234 (base 1230, pos 4). */
function at1234(): Reader {
  return new Reader(new Uint8Array(8), 4, 8, 1230);
}

describe('enumName', () => {
  it('gives the name of a known code, including code 0', () => {
    expect(enumName(AlgNames, 1)).toBe('CRC32');
    expect(enumName(AlgNames, 0)).toBe('OFF');
    expect(enumName(AlgNames, 255)).toBe('UNDEF');
  });

  it('gives an unknown code back as the number', () => {
    expect(enumName(AlgNames, 2)).toBe(2);
    expect(enumName(AlgNames, 254)).toBe(254);
  });
});

describe('enumCode', () => {
  it('gives the code of a known name, including one whose code is 0', () => {
    expect(enumCode(Alg, 'CRC32', 'P')).toBe(1);
    expect(enumCode(Alg, 'OFF', 'P')).toBe(0);
    expect(enumCode(Alg, 'UNDEF', 'P')).toBe(255);
  });

  it('passes a number through, whether the enum names it or not', () => {
    expect(enumCode(Alg, 1, 'P')).toBe(1);
    expect(enumCode(Alg, 42, 'P')).toBe(42);
  });

  it('throws EncodeError with the path for an unknown name', () => {
    const e = caught(EncodeError, () => enumCode(Alg, 'SHA1', 'Fde.checksumAlg'));
    expect(e.kind).toBe('encode');
    expect(e.schemaPath).toBe('Fde.checksumAlg');
    expect(e.message).toBe("'SHA1' is not a name of this enum [in Fde.checksumAlg]");
  });

  it('names are case-sensitive', () => {
    caught(EncodeError, () => enumCode(Alg, 'crc32', 'P'));
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    'an inherited Object property %s is not a name of the enum',
    (name) => {
      caught(EncodeError, () => enumCode(Alg, name, 'P'));
    },
  );
});

describe('checkConst', () => {
  it('passes when the value is the constant', () => {
    expect(() => checkConst(4, 4, at1234(), 'P')).not.toThrow();
  });

  it('throws InvalidValueError at the reader offset otherwise', () => {
    const e = caught(InvalidValueError, () => checkConst(3, 4, at1234(), 'Fde.binlogVersion'));
    expect(e.kind).toBe('invalid-value');
    expect(e.offset).toBe(1234);
    expect(e.schemaPath).toBe('Fde.binlogVersion');
    expect(e.message).toBe('expected 4, found 3 [offset 1234, in Fde.binlogVersion]');
  });
});

describe('checkDerived', () => {
  it('passes when the stored value equals the derived one', () => {
    expect(() => checkDerived(19, 19, at1234(), 'P')).not.toThrow();
  });

  it('throws SchemaCheckError at the reader offset otherwise', () => {
    const e = caught(SchemaCheckError, () => checkDerived(20, 19, at1234(), 'Query.dbLen'));
    expect(e.kind).toBe('schema-check');
    expect(e.offset).toBe(1234);
    expect(e.schemaPath).toBe('Query.dbLen');
    expect(e.message).toBe('stored 20, but it derives as 19 [offset 1234, in Query.dbLen]');
  });
});

describe('required', () => {
  it('returns a present value, including falsy ones', () => {
    expect(required(5, 'P')).toBe(5);
    expect(required(0, 'P')).toBe(0);
    expect(required('', 'P')).toBe('');
    expect(required(false, 'P')).toBe(false);
    expect(required(0n, 'P')).toBe(0n);
  });

  it('throws EncodeError with the path when the value is undefined', () => {
    const e = caught(EncodeError, () => required(undefined, 'Fde.checksumAlg'));
    expect(e.schemaPath).toBe('Fde.checksumAlg');
    expect(e.offset).toBe(-1);
  });
});

describe('noCase', () => {
  it('returns (does not throw) an InvalidValueError at the reader offset', () => {
    const e = noCase(9, at1234(), 'Query.statusVars.key');
    expect(e).toBeInstanceOf(InvalidValueError);
    expect(e.message).toBe('no case for 9 [offset 1234, in Query.statusVars.key]');
  });
});

describe('versionAtLeast(version, mysql, mariadb)', () => {
  it.each([
    ['10.11.6-MariaDB-log', true, 'MariaDB 10.11.6 ≥ 5.3.0'],
    ['5.5.36-MariaDB-debug-log', true, 'MariaDB uses its own threshold 5.3.0, not 5.6.1'],
    ['5.3.0-MariaDB', true, 'exactly the MariaDB threshold'],
    ['5.2.99-MariaDB', false, 'just below the MariaDB threshold'],
    ['5.5.36-mariadb', true, 'MariaDB is recognised case-insensitively'],
    ['5.5.17-debug-log', false, 'MySQL 5.5.17 < 5.6.1'],
    ['5.6.1', true, 'exactly the MySQL threshold'],
    ['5.6.0-m4', false, 'MySQL 5.6.0 < 5.6.1: only the leading numbers count'],
    ['5.6.2', true, 'patch above'],
    ['8.0.30-tr-debug', true, 'MySQL 8.0.30 > 5.6.1'],
    ['5.7.0', true, 'minor above, patch below'],
    ['5.10.0', true, 'numbers compare as numbers, not text (10 > 6)'],
    ['4.99.99', false, 'major below'],
    ['10.0.0', true, 'major 10 > 5 as numbers'],
    ['garbage', false, 'no version numbers at all counts as 0.0.0'],
    ['', false, 'empty'],
  ])('%s with (5.6.1, 5.3.0) is %s (%s)', (version, expected) => {
    expect(versionAtLeast(version, '5.6.1', '5.3.0')).toBe(expected);
  });

  it('accepts the version as bytes, e.g. a NUL-padded field kept raw', () => {
    const bytes = new Uint8Array(50);
    bytes.set(new TextEncoder().encode('10.11.6-MariaDB-log'));
    bytes[30] = 1; // junk after the padding: the reader keeps such a field as bytes
    expect(versionAtLeast(bytes, '5.6.1', '5.3.0')).toBe(true);
    expect(versionAtLeast(new TextEncoder().encode('5.5.17-debug-log'), '5.6.1', '5.3.0')).toBe(false);
    expect(versionAtLeast(new TextEncoder().encode('5.5.36-MariaDB-debug-log'), '5.6.1', '5.3.0')).toBe(true);
  });
});
