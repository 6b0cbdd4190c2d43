/**
 * PARTIAL_UPDATE_ROWS rows byte for byte: rows.yaml's PartialJsonOptions between each row's images, laid
 * out by hand from Rows_log_event::write_data_body (the before image; value_options, packed; when it says
 * PARTIAL_JSON_UPDATES a bit per JSON column of the table, least significant first; the after image).
 */
import { describe, expect, it } from 'vitest';
import { RowImages, type TableMapEvent } from '../../generated/rows.js';
import { EncodeError, InvalidValueError, LengthError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { Writer } from '../../runtime/core/writer.js';
import type { RowLayout } from '../../runtime/core/tables.js';
import { decodeRows, encodeRows } from '../../runtime/rows/images.js';
import { TableRegistry } from '../../runtime/tables/registry.js';
import { caught, hex, spaced } from './helpers.js';

/** Table 7: a TINYINT n and a JSON j (a 4-byte length, then binary JSON). */
const tables = new TableRegistry();
const map: TableMapEvent = {
  tableId: 7,
  flags: 1,
  schemaName: 'db',
  tableName: 't',
  columnCount: 2,
  columnTypes: ['TINY', 'JSON'],
  columnMetadata: [{}, { packLength: 4 }],
  nullable: [true, true],
  optionalMetadata: [{ code: 'COLUMN_NAME', names: ['n', 'j'] }],
};
tables.register(map);
const both = [true, true];
const BASE = 500;
const LAYOUT: RowLayout = {
  tableId: 7,
  columns: both,
  columnsAfter: both,
  images: RowImages.PARTIAL_JSON,
  path: 'T.rows',
};
// Each image: its null bitmap over 2 columns (none NULL, the spare bits set as servers leave them), n, then j: the
// literal null (04 00).
const before = 'fc 05  02 00 00 00 04 00';
const after = 'fc 06  02 00 00 00 04 00';

const read = (bytes: string) => decodeRows(new Reader(hex(bytes), 0, undefined, BASE), tables, LAYOUT);
function written(bytes: string): string {
  const w = new Writer();
  encodeRows(w, read(bytes), tables, LAYOUT);
  return spaced(w.view());
}

describe('PARTIAL_UPDATE_ROWS: rows.yaml PartialJsonOptions', () => {
  it('reads value_options 0, with no partial-JSON bitmap after it, and writes the row back', () => {
    const bytes = `${before} 00 ${after}`;
    expect(read(bytes)).toEqual([
      { before: { n: 5, j: { json: null } }, jsonOptions: 0, after: { n: 6, j: { json: null } } },
    ]);
    expect(written(bytes)).toBe(spaced(hex(bytes)));
  });

  it('reads value_options PARTIAL_JSON_UPDATES and a bit for the one JSON column, and writes them back', () => {
    const bytes = `${before} 01 00 ${after}`;
    expect(read(bytes)).toEqual([
      { before: { n: 5, j: { json: null } }, jsonOptions: 1, partialJson: [false], after: { n: 6, j: { json: null } } },
    ]);
    expect(written(bytes)).toBe(spaced(hex(bytes)));
  });

  it('refuses value_options with a bit MySQL does not know, also past 32 bits, after reading them', () => {
    const two = caught(InvalidValueError, () => read(`${before} 02 ${after}`));
    expect([two.problem, two.offset, two.schemaPath]).toEqual([
      'jsonOptions 2 has a bit ValueOptions does not name',
      BASE + 9,
      'T.rows.jsonOptions',
    ]);
    const wide = caught(InvalidValueError, () => read(`${before} fe 00 00 00 00 01 00 00 00 ${after}`));
    expect([wide.problem, wide.schemaPath]).toEqual([
      `jsonOptions ${2 ** 32} has a bit ValueOptions does not name`,
      'T.rows.jsonOptions',
    ]);
  });

  it('refuses to write value_options with a bit MySQL does not know, naming the change', () => {
    const [change] = read(`${before} 00 ${after}`);
    const w = new Writer();
    const e = caught(EncodeError, () => encodeRows(w, [{ ...change!, jsonOptions: 2 }], tables, LAYOUT));
    expect([e.problem, e.schemaPath]).toEqual([
      'jsonOptions 2 has a bit ValueOptions does not name',
      'T.rows[0].jsonOptions',
    ]);
  });

  it('says a partial-JSON bitmap cut short at the rows path', () => {
    expect(caught(LengthError, () => read(`${before} 01`)).schemaPath).toBe('T.rows.partialJson');
  });
});
