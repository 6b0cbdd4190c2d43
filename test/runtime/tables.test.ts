import { describe, expect, it } from 'vitest';
import type { TableMapEvent } from '../../generated/rows.js';
import { TableRegistry } from '../../runtime/tables/registry.js';

/** A TABLE_MAP of table id 7 with these column types (no metadata: INT-like types need none). */
function tableMap(columnTypes: TableMapEvent['columnTypes']): TableMapEvent {
  const n = columnTypes.length;
  return {
    tableId: 7,
    flags: 1,
    schemaName: 'db',
    tableName: 't',
    columnCount: n,
    columnTypes,
    columnMetadata: columnTypes.map(() => ({})),
    nullable: new Array<boolean>(n).fill(true),
    optionalMetadata: [],
  };
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

describe('optional metadata, given to the columns each entry covers (rows.yaml covers:)', () => {
  const types: TableMapEvent['columnTypes'] = ['VARCHAR', 'GEOMETRY', 'VECTOR', 'LONG', 'STRING', 'STRING', 'TINY'];
  const metadata = [
    { maxLength: 20 },
    { packLength: 4 },
    { packLength: 4 },
    {},
    { realType: 'ENUM' },
    { realType: 'SET' },
    {},
  ];
  const table = (charsets: TableMapEvent['optionalMetadata']): TableMapEvent => ({
    ...tableMap(types),
    columnMetadata: metadata as TableMapEvent['columnMetadata'],
    optionalMetadata: [
      { code: 'SIGNEDNESS', unsigned: [true, false] },
      ...charsets,
      { code: 'ENUM_AND_SET_DEFAULT_CHARSET', defaultCollation: 33, exceptions: [{ column: 1, collation: 8 }] },
      { code: 'ENUM_STR_VALUE', enums: [{ count: 2, names: ['a', 'b'] }] },
      { code: 'SET_STR_VALUE', sets: [{ count: 1, names: ['x'] }] },
      { code: 'COLUMN_NAME', names: ['v', 'g', 'vec', 'n', 'e', 's', 't'] },
    ],
  });
  const described = (flavor: 'mysql' | 'mariadb', event: TableMapEvent) => {
    const tables = new TableRegistry();
    tables.newFormat(flavor);
    return Object.fromEntries(
      tables.register(event).columns.map((c) => [c.name, [c.unsigned, c.collation, c.charset, c.members]]),
    );
  };

  it('COLUMN_CHARSET counts GEOMETRY as a character column under MariaDB, VECTOR under MySQL', () => {
    const perColumn = table([{ code: 'COLUMN_CHARSET', collations: [45, 63] }]);
    const common = {
      n: [true, undefined, undefined, undefined],
      t: [false, undefined, undefined, undefined],
      e: [undefined, 33, 'utf8mb3', ['a', 'b']],
      s: [undefined, 8, 'latin1', ['x']],
      v: [undefined, 45, 'utf8mb4', undefined],
    };
    expect(described('mariadb', perColumn)).toEqual({
      ...common,
      g: [undefined, 63, 'binary', undefined],
      vec: [undefined, undefined, undefined, undefined],
    });
    expect(described('mysql', perColumn)).toEqual({
      ...common,
      g: [undefined, undefined, undefined, undefined],
      vec: [undefined, 63, 'binary', undefined],
    });
  });

  it("DEFAULT_CHARSET's exceptions count the columns it covers under the table's server", () => {
    const byDefault = table([
      { code: 'DEFAULT_CHARSET', defaultCollation: 8, exceptions: [{ column: 1, collation: 63 }] },
    ]);
    const collations = (flavor: 'mysql' | 'mariadb') =>
      Object.values(described(flavor, byDefault)).map(([, collation]) => collation);
    expect(collations('mariadb')).toEqual([8, 63, undefined, undefined, 33, 8, undefined]);
    expect(collations('mysql')).toEqual([8, undefined, 63, undefined, 33, 8, undefined]);
  });
});
