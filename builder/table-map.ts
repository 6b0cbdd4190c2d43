/**
 * The TABLE_MAP event a MariaDB 10.11 server writes for a table, with the optional metadata that
 * binlog_row_metadata asks for (Table_map_log_event::init_metadata_fields, sql/log_event_server.cc).
 */
import {
  type TableMapEventInput,
  type TableMapEventOptionalMetadataEntryInput,
  TableMapFlags,
} from '../generated/rows.js';
import type { Text } from '../runtime/core/reader.js';
import { encodeText } from '../runtime/values/charsets.js';
import { coveredColumns } from '../runtime/tables/covers.js';
import type { Table } from '../runtime/tables/table.js';
import type { BuiltColumn } from '../runtime/tables/table-types.js';

/** binlog_row_metadata: what the TABLE_MAP's optional metadata says. */
export type RowMetadata = 'FULL' | 'MINIMAL' | 'NO_LOG';

/** The TABLE_MAP event body for the table under `tableId`. */
export function tableMapEvent(
  t: Table,
  tableId: number,
  rowMetadata: RowMetadata = 'FULL',
): TableMapEventInput & { type: 'TABLE_MAP_EVENT' } {
  return {
    type: 'TABLE_MAP_EVENT',
    tableId,
    flags: TableMapFlags.TM_BIT_LEN_EXACT_F,
    schemaName: t.schema,
    tableName: t.name,
    columnTypes: t.columns.map((c) => c.columnType),
    columnMetadata: t.columns.map((c) => c.metadata),
    nullable: t.columns.map((c) => c.nullable),
    optionalMetadata: optionalMetadata(t, rowMetadata),
  };
}

/** MINIMAL: signedness, character sets and geometry types; FULL adds names, members and the primary key. */
function optionalMetadata(t: Table, level: RowMetadata): TableMapEventOptionalMetadataEntryInput[] {
  if (level === 'NO_LOG') return [];
  const out: TableMapEventOptionalMetadataEntryInput[] = [];
  const cols = t.columns;
  const numeric = cols.filter((c) => c.numeric);
  if (numeric.length) {
    // A bit per numeric column, most significant first, in whole bytes.
    const bits = numeric.map((c) => c.unsigned);
    while (bits.length % 8) bits.push(false);
    out.push({ code: 'SIGNEDNESS', unsigned: bits });
  }
  const character = cols.filter((c) => c.character);
  if (character.length)
    out.push(
      charsetEntry(
        character.map((c) => c.collation!),
        'DEFAULT_CHARSET',
        'COLUMN_CHARSET',
      ),
    );
  const geometry = cols.filter((c) => c.geometryType !== undefined);
  if (geometry.length) out.push({ code: 'GEOMETRY_TYPE', geometryTypes: geometry.map((c) => c.geometryType!) });
  if (level === 'MINIMAL') return out;
  out.push({ code: 'COLUMN_NAME', names: cols.map((c) => c.name) });
  const enumSet = coveredColumns(cols, 'ENUM_AND_SET_DEFAULT_CHARSET', 'mariadb');
  if (enumSet.length)
    out.push(
      charsetEntry(
        enumSet.map((c) => c.collation!),
        'ENUM_AND_SET_DEFAULT_CHARSET',
        'ENUM_AND_SET_COLUMN_CHARSET',
      ),
    );
  const sets = coveredColumns(cols, 'SET_STR_VALUE', 'mariadb');
  if (sets.length) out.push({ code: 'SET_STR_VALUE', sets: sets.map((c) => ({ names: memberTexts(c) })) });
  const enums = coveredColumns(cols, 'ENUM_STR_VALUE', 'mariadb');
  if (enums.length) out.push({ code: 'ENUM_STR_VALUE', enums: enums.map((c) => ({ names: memberTexts(c) })) });
  if (t.primaryKey.length) out.push({ code: 'SIMPLE_PRIMARY_KEY', columns: [...t.primaryKey] });
  return out;
}

/** Member names as the server stores them: in the column's character set. */
function memberTexts(c: BuiltColumn): Text[] {
  return c.members!.map((m) => (c.charset === 'utf8mb4' || c.charset === 'utf8mb3' ? m : encodeText(m, c.charset!)));
}

/**
 * init_charset_field: the most used collation (the lowest id among equals) and the exceptions to it, or
 * every column's collation, whichever is shorter by the server's reckoning (a byte per id and index).
 */
function charsetEntry<
  D extends 'DEFAULT_CHARSET' | 'ENUM_AND_SET_DEFAULT_CHARSET',
  C extends 'COLUMN_CHARSET' | 'ENUM_AND_SET_COLUMN_CHARSET',
>(collations: number[], byDefault: D, perColumn: C): TableMapEventOptionalMetadataEntryInput {
  const counts = new Map<number, number>();
  for (const c of collations) counts.set(c, (counts.get(c) ?? 0) + 1);
  let most = 0;
  let mostCount = 0;
  for (const [c, n] of [...counts].sort((a, b) => a[0] - b[0])) if (n > mostCount) [most, mostCount] = [c, n];
  if (collations.length < 1 + (collations.length - mostCount) * 2)
    return { code: perColumn, collations } as TableMapEventOptionalMetadataEntryInput;
  const exceptions = collations.flatMap((collation, column) => (collation === most ? [] : [{ column, collation }]));
  return { code: byDefault, defaultCollation: most, exceptions } as TableMapEventOptionalMetadataEntryInput;
}
