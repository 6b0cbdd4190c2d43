/**
 * The JSON diffs of a PARTIAL_UPDATE_ROWS after image, byte for byte: rows.yaml's JsonDiffs, laid out by
 * hand from sql/json_diff.cc (Json_diff_vector::write_binary: the diffs' length in 4 bytes; each diff
 * its operation byte, the path after its packed length and, but for REMOVE, the value's binary JSON
 * after its packed length).
 */
import { describe, expect, it } from 'vitest';
import { InvalidValueError, LengthError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { Writer } from '../../runtime/core/writer.js';
import type { Column } from '../../runtime/values/column.js';
import { jsonDiffCodec } from '../../runtime/values/json-cells.js';
import { caught, hex, spaced } from './helpers.js';

const column = {} as Column;
// REMOVE $.ab; REPLACE $.c with the INT16 1 (type 0x05, then 01 00).
const DIFFS = '0f 00 00 00  02 04 24 2e 61 62  00 03 24 2e 63 03 05 01 00';
const BASE = 1000;

const read = (bytes: string) => jsonDiffCodec.reader(column, '$.c')(new Reader(hex(bytes), 0, undefined, BASE));

describe('JSON diffs: rows.yaml JsonDiffs', () => {
  it('reads each diff: its op, its path as text, its value as a document', () => {
    expect(read(DIFFS)).toEqual({
      diff: [
        { op: 'REMOVE', path: '$.ab' },
        { op: 'REPLACE', path: '$.c', value: 1 },
      ],
    });
  });

  it('writes them back byte for byte', () => {
    const w = new Writer();
    jsonDiffCodec.writer(column, '$.c')(w, read(DIFFS));
    expect(spaced(w.view())).toBe(spaced(hex(DIFFS)));
  });

  it("refuses an unknown operation, at its diff's path, with the column path", () => {
    const e = caught(InvalidValueError, () => read('07 00 00 00  07 01 24 03 05 01 00'));
    expect([e.problem, e.offset, e.schemaPath]).toEqual(['JSON diff operation 7', BASE + 6, '$.c']);
  });

  it('refuses a value not in the canonical form (an INT32 that fits INT16) at its end', () => {
    const e = caught(InvalidValueError, () => read('09 00 00 00  00 01 24 05 07 01 00 00 00'));
    expect([e.problem, e.offset, e.schemaPath]).toEqual([
      'a JSON diff value not in the canonical form',
      BASE + 13,
      '$.c',
    ]);
  });

  it('says a diff cut short at the column path', () => {
    const e = caught(LengthError, () => read('09 00 00 00  00 01 24 05 07'));
    expect(e.schemaPath).toBe('$.c');
  });
});
