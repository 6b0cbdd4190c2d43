/** Small helpers the generated codecs call; each keeps one check out of every generated function. */
import { BinlogError, EncodeError, InvalidValueError, SchemaCheckError } from './errors.js';
import { varintWidth, type Reader } from './reader.js';
import type { CellValue, WithCell } from './values.js';

/** The enum's name for a code, or the code itself when the enum has none. */
export function enumName<N extends string>(names: Readonly<Record<number, N>>, code: number): N | number {
  return names[code] ?? code;
}

/** The code for an enum name, or a number as given. */
export function enumCode(codes: Readonly<Record<string, number>>, v: string | number, path: string): number {
  if (typeof v === 'number') return v;
  const code = Object.hasOwn(codes, v) ? codes[v] : undefined;
  if (code === undefined) throw new EncodeError(`'${v}' is not a name of this enum`, path);
  return code;
}

export function checkConst(actual: number, expected: number, r: Reader, path: string): void {
  if (actual !== expected) {
    throw new InvalidValueError(`expected ${expected}, found ${actual}`, { offset: r.offset, schemaPath: path });
  }
}

export function checkDerived(actual: number, expected: number, r: Reader, path: string): void {
  if (actual !== expected) {
    throw new SchemaCheckError(`stored ${actual}, but it derives as ${expected}`, {
      offset: r.offset,
      schemaPath: path,
    });
  }
}

export function required<T>(v: T | undefined, path: string): T {
  if (v === undefined) throw new EncodeError('missing: the fields before it say it is present', path);
  return v;
}

export function absentTarget(r: Reader, path: string, target: string): SchemaCheckError {
  return new SchemaCheckError(`present, but '${target}', which it measures, is not`, {
    offset: r.offset,
    schemaPath: path,
  });
}

export function noCase(value: number, r: Reader, path: string): InvalidValueError {
  return new InvalidValueError(`no case for ${value}`, { offset: r.offset, schemaPath: path });
}

/**
 * Whether a server version string is at least `mysql` (for MySQL and Percona) or `mariadb` (for a version
 * string that names MariaDB). Both are dotted triples; the leading numbers of the version are compared.
 */
export function versionAtLeast(version: string | Uint8Array, mysql: string, mariadb: string): boolean {
  // Bytes are the version as stored: what follows the first NUL is padding, whatever it holds.
  const stored =
    typeof version === 'string'
      ? undefined
      : version.subarray(0, version.indexOf(0) < 0 ? version.length : version.indexOf(0));
  const text = stored === undefined ? (version as string) : new TextDecoder('latin1').decode(stored);
  const want = (/mariadb/i.test(text) ? mariadb : mysql).split('.').map(Number);
  const have = (/^(\d+)\.(\d+)\.(\d+)/.exec(text) ?? ['', '0', '0', '0']).slice(1).map(Number);
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!;
  return true;
}

/** A map from numbers to values, given as [first, last, value] ranges (a generated lookup table). */
export function rangeMap<V>(ranges: readonly (readonly [number, number, V])[]): ReadonlyMap<number, V> {
  const map = new Map<number, V>();
  for (const [lo, hi, v] of ranges) for (let k = lo; k <= hi; k++) map.set(k, v);
  return map;
}

/**
 * A value built on its first use and kept (a generated table of many values: its literal is in the
 * function's body, which a module's import only pre-parses, so the table costs nothing until read).
 */
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** Whether bit n of an integer is set, for numbers and bigints alike (a schema's `bit(field, n)`). */
export function bit(v: number | bigint | undefined, n: number): boolean {
  if (v === undefined) return false;
  return typeof v === 'bigint' ? ((v >> BigInt(n)) & 1n) === 1n : Math.floor(v / 2 ** n) % 2 === 1;
}

/** A size that counts its own varint: `n` other bytes, plus the width of the size itself. */
export function sizeWithItself(n: number): number {
  let size = n + 1;
  while (n + varintWidth(BigInt(size)) !== size) size = n + varintWidth(BigInt(size));
  return size;
}

/** `f`'s value; an error it throws at `from` (a struct read or written for a larger one) is placed at `to`. */
export function placedAt<T>(f: () => T, from: string, to: string): T {
  try {
    return f();
  } catch (e) {
    throw placedError(e, from, to);
  }
}

/** An error met at `from`, placed at `to`: for a hot caller that makes `to` only when something was thrown. */
export function placedError(e: unknown, from: string, to: string): unknown {
  return e instanceof BinlogError ? e.rebased(from, to) : e;
}

/** A value given with the numbers `names` (a cell's `with`), each checked to be an integer. */
export function cellWith(v: CellValue, names: readonly string[], path: string): WithCell {
  const given = isWithCell(v) && names.every((n) => Number.isSafeInteger(v.with[n])) ? v : undefined;
  if (!given) throw new EncodeError(`expected {value, with: {${names.join(', ')}}}, the numbers integers`, path);
  return given;
}

/** A value that carries numbers with it (a cell's `with`). */
export function isWithCell(v: CellValue): v is WithCell {
  // Arrays have a `with` method, not numbers.
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    'value' in v &&
    'with' in v &&
    typeof v.with === 'object' &&
    v.with !== null
  );
}
