/**
 * A caller's definition of a table (definitions.ts) laid over what its TABLE_MAP says: the names,
 * signedness, character sets and ENUM and SET members that the TABLE_MAP's optional metadata leaves out
 * (binlog_row_metadata=NO_LOG or MINIMAL, every MySQL 5.x file) come from the definition, once its columns
 * are found to be the TABLE_MAP's. A definition of another table than the one logged (another column
 * count, a type the TABLE_MAP does not log for it, other metadata, a name, signedness, charset or member
 * list other than the optional metadata's) is a TableDefinitionError naming the column: it would read
 * other values, never the logged ones.
 */
import { FractionLayouts } from '../../generated/columns.js';
import { ColumnTypeNames } from '../../generated/rows.js';
import type { Flavor } from '../core/tables.js';
import type { Column } from '../values/column.js';
import { covers } from './covers.js';
import type { TableDefinition } from './definitions.js';
import { loggedTypes } from './sqltypes.js';
import { type BuiltColumn, TableDefinitionError } from './table-types.js';

/** The name a column has when no COLUMN_NAME gives it one. */
export const placeholderName = (index: number) => `@${index + 1}`;

/**
 * Gives the TABLE_MAP's columns what the definition says of them and their metadata does not; `typed`:
 * whether the TABLE_MAP carries the columns' type metadata (those of MySQL 5.1.0-5.1.17, with rows v0, do not).
 */
export function applyDefinition(
  columns: Column[],
  def: TableDefinition,
  qualified: string,
  typed: boolean,
  flavor: Flavor,
): void {
  const built = def.table.columns;
  if (built.length !== columns.length) {
    throw new TableDefinitionError(
      `the definition has ${built.length} columns, the TABLE_MAP ${columns.length}`,
      qualified,
    );
  }
  columns.forEach((c, i) => {
    const b = built[i]!;
    const fail = (problem: string): never => {
      throw new TableDefinitionError(problem, qualified, b.name);
    };
    checkType(c, b, typed, flavor, fail);
    giveFraction(c, b);
    giveName(c, b, fail);
    giveSignedness(c, b, fail);
    if (def.charsetStated[i]) giveCharset(c, b, flavor, fail);
    giveMembers(c, b, fail);
  });
}

const typeName = (t: number) => ColumnTypeNames[t] ?? String(t);

/**
 * The definition's type must be one the TABLE_MAP may log for it, with the same metadata where that is the definition's
 * own.
 */
function checkType(c: Column, b: BuiltColumn, typed: boolean, flavor: Flavor, fail: (p: string) => never): void {
  const logged = loggedTypes(b, flavor);
  if (!logged.includes(c.type)) {
    fail(
      `the TABLE_MAP logs ${typeName(c.type)}, the definition says ${b.sqlType} ` +
        `(logged as ${logged.map(typeName).join(' or ')})`,
    );
  }
  // The other types a column may be logged as carry other metadata (or none).
  if (!typed || c.type !== b.columnType) return;
  if (c.realType !== b.realType) fail(`the TABLE_MAP logs ${typeName(c.realType)}, the definition says ${b.sqlType}`);
  for (const [key, value] of Object.entries(b.metadata)) {
    if (key === 'realType' || c.meta[key] === value) continue;
    const charset = b.charset && b.charset !== 'binary' ? ` in ${b.charset}` : '';
    // The key is the dump's, as the TABLE_MAP's columnMetadata shows it.
    fail(
      `the TABLE_MAP's metadata says ${key} ${String(c.meta[key])}, ` +
        `the definition's ${b.sqlType}${charset} gives ${String(value)}`,
    );
  }
}

/**
 * A TIME, DATETIME or TIMESTAMP with a fraction that the TABLE_MAP logs under the type without one is
 * MariaDB's own form (checkType has let only MariaDB's through): its layout, and the definition's fraction
 * digits as the metadata the binlog leaves out. A copy: the TABLE_MAP's own metadata stays as logged.
 */
function giveFraction(c: Column, b: BuiltColumn): void {
  if (!b.fsp || c.type === b.columnType) return;
  Object.assign(c, withFraction(c, b.fsp));
}

/** The type codes MariaDB's own fractional forms are logged under. */
const UNSIZED: ReadonlySet<number> = new Set(Object.keys(FractionLayouts).map(Number));

/**
 * A TIME, DATETIME or TIMESTAMP column that may be MariaDB's own fractional form, its digits said by no definition or
 * hint.
 */
export const unsized = (c: Column) => UNSIZED.has(c.type) && c.meta.fsp === undefined;

/**
 * A TIME, DATETIME or TIMESTAMP column as MariaDB's own form of `fsp` > 0 fraction digits (FractionLayouts),
 * or for 0 the type's own form, its digits said.
 */
export function withFraction(c: Column, fsp: number): Column {
  const layout = fsp ? FractionLayouts[c.type as keyof typeof FractionLayouts] : c.layout;
  return { ...c, layout, meta: { ...c.meta, fsp } };
}

function giveName(c: Column, b: BuiltColumn, fail: (p: string) => never): void {
  if (c.name === placeholderName(c.index)) c.name = b.name;
  // Column names compare without regard to case, as the servers compare them.
  else if (c.name.toLowerCase() !== b.name.toLowerCase()) fail(`the TABLE_MAP names column ${c.index + 1} ${c.name}`);
}

function giveSignedness(c: Column, b: BuiltColumn, fail: (p: string) => never): void {
  // YEAR is unsigned whatever its definition says.
  if (!b.numeric || b.kind === 'year') return;
  if (c.unsigned === undefined) c.unsigned = b.unsigned;
  else if (c.unsigned !== b.unsigned)
    fail(`the TABLE_MAP says ${c.unsigned ? 'UNSIGNED' : 'signed'}, the definition ${b.sqlType}`);
}

function giveCharset(c: Column, b: BuiltColumn, flavor: Flavor, fail: (p: string) => never): void {
  const character =
    covers('COLUMN_CHARSET', c.realType, flavor) || covers('ENUM_AND_SET_COLUMN_CHARSET', c.realType, flavor);
  if (!character || b.collation === undefined) return;
  if (c.charset === undefined) ((c.collation = b.collation), (c.charset = b.charset));
  else if (c.charset !== b.charset) fail(`the TABLE_MAP says character set ${c.charset}, the definition ${b.charset}`);
}

function giveMembers(c: Column, b: BuiltColumn, fail: (p: string) => never): void {
  if (!b.members) return;
  if (!c.members) {
    c.members = b.members;
    return;
  }
  // Members that are not text in their charset stay bytes in the TABLE_MAP: those are not compared.
  const differ =
    c.members.length !== b.members.length || c.members.some((m, i) => typeof m === 'string' && m !== b.members![i]);
  const list = c.members.map((m) => (typeof m === 'string' ? `'${m}'` : '(bytes)')).join(',');
  if (differ) fail(`the TABLE_MAP's members are ${list}, the definition says ${b.sqlType}`);
}
