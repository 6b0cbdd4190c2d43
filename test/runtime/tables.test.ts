import { describe, expect, it } from 'vitest';
import type { TableMapEvent } from '../../generated/rows.js';
import { TableRegistry } from '../../runtime/tables/registry.js';

/** A TABLE_MAP of table id 7 with these column types (no metadata: INT-like types need none). */
function tableMap(columnTypes: TableMapEvent['columnTypes']): TableMapEvent {
  const n = columnTypes.length;
  return { tableId: 7, flags: 1, schemaName: 'db', tableName: 't', columnCount: n, columnTypes, columnMetadata: columnTypes.map(() => ({})), nullable: new Array<boolean>(n).fill(true), optionalMetadata: [] };
}

describe('TableRegistry', () => {
  const body = Uint8Array.of(7, 0, 0, 0, 0, 0, 1, 0, 2, 0x64, 0x62);

  it('keeps the table of a TABLE_MAP logged again with the same bytes (its cached layouts with it)', () => {
    const tables = new TableRegistry();
    const first = tables.register(tableMap(['LONG']), body);
    expect(tables.register(tableMap(['LONG']), body.slice())).toBe(first);
    expect(tables.get(7)).toBe(first);
  });

  it('describes the table again when the bytes differ, when they are not known, or after an FDE', () => {
    const tables = new TableRegistry();
    const first = tables.register(tableMap(['LONG']), body);
    const other = Uint8Array.of(...body, 3);
    const second = tables.register(tableMap(['LONG', 'TINY']), other);
    expect(second).not.toBe(first);
    expect(second.columns.map((c) => c.type)).toEqual([3, 1]);
    expect(tables.register(tableMap(['LONG', 'TINY']))).not.toBe(second);
    const third = tables.register(tableMap(['LONG']), body);
    // Even of the same flavor: its post-header lengths may read the same bytes otherwise.
    tables.newFormat('mysql');
    const fourth = tables.register(tableMap(['LONG']), body);
    expect(fourth).not.toBe(third);
    tables.newFormat('mariadb');
    expect(tables.register(tableMap(['LONG']), body)).not.toBe(fourth);
  });

  it('compares with its own copy of the bytes, not the caller’s buffer (which a stream may use again)', () => {
    const tables = new TableRegistry();
    const bytes = body.slice();
    const first = tables.register(tableMap(['LONG']), bytes);
    bytes[6] = 2;
    expect(tables.register(tableMap(['LONG', 'LONG']), bytes)).not.toBe(first);
  });
});
