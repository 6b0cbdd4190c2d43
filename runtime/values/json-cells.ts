/**
 * JSON cells (schemas/cells.yaml gives their layout): MySQL's binary JSON documents, and the JSON diffs of PARTIAL_UPDATE_ROWS after images.
 */
import { EncodeError } from '../core/errors.js';
import { decodeJsonb, encodeJsonb } from './binary-json.js';
import { sameBytes } from '../core/reader.js';
import { Writer } from '../core/writer.js';
import type { CellValue, JsonCell, JsonDiff, JsonDiffCell } from '../core/values.js';
import { bad, type CellCodec, expect } from './cell-codec.js';

export function jsonDocument(stored: Uint8Array, offset: number, path: string): JsonCell {
  const tree = decodeJsonb(stored, offset, path);
  const canonical = stored.length > 0 && sameBytes(encodeJsonb(tree, path), stored);
  return canonical ? { json: tree } : { json: tree, stored };
}

/** Stored bytes that still mean the same document are written as they are; else the canonical form. */
export function jsonStored(v: CellValue, path: string): Uint8Array {
  const cell = expect(v, (x): x is JsonCell => typeof x === 'object' && x !== null && 'json' in x, 'a {json} cell', path);
  const same = cell.stored !== undefined && JSON.stringify(decodeJsonb(cell.stored, 0, path)) === JSON.stringify(cell.json);
  return same ? cell.stored! : encodeJsonb(cell.json, path);
}

const DIFF_OPS = ['REPLACE', 'INSERT', 'REMOVE'] as const;

/**
 * A JSON column's value in a PARTIAL_UPDATE_ROWS after image, when its flag says it is a diff: a 4-byte
 * length, then each diff: the operation byte, a packed length and the path, and (but for REMOVE) a
 * packed length and the value's binary JSON. (MySQL sql/json_diff.cc, Json_diff::write_binary.)
 */
export const jsonDiffCodec: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(4, path);
      const sub = r.sub(r.u32(), path);
      const diff: JsonDiff[] = [];
      while (sub.pos < sub.end) {
        sub.need(1, path);
        const code = sub.u8();
        const op = DIFF_OPS[code];
        if (!op) throw bad(sub, `JSON diff operation ${code}`, path);
        const at = new TextDecoder().decode(sub.bytes(sub.packed(path), path));
        if (op === 'REMOVE') diff.push({ op, path: at });
        else {
          const stored = sub.bytes(sub.packed(path), path);
          const value = decodeJsonb(stored, sub.offset - stored.length, path);
          if (!sameBytes(encodeJsonb(value, path), stored)) throw bad(sub, 'a JSON diff value not in the canonical form', path);
          diff.push({ op, path: at, value });
        }
      }
      return { diff };
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const cell = expect(v, (x): x is JsonDiffCell => typeof x === 'object' && x !== null && 'diff' in x, 'a {diff} cell', path);
      const out = new Writer();
      for (const d of cell.diff) {
        const code = DIFF_OPS.indexOf(d.op);
        if (code < 0) throw new EncodeError(`JSON diff operation ${JSON.stringify(d.op)}: one of ${DIFF_OPS.join(', ')}`, path);
        out.u8(code);
        out.prefixed(new TextEncoder().encode(d.path), 0, path);
        if (d.op !== 'REMOVE') out.prefixed(encodeJsonb(d.value ?? null, path), 0, path);
      }
      w.prefixed(out.view(), 4, path);
    };
  },
};
