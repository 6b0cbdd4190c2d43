/**
 * The served tables and their columns as INFORMATION_SCHEMA.COLUMNS gives them, for the CDC clients that ask a
 * source before decoding rows (zongji, on a TABLE_MAP without full metadata): read from the last
 * TABLE_MAP of each table in the served binlogs, whose COLUMN_NAME metadata (binlog_row_metadata=FULL)
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
import type { Column } from '../runtime/values/column.js';
import type { TableMapEvent } from '../generated/rows.js';
import { eventsOf } from './source-frames.js';
import type { ServedLog } from './logs.js';

/** One row of INFORMATION_SCHEMA.COLUMNS, by column name (upper case). */
export type ColumnRow = Record<string, string | null>;

const TABLE_MAPS: ReadonlySet<number> = new Set([EventTypes.TABLE_MAP_EVENT]);

/** A table of the served binlogs, as its last TABLE_MAP (and the table definitions given) tell it. */
export interface ServedTable {
  schema: string;
  table: string;
  /** Its INFORMATION_SCHEMA.COLUMNS rows, or undefined when neither the TABLE_MAP nor a definition names them. */
  columns?: ColumnRow[];
  /**
   * The primary key's column indexes ([] for a table without one), or undefined when the TABLE_MAP does not say: only
   * binlog_row_metadata=FULL logs the key, and a FULL TABLE_MAP without one says the table has none.
   */
  primaryKey?: number[];
}

/** Every table the served binlogs map, each as its last TABLE_MAP tells it, in the order they were first mapped. */
export async function servedTables(logs: ServedLog[], definitions?: TableDefinitions): Promise<ServedTable[]> {
  const tables = new Map<string, ServedTable>();
  for await (const { event, decoder } of eventsOf(logs, TABLE_MAPS, { tableDefinitions: definitions })) {
    if (event.type !== 'TABLE_MAP_EVENT') continue;
    const schema = String(textOf(event.schemaName));
    const table = String(textOf(event.tableName));
    const info = decoder.format.tables.get(Number(event.tableId));
    const named = info && !info.columns.some((c) => c.name === placeholderName(c.index));
    const primaryKey = primaryKeyOf(event.optionalMetadata);
    const columns = named ? info.columns.map((c) => columnRow(c, schema, table, primaryKey)) : undefined;
    tables.set(`${schema}\0${table}`, { schema, table, columns, primaryKey });
  }
  return [...tables.values()];
}

/** The primary key a TABLE_MAP's optional metadata gives, [] when its COLUMN_NAME says it is FULL and gives none. */
function primaryKeyOf(metadata: TableMapEvent['optionalMetadata']): number[] | undefined {
  for (const m of metadata) {
    if (m.code === 'SIMPLE_PRIMARY_KEY') return m.columns;
    if (m.code === 'PRIMARY_KEY_WITH_PREFIX') return m.columns.map((k) => k.column);
  }
  return metadata.some((m) => m.code === 'COLUMN_NAME') ? [] : undefined;
}

/** The table's columns, or why they cannot be told (never mapped, or mapped without names). */
export function tableColumns(tables: ServedTable[], schema: string, table: string): ColumnRow[] | string {
  const found = tables.find((t) => t.schema === schema && t.table === table);
  if (!found) return `no TABLE_MAP of ${schema}.${table} is in the served binlogs`;
  if (!found.columns) {
    return (
      `the served binlogs do not name the columns of ${schema}.${table}: ` +
      `its TABLE_MAP has no COLUMN_NAME metadata (binlog_row_metadata=FULL), and no table definition was given ` +
      `(--schema-file, --table-def)`
    );
  }
  return found.columns;
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

/** A column's row; its COLUMN_KEY PRI in the primary key, '' outside it, NULL where the key is not known. */
function columnRow(c: Column, schema: string, table: string, primaryKey: number[] | undefined): ColumnRow {
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
    COLUMN_KEY: primaryKey === undefined ? null : primaryKey.includes(c.index) ? 'PRI' : '',
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
