/**
 * A served table's columns as INFORMATION_SCHEMA.COLUMNS gives them, for the CDC clients that ask a
 * source before decoding rows (zongji, on a TABLE_MAP without full metadata): read from the last
 * TABLE_MAP of the table in the served binlogs, whose COLUMN_NAME metadata (binlog_row_metadata=FULL)
 * names the columns, or from the table definitions the server was given. Each column's SQL type is the
 * one schemas/sqltypes.yaml says logs its TABLE_MAP type.
 */
import { EventTypes } from '../generated/events.js';
import { ColumnTypeNames } from '../generated/rows.js';
import { SqlTypeNames, SqlTypes } from '../generated/sqltypes.js';
import { textOf } from '../runtime/io/transactions.js';
import { placeholderName } from '../runtime/tables/defined-columns.js';
import type { TableDefinitions } from '../runtime/tables/definitions.js';
import { BINARY_COLLATION, collationName } from '../runtime/tables/sqltypes.js';
import type { Column, TableInfo } from '../runtime/values/column.js';
import { eventsOf } from './source-frames.js';
import type { ServedLog } from './logs.js';

/** One row of INFORMATION_SCHEMA.COLUMNS, by column name (upper case). */
export type ColumnRow = Record<string, string | null>;

const TABLE_MAPS: ReadonlySet<number> = new Set([EventTypes.TABLE_MAP_EVENT]);

/** The table's columns, or why they cannot be told (never mapped, or mapped without names). */
export async function tableColumns(
  logs: ServedLog[],
  schema: string,
  table: string,
  definitions?: TableDefinitions,
): Promise<ColumnRow[] | string> {
  let last: TableInfo | undefined;
  for await (const { event, decoder } of eventsOf(logs, TABLE_MAPS, { tableDefinitions: definitions })) {
    if (event.type !== 'TABLE_MAP_EVENT' || textOf(event.schemaName) !== schema || textOf(event.tableName) !== table)
      continue;
    last = decoder.format.tables.get(Number(event.tableId));
  }
  if (!last) return `no TABLE_MAP of ${schema}.${table} is in the served binlogs`;
  if (last.columns.some((c) => c.name === placeholderName(c.index))) {
    return `the served binlogs do not name the columns of ${schema}.${table}: its TABLE_MAP has no COLUMN_NAME metadata (binlog_row_metadata=FULL), and no table definition was given (--schema-file, --table-def)`;
  }
  return last.columns.map((c) => columnRow(c, schema, table));
}

/**
 * What binlog_row_metadata the served TABLE_MAPs show: FULL when one carries column names, MINIMAL when
 * they carry other optional metadata only, NO_LOG when none carries any (and when there is none to see).
 */
export async function rowMetadataOf(logs: ServedLog[]): Promise<'FULL' | 'MINIMAL' | 'NO_LOG'> {
  let minimal = false;
  for await (const { event } of eventsOf(logs, TABLE_MAPS)) {
    if (event.type !== 'TABLE_MAP_EVENT') continue;
    if (event.optionalMetadata.some((m) => m.code === 'COLUMN_NAME')) return 'FULL';
    minimal ||= event.optionalMetadata.length > 0;
  }
  return minimal ? 'MINIMAL' : 'NO_LOG';
}

function columnRow(c: Column, schema: string, table: string): ColumnRow {
  const sqlType = sqlTypeOf(c);
  const members = c.members?.map((m) => `'${String(textOf(m)).replace(/'/g, "''")}'`).join(',');
  const columnType = members !== undefined ? `${sqlType}(${members})` : c.unsigned ? `${sqlType} unsigned` : sqlType;
  const text = c.collation !== undefined && c.collation !== BINARY_COLLATION;
  return {
    TABLE_SCHEMA: schema,
    TABLE_NAME: table,
    COLUMN_NAME: c.name,
    ORDINAL_POSITION: String(c.index + 1),
    IS_NULLABLE: c.nullable ? 'YES' : 'NO',
    DATA_TYPE: sqlType,
    COLUMN_TYPE: columnType,
    CHARACTER_SET_NAME: text ? (c.charset ?? null) : null,
    COLLATION_NAME: text ? (collationName(c.collation!) ?? null) : null,
    COLUMN_COMMENT: '',
  };
}

/**
 * The SQL type that logs the column as it is logged: the first of sqltypes.yaml's with its TABLE_MAP type, real type,
 * binary-ness and length prefix.
 */
function sqlTypeOf(c: Column): string {
  const logged = ColumnTypeNames[c.type];
  const real = ColumnTypeNames[c.realType];
  const binary = c.collation === BINARY_COLLATION;
  const packLength = c.meta.packLength;
  for (const [code, t] of Object.entries(SqlTypes) as [string, Record<string, unknown>][]) {
    // Aliases, and the types logged as another's (JSON, INET6…, the geometry subtypes), are not told from it.
    if (
      t.alias !== undefined ||
      t.fixedLength !== undefined ||
      t.json ||
      (t.geometryType !== undefined && t.geometryType !== 'GEOMETRY')
    )
      continue;
    if (t.columnType !== logged && t.before56 !== logged && t.compressed !== logged) continue;
    if (t.realType !== undefined && t.realType !== real) continue;
    if (c.collation !== undefined && Boolean(t.binary) !== binary) continue;
    if (t.kind === 'blob' && packLength !== undefined && t.packLength !== packLength) continue;
    return SqlTypeNames[Number(code)]!;
  }
  return (ColumnTypeNames[c.type] ?? String(c.type)).toLowerCase();
}
