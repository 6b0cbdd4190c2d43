/**
 * JSON cells (schemas/cells.yaml gives their layout): MySQL's binary JSON documents, and the JSON diffs of
 * PARTIAL_UPDATE_ROWS after images (schemas/rows.yaml JsonDiffs).
 */
import type { Context } from '../../generated/context.js';
import { decodeJsonDiffs, encodeJsonDiffs, JsonDiffOperation, type JsonDiffInput } from '../../generated/rows.js';
import { BinlogError, EncodeError, InvalidValueError } from '../core/errors.js';
import { decodeJsonb, encodeJsonb } from './binary-json.js';
import { type Reader, sameBytes } from '../core/reader.js';
import type { CellValue, JsonCell, JsonDiff, JsonDiffCell } from '../core/values.js';
import { type CellCodec, expect } from './cell-codec.js';

export function jsonDocument(stored: Uint8Array, offset: number, path: string): JsonCell {
  const tree = decodeJsonb(stored, offset, path);
  const canonical = stored.length > 0 && sameBytes(encodeJsonb(tree, path), stored);
  return canonical ? { json: tree } : { json: tree, stored };
}

/** Stored bytes that still mean the same document are written as they are; else the canonical form. */
export function jsonStored(v: CellValue, path: string): Uint8Array {
  const cell = expect(
    v,
    (x): x is JsonCell => typeof x === 'object' && x !== null && 'json' in x,
    'a {json} cell',
    path,
  );
  const same =
    cell.stored !== undefined && JSON.stringify(decodeJsonb(cell.stored, 0, path)) === JSON.stringify(cell.json);
  return same ? cell.stored! : encodeJsonb(cell.json, path);
}

/** JsonDiffs reads nothing of the stream's context. */
const NO_CONTEXT = {} as Context;

/** Where bytes read in place from `r` begin in the file. */
const offsetIn = (r: Reader, bytes: Uint8Array) => r.base + bytes.byteOffset - r.buf.byteOffset;

/** An error of the generated JsonDiffs codec, said at the column's path as the other cells' are. */
function atColumn<T>(f: () => T, path: string): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof BinlogError ? e.at(path) : e;
  }
}

/**
 * A JSON column's value in a PARTIAL_UPDATE_ROWS after image, when its flag says it is a diff: its
 * layout is rows.yaml's JsonDiffs; here each diff's path is text and its value a document, one in the
 * canonical form (what the server writes) so that it is written back as it was.
 */
/** Diffs are read whole (lazy rows read a change with diffs at once): no skipper. */
export const jsonDiffCodec: Omit<CellCodec, 'skipper'> = {
  reader(_c, path) {
    return (r) => {
      const stored = atColumn(() => decodeJsonDiffs(r, NO_CONTEXT), path).diffs;
      const diff: JsonDiff[] = [];
      for (const d of stored) {
        if (typeof d.op === 'number')
          throw new InvalidValueError(`JSON diff operation ${d.op}`, { offset: offsetIn(r, d.path), schemaPath: path });
        const at = new TextDecoder().decode(d.path);
        if (d.value === undefined) {
          diff.push({ op: d.op, path: at });
          continue;
        }
        const offset = offsetIn(r, d.value);
        const value = decodeJsonb(d.value, offset, path);
        if (!sameBytes(encodeJsonb(value, path), d.value))
          throw new InvalidValueError('a JSON diff value not in the canonical form', {
            offset: offset + d.value.length,
            schemaPath: path,
          });
        diff.push({ op: d.op, path: at, value });
      }
      return { diff };
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const cell = expect(
        v,
        (x): x is JsonDiffCell => typeof x === 'object' && x !== null && 'diff' in x,
        'a {diff} cell',
        path,
      );
      const diffs = cell.diff.map((d): JsonDiffInput => {
        if (!Object.hasOwn(JsonDiffOperation, d.op))
          throw new EncodeError(
            `JSON diff operation ${JSON.stringify(d.op)}: one of ${Object.keys(JsonDiffOperation).join(', ')}`,
            path,
          );
        const bytes = new TextEncoder().encode(d.path);
        // JsonDiff's `if`: a REMOVE stores no value; another stores its value, null if it has none.
        return d.op === 'REMOVE'
          ? { op: d.op, path: bytes }
          : { op: d.op, path: bytes, value: encodeJsonb(d.value ?? null, path) };
      });
      atColumn(() => encodeJsonDiffs(w, { diffs }, NO_CONTEXT), path);
    };
  },
};
