/**
 * A CREATE TABLE that MariaDB 10.11 accepts for what a TABLE_MAP says of a table (its columns' types,
 * metadata, signedness, charsets, members), so that the SQL of its rows can be run against it. The
 * types are wide enough for any value of the logged type, not the table's own: every string with a
 * charset is MEDIUMTEXT in it, every other one MEDIUMBLOB; every column is NULL, no key is made.
 */
import { ColumnType } from '../../generated/rows.js';
import type { Text } from '../../runtime/core/reader.js';
import { isText } from '../../runtime/values/charsets.js';
import type { Column, TableInfo } from '../../runtime/values/column.js';

const ident = (s: string) => `\`${s.replace(/`/g, '``')}\``;

const INTEGERS: Record<number, string> = {
  [ColumnType.TINY]: 'tinyint',
  [ColumnType.SHORT]: 'smallint',
  [ColumnType.INT24]: 'mediumint',
  [ColumnType.LONG]: 'int',
  [ColumnType.LONGLONG]: 'bigint',
};

const PLAIN: Record<number, string> = {
  [ColumnType.FLOAT]: 'float',
  [ColumnType.DOUBLE]: 'double',
  [ColumnType.DATE]: 'date',
  [ColumnType.NEWDATE]: 'date',
  [ColumnType.YEAR]: 'year',
  [ColumnType.TIMESTAMP]: 'timestamp',
  [ColumnType.DATETIME]: 'datetime',
  [ColumnType.TIME]: 'time',
  [ColumnType.GEOMETRY]: 'geometry',
  [ColumnType.JSON]: 'longtext',
};

const WITH_FSP: Record<number, string> = {
  [ColumnType.TIMESTAMP2]: 'timestamp',
  [ColumnType.DATETIME2]: 'datetime',
  [ColumnType.TIME2]: 'time',
};

const STRINGS: ReadonlySet<number> = new Set([
  ColumnType.VARCHAR,
  ColumnType.VAR_STRING,
  ColumnType.STRING,
  ColumnType.TINY_BLOB,
  ColumnType.BLOB,
  ColumnType.MEDIUM_BLOB,
  ColumnType.LONG_BLOB,
]);

/** A member name as a quoted string of the column's charset (bytes as latin1, which keeps each byte). */
function member(m: Text): string {
  const s = typeof m === 'string' ? m : Buffer.from(m).toString('latin1');
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The column's type, or why MariaDB 10.11 has none for it. */
export function columnSql(c: Column): { sql: string } | { missing: string } {
  const unsigned = c.unsigned ? ' unsigned' : '';
  const charset = isText(c.charset) ? ` CHARACTER SET ${c.charset}` : '';
  const t = c.realType;
  if (INTEGERS[t]) return { sql: INTEGERS[t] + unsigned };
  if (PLAIN[t]) return { sql: PLAIN[t] };
  if (WITH_FSP[t]) return { sql: `${WITH_FSP[t]}(${Number(c.meta.fsp ?? 0)})` };
  if (t === ColumnType.NEWDECIMAL)
    return { sql: `decimal(${Number(c.meta.precision)},${Number(c.meta.scale)})${unsigned}` };
  if (t === ColumnType.BIT) return { sql: `bit(${Number(c.meta.bits)})` };
  if (t === ColumnType.ENUM || t === ColumnType.SET) {
    if (!c.members) return { missing: `the members of ${t === ColumnType.ENUM ? 'ENUM' : 'SET'} column ${c.name}` };
    return { sql: `${t === ColumnType.ENUM ? 'enum' : 'set'}(${c.members.map(member).join(',')})${charset}` };
  }
  if (STRINGS.has(t)) return { sql: charset ? `mediumtext${charset}` : 'mediumblob' };
  return { missing: `a type for column ${c.name} (column type ${t})` };
}

/** CREATE OR REPLACE TABLE `schema`.`table` for the TABLE_MAP's columns, or what it lacks. */
export function createTableSql(table: TableInfo, schema: string, name: string): { sql: string } | { missing: string } {
  const cols: string[] = [];
  for (const c of table.columns) {
    const type = columnSql(c);
    if ('missing' in type) return type;
    cols.push(`${ident(c.name)} ${type.sql} NULL`);
  }
  return { sql: `CREATE OR REPLACE TABLE ${ident(schema)}.${ident(name)} (${cols.join(', ')})` };
}
