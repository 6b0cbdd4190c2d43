/** CREATE TABLE for a described table, as the builder writes it in a QUERY event. */
import { BINARY_COLLATION, characterSet, collationName } from '../runtime/tables/sqltypes.js';
import { describeTable, Table } from '../runtime/tables/table.js';
import { type BuiltColumn, type TableDef, TableDefinitionError } from '../runtime/tables/table-types.js';

/** A name as SQL quotes it. */
export const ident = (s: string) => `\`${s.replace(/`/g, '``')}\``;

/** CREATE TABLE `schema`.`name` (...) ENGINE=...: a definition MariaDB turns back into the same columns. */
export function createTableSql(table: Table | TableDef): string {
  const t = table instanceof Table ? table : describeTable(table);
  const cols = t.columns.map((c) => `  ${ident(c.name)} ${columnType(t, c)} ${c.nullable ? 'NULL' : 'NOT NULL'}`);
  if (t.primaryKey.length)
    cols.push(`  PRIMARY KEY (${t.primaryKey.map((i) => ident(t.columns[i]!.name)).join(', ')})`);
  return `CREATE TABLE ${ident(t.schema)}.${ident(t.name)} (\n${cols.join(',\n')}\n) ENGINE=${t.engine}`;
}

/** A column's type, every character column with its character set and collation (JSON's are fixed). */
function columnType(t: Table, c: BuiltColumn): string {
  if (c.collation === undefined || c.collation === BINARY_COLLATION || c.json) return c.sqlType;
  const collation = collationName(c.collation);
  const cs = characterSet(c.charset!)!;
  if (collation === undefined && c.collation !== cs.defaultCollation) {
    throw new TableDefinitionError(
      `collation ${c.collation} has no known name to write in CREATE TABLE`,
      t.qualified,
      c.name,
    );
  }
  return `${c.sqlType} CHARACTER SET ${cs.name}${collation !== undefined ? ` COLLATE ${collation}` : ''}`;
}
