/**
 * Applying PARTIAL_UPDATE_ROWS JSON diffs. The expected documents are the MySQL reference manual's
 * examples of the functions whose diffs these are (JSON_REPLACE and JSON_SET log REPLACE, JSON_SET and
 * JSON_INSERT of a new member INSERT, JSON_ARRAY_INSERT INSERT at a cell, JSON_REMOVE REMOVE), and the
 * rejections are those of sql/json_diff.cc apply_json_diffs.
 */
import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../runtime/core/errors.js';
import { applyJsonDiff, sameJson } from '../../runtime/rows/json-diff.js';
import { caught } from './helpers.js';
import type { JsonDiff, JsonTree } from '../../runtime/core/values.js';

const replace = (path: string, value: JsonTree): JsonDiff => ({ op: 'REPLACE', path, value });
const insert = (path: string, value: JsonTree): JsonDiff => ({ op: 'INSERT', path, value });
const remove = (path: string): JsonDiff => ({ op: 'REMOVE', path });

const ARRAY: JsonTree = ['a', { b: [1, 2] }, [3, 4]];

describe('applyJsonDiff: each op, as the functions that log it', () => {
  it('REPLACE: JSON_REPLACE(\'{"a": 1, "b": [2, 3]}\', \'$.a\', 10)', () => {
    expect(applyJsonDiff({ a: 1, b: [2, 3] }, [replace('$.a', 10)])).toEqual({ a: 10, b: [2, 3] });
  });
  it("REPLACE then INSERT: JSON_SET('{\"a\": 1, \"b\": [2, 3]}', '$.a', 10, '$.c', '[true, false]')", () => {
    const out = applyJsonDiff({ a: 1, b: [2, 3] }, [replace('$.a', 10), insert('$.c', '[true, false]')]);
    expect(out).toEqual({ a: 10, b: [2, 3], c: '[true, false]' });
  });
  it('INSERT of a member keeps MySQL key order (by length, then bytes)', () => {
    expect(Object.keys(applyJsonDiff({ b: 1, aa: 2 }, [insert('$.c', 3)]) as object)).toEqual(['b', 'c', 'aa']);
  });
  it.each([
    ['$[1]', ['a', 'x', { b: [1, 2] }, [3, 4]]],
    ['$[100]', ['a', { b: [1, 2] }, [3, 4], 'x']],
    ['$[1].b[0]', ['a', { b: ['x', 1, 2] }, [3, 4]]],
    ['$[2][1]', ['a', { b: [1, 2] }, [3, 'x', 4]]],
  ])("INSERT at a cell: JSON_ARRAY_INSERT('[\"a\", {\"b\": [1, 2]}, [3, 4]]', '%s', 'x')", (path, expected) => {
    expect(applyJsonDiff(ARRAY, [insert(path, 'x')])).toEqual(expected);
  });
  it(
    'INSERT at a cell counted from last lands where Json_array_index ' +
      'puts it (before that cell; 0 when before the start)',
    () => {
      expect(applyJsonDiff([1, 2, 3], [insert('$[last]', 'x')])).toEqual([1, 2, 'x', 3]);
      expect(applyJsonDiff([1, 2, 3], [insert('$[last-5]', 'x')])).toEqual(['x', 1, 2, 3]);
    },
  );
  it('REMOVE: JSON_REMOVE(\'["a", ["b", "c"], "d"]\', \'$[1]\')', () => {
    expect(applyJsonDiff(['a', ['b', 'c'], 'd'], [remove('$[1]')])).toEqual(['a', 'd']);
  });
  it('REMOVE of a nested member, and of a cell counted from last', () => {
    expect(applyJsonDiff({ a: { b: 1, c: 2 } }, [remove('$.a.b')])).toEqual({ a: { c: 2 } });
    expect(applyJsonDiff([1, 2, 3], [remove('$[last]')])).toEqual([1, 2]);
    expect(applyJsonDiff([1, 2, 3], [remove('$[last-2]')])).toEqual([2, 3]);
  });
  it('quoted member names, with escapes', () => {
    expect(applyJsonDiff({ 'a b': 1, 'x"y': 2 }, [replace('$."a b"', 3), remove('$."x\\"y"')])).toEqual({ 'a b': 3 });
  });
  it('diffs apply in order, each to what the one before made', () => {
    expect(applyJsonDiff({ a: [] }, [insert('$.a[0]', 1), insert('$.a[0]', 0), replace('$.a[1]', 'one')])).toEqual({
      a: [0, 'one'],
    });
  });
  it('a scalar of a binary type is a value, replaced whole, never a container', () => {
    expect(applyJsonDiff({ n: 1 }, [replace('$.n', { $uint: 7 })])).toEqual({ n: { $uint: 7 } });
    expect(() => applyJsonDiff({ n: { $uint: 7 } }, [replace('$.n."$uint"', 1)])).toThrow(InvalidValueError);
  });
  it('leaves the before document as it was', () => {
    const before: JsonTree = { a: [1, { b: 2 }] };
    const copy = structuredClone(before);
    applyJsonDiff(before, [replace('$.a[1].b', 3), insert('$.a[0]', 0), remove('$.a[2]')]);
    expect(before).toEqual(copy);
  });
  it('a member named __proto__ is a key like any other', () => {
    const out = applyJsonDiff({}, [insert('$."__proto__"', 1)]) as Record<string, JsonTree>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('applyJsonDiff: what a replica rejects is a typed error naming the diff', () => {
  it.each([
    ['REPLACE of a member that does not exist', { a: 1 }, replace('$.b', 2), 'the path is not in the document'],
    ['REPLACE of a cell past the end', [1], replace('$[1]', 2), 'the path is not in the document'],
    ['REPLACE below a missing member', { a: 1 }, replace('$.x.y', 2), '$."x" is not in the document'],
    ['REMOVE of a member that does not exist', { a: 1 }, remove('$.b'), 'the path is not in the document'],
    ['REMOVE of a cell past the end', [1, 2], remove('$[2]'), 'the path is not in the document'],
    ['INSERT of a member that exists', { a: 1 }, insert('$.a', 2), 'the member exists already'],
    ['INSERT under a missing parent', { a: 1 }, insert('$.b.c', 2), '$."b" is not in the document'],
    ['a cell leg into an object (no auto-wrapping)', { a: 1 }, insert('$[0]', 2), 'the parent is an object'],
    ['a member leg into an array', [1], insert('$.a', 2), 'the parent is an array'],
    ['a member leg into a scalar', { a: 1 }, replace('$.a.b', 2), 'the path is not in the document'],
    ['the root', { a: 1 }, replace('$', 2), 'cannot change the whole document'],
    ['a wildcard', { a: 1 }, remove('$.*'), "unexpected '.*'"],
    ['a range', [1, 2], remove('$[0 to 1]'), 'unexpected'],
    ['a path without $', { a: 1 }, remove('.a'), 'must start with $'],
  ])('%s', (_, doc, diff, problem) => {
    const error = caught(InvalidValueError, () =>
      applyJsonDiff(doc as JsonTree, [diff], { offset: 123, schemaPath: 'here' }),
    );
    expect(error).toMatchObject({ kind: 'invalid-value', offset: 123, schemaPath: 'here' });
    expect(error.problem).toContain(`JSON diff 0 (${diff.op} ${diff.path}): `);
    expect(error.problem).toContain(problem);
  });
});

describe('sameJson', () => {
  it('ignores key order, not types', () => {
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: { $uint: 1 } })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
