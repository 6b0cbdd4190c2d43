/**
 * The served tables as the catalogue statements show them: SHOW DATABASES, SHOW [FULL] TABLES, SHOW [FULL] COLUMNS
 * (and DESCRIBE), SHOW INDEX, SHOW CREATE TABLE and INFORMATION_SCHEMA's SCHEMATA, TABLES and COLUMNS. CDC clients
 * read them before they stream (Debezium and canal SHOW CREATE TABLE, go-mysql's canal SHOW FULL COLUMNS and SHOW
 * INDEX, maxwell INFORMATION_SCHEMA), and a binlog server knows only what the TABLE_MAPs (and the table definitions
 * it was given) say: a table's name and its columns' names and types, its primary key under binlog_row_metadata=FULL.
 * What they do not say (defaults, other indexes, the engine) is not made up: it is NULL, or left out of the DDL, and a
 * statement that cannot be answered without it (the key of a table whose TABLE_MAP does not log it) is refused.
 */
import type { ColumnRow, ServedTable } from './source-columns.js';

/** A result set: column names and rows of text (null: NULL); queries.ts's ResultSet. */
export interface Rows {
  columns: string[];
  rows: (string | null)[][];
}

/** The schemas that the served binlogs map tables of, in name order. */
export function schemaNames(tables: ServedTable[]): string[] {
  return [...new Set(tables.map((t) => t.schema))].sort();
}

/** INFORMATION_SCHEMA.SCHEMATA's rows: the catalogue and the name (the binlogs do not say a schema's charset). */
export function schemataRows(tables: ServedTable[]): ColumnRow[] {
  return schemaNames(tables).map((name) => ({ CATALOG_NAME: 'def', SCHEMA_NAME: name }));
}

/** INFORMATION_SCHEMA.TABLES's rows: each a base table (a TABLE_MAP maps nothing else). */
export function tablesRows(tables: ServedTable[]): ColumnRow[] {
  return tables.map((t) => ({
    TABLE_CATALOG: 'def',
    TABLE_SCHEMA: t.schema,
    TABLE_NAME: t.table,
    TABLE_TYPE: 'BASE TABLE',
  }));
}

/** INFORMATION_SCHEMA.COLUMNS's rows of every table whose columns are named. */
export function columnsRows(tables: ServedTable[]): ColumnRow[] {
  return tables.flatMap((t) => t.columns ?? []);
}

/** SHOW [FULL] TABLES [FROM db]: the tables of a schema, with their type when FULL. */
export function showTables(tables: ServedTable[], schema: string, full: boolean): Rows {
  const names = tables
    .filter((t) => t.schema === schema)
    .map((t) => t.table)
    .sort();
  const columns = [`Tables_in_${schema}`, ...(full ? ['Table_type'] : [])];
  return { columns, rows: names.map((n) => (full ? [n, 'BASE TABLE'] : [n])) };
}

/**
 * SHOW [FULL] COLUMNS FROM t (DESCRIBE t): Field, Type, Null, Key, Default, Extra, and with FULL Collation, Privileges
 * and Comment. The binlogs do not say a column's default or its extras, which are NULL and ''.
 */
export function showColumns(columns: ColumnRow[], full: boolean): Rows {
  const names = full
    ? ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Extra', 'Privileges', 'Comment']
    : ['Field', 'Type', 'Null', 'Key', 'Default', 'Extra'];
  const rows = columns.map((c) => {
    const base = { Field: c.COLUMN_NAME!, Type: c.COLUMN_TYPE!, Null: c.IS_NULLABLE!, Key: c.COLUMN_KEY ?? null };
    const row: Record<string, string | null> = { ...base, Collation: c.COLLATION_NAME ?? null, Default: null };
    Object.assign(row, { Extra: '', Privileges: 'select', Comment: c.COLUMN_COMMENT ?? '' });
    return names.map((n) => row[n] ?? null);
  });
  return { columns: names, rows };
}

const INDEX_COLUMNS = [
  'Table',
  'Non_unique',
  'Key_name',
  'Seq_in_index',
  'Column_name',
  'Collation',
  'Cardinality',
  'Sub_part',
  'Packed',
  'Null',
  'Index_type',
  'Comment',
  'Index_comment',
];

/** SHOW INDEX FROM t: the primary key's columns, the one index the binlogs log; undefined when they do not say it. */
export function showIndex(t: ServedTable): Rows | undefined {
  if (t.primaryKey === undefined || t.columns === undefined) return undefined;
  const rows = t.primaryKey.map((index, seq) => {
    const name = t.columns![index]?.COLUMN_NAME ?? null;
    return [t.table, '0', 'PRIMARY', String(seq + 1), name, 'A', null, null, null, '', 'BTREE', '', ''];
  });
  return { columns: INDEX_COLUMNS, rows };
}

/**
 * SHOW CREATE TABLE t: the columns as the binlogs type them, NOT NULL where they say so, and the primary key when they
 * log it; no defaults, other indexes, engine or charset, which they do not say.
 */
export function showCreateTable(t: ServedTable, columns: ColumnRow[]): Rows {
  const lines = columns.map((c) => {
    const collate = c.COLLATION_NAME ? ` COLLATE ${c.COLLATION_NAME}` : '';
    return `  ${quoteName(c.COLUMN_NAME!)} ${c.COLUMN_TYPE}${collate}${c.IS_NULLABLE === 'NO' ? ' NOT NULL' : ''}`;
  });
  if (t.primaryKey?.length) {
    const key = t.primaryKey.map((i) => quoteName(columns[i]?.COLUMN_NAME ?? `@${i + 1}`)).join(',');
    lines.push(`  PRIMARY KEY (${key})`);
  }
  return {
    columns: ['Table', 'Create Table'],
    rows: [[t.table, `CREATE TABLE ${quoteName(t.table)} (\n${lines.join(',\n')}\n)`]],
  };
}

/** A name as SHOW CREATE TABLE quotes it: in backquotes, a backquote doubled. */
function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
