/**
 * The table-shaping statements of a binlog's QUERY events, read into what they change: CREATE TABLE (with
 * its column list, or LIKE another table), ALTER TABLE's clauses, RENAME TABLE, DROP TABLE, TRUNCATE and
 * CREATE / ALTER / DROP DATABASE. The grammar is the MySQL and MariaDB manuals'; a column definition is read
 * by the same code as a --schema-file's CREATE TABLE (definitions.ts), so that both agree on every type.
 * Comments are left out and the servers' executable comments (`/*!50100 … *\/`, `/*M!100301 … *\/`) read as
 * SQL, as schema-file.ts splits a script. A statement that shapes tables in a way not read here is a
 * DdlError naming the tables it was found to touch, which the history then marks unknown.
 */
import type { ColumnDef } from './table-types.js';
import {
  closing,
  columnDef,
  isWord,
  columnList,
  keyColumns,
  splitList,
  tableOptions,
  tokens,
  unquote,
} from './definitions.js';
import type { TableDefinitionInput } from './definitions.js';
import { statements } from './schema-file.js';

/** A table's name as a statement gives it: its database only when the statement names one. */
export interface TableName {
  schema?: string;
  table: string;
}

/** Where ADD, MODIFY and CHANGE put a column: first, or after the named one (else where it was, or last). */
export type Place = 'first' | { after: string } | undefined;

/** One clause of an ALTER TABLE, as it changes the row shape (the clauses that do not are left out). */
export type AlterClause =
  | { op: 'add'; column: ColumnDef; place: Place; ifNotExists: boolean; primaryKey: boolean }
  | { op: 'drop'; column: string; ifExists: boolean }
  | { op: 'modify'; from: string; column: ColumnDef; place: Place; ifExists: boolean; primaryKey: boolean }
  | { op: 'rename-column'; from: string; to: string }
  | { op: 'rename'; to: TableName }
  | { op: 'convert'; charset: string; collation?: string }
  | { op: 'options'; options: Partial<TableDefinitionInput> }
  | { op: 'primary-key'; columns: string[] }
  | { op: 'drop-primary-key' };

/** What a statement does to the tables' shapes. */
export type DdlChange =
  | { kind: 'create'; table: TableName; definition: TableDefinitionInput; ifNotExists: boolean; temporary: boolean }
  | { kind: 'like'; table: TableName; source: TableName; ifNotExists: boolean; temporary: boolean }
  | { kind: 'alter'; table: TableName; clauses: AlterClause[]; ifExists: boolean }
  | { kind: 'rename'; pairs: [TableName, TableName][] }
  | { kind: 'drop'; tables: TableName[]; temporary: boolean }
  | { kind: 'truncate'; table: TableName }
  | { kind: 'database'; action: 'create' | 'alter' | 'drop'; name?: string; charset?: string; collation?: string };

/** A table-shaping statement that cannot be read: `tables` are those it names, as far as they were found. */
export class DdlError extends Error {
  constructor(
    readonly problem: string,
    readonly tables: TableName[],
  ) {
    super(problem);
  }
}

/** The statement's tokens, comments left out and executable comments as SQL. */
function statementTokens(sql: string, fail: (p: string) => never): string[] {
  return tokens(statements(sql).join(' '), fail);
}

/** The first words of the statements that shape tables, before the table or database name. */
const HEAD = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*(CREATE|ALTER|DROP|RENAME|TRUNCATE)\b/i;

/**
 * What a statement changes of the tables' shapes; undefined for one that changes none (DML, a view, a
 * user, an index by CREATE INDEX …). Throws DdlError for a table-shaping statement not read.
 */
export function readDdl(sql: string): DdlChange | undefined {
  if (!HEAD.test(sql) && !/^\s*\/\*/.test(sql)) return undefined;
  const found: TableName[] = [];
  const fail = (problem: string): never => {
    throw new DdlError(problem, found);
  };
  const t = new Cursor(statementTokens(sql, fail), fail, found);
  if (t.take('CREATE')) {
    const orReplace = t.take('OR', 'REPLACE');
    const temporary = t.take('TEMPORARY');
    if (t.take('TABLE')) return create(t, orReplace, temporary);
    if (t.take('DATABASE') || t.take('SCHEMA')) return database(t, 'create');
    return undefined;
  }
  if (t.take('ALTER')) {
    while (t.take('ONLINE') || t.take('IGNORE'));
    if (t.take('TABLE')) return alter(t);
    if (t.take('DATABASE') || t.take('SCHEMA')) return database(t, 'alter');
    return undefined;
  }
  if (t.take('DROP')) {
    const temporary = t.take('TEMPORARY');
    if (t.take('TABLE') || t.take('TABLES')) return drop(t, temporary);
    if (t.take('DATABASE') || t.take('SCHEMA')) return database(t, 'drop');
    return undefined;
  }
  if (t.take('RENAME')) return t.take('TABLE') || t.take('TABLES') ? rename(t) : undefined;
  if (t.take('TRUNCATE')) {
    t.take('TABLE');
    return { kind: 'truncate', table: t.name() };
  }
  return undefined;
}

/** Tokens read in turn. */
class Cursor {
  at = 0;
  constructor(
    readonly toks: string[],
    readonly fail: (p: string) => never,
    private readonly found: TableName[],
  ) {}

  peek(ahead = 0): string | undefined {
    return this.toks[this.at + ahead];
  }

  /** Takes the words if they come next (all of them, in order). */
  take(...words: string[]): boolean {
    if (!words.every((w, i) => isWord(this.peek(i), w))) return false;
    this.at += words.length;
    return true;
  }

  /** `name` or `schema`.`name`, remembered among the tables the statement names. */
  name(): TableName {
    const first = this.toks[this.at++];
    if (first === undefined || !/^[`\w$]/.test(first)) return this.fail('expected a table name');
    let name: TableName = { table: unquote(first) };
    if (this.peek() === '.') {
      const second = this.toks[this.at + 1];
      if (second === undefined) return this.fail('expected a table name after the database');
      this.at += 2;
      name = { schema: unquote(first), table: unquote(second) };
    }
    this.found.push(name);
    return name;
  }

  done(): boolean {
    return this.at >= this.toks.length;
  }

  rest(): string[] {
    return this.toks.slice(this.at);
  }
}

function create(t: Cursor, orReplace: boolean, temporary: boolean): DdlChange {
  const ifNotExists = t.take('IF', 'NOT', 'EXISTS') && !orReplace;
  const table = t.name();
  const paren = t.peek() === '(';
  if (t.take('LIKE') || (paren && isWord(t.peek(1), 'LIKE') && (t.at += 2))) {
    return { kind: 'like', table, source: t.name(), ifNotExists, temporary };
  }
  if (!paren) return t.fail("CREATE TABLE … SELECT without a column list: its columns are the query's");
  const close = closing(t.toks, t.at);
  if (close === t.toks.length) t.fail("the column list has no closing ')'");
  const options = t.toks.slice(close + 1);
  // Under statement format the SELECT's columns come after the listed ones, which rows events never see alone.
  if (options.some((x) => isWord(x, 'SELECT'))) t.fail('CREATE TABLE … SELECT: the query adds its columns');
  const periods = t.toks.some((x) => isWord(x, 'PERIOD'));
  if (systemVersioned(options) && !periods) t.fail('WITH SYSTEM VERSIONING adds hidden columns');
  const definition = columnList(t.toks.slice(t.at + 1, close), t.fail);
  Object.assign(definition, tableOptions(options, t.fail));
  return { kind: 'create', table, definition, ifNotExists, temporary };
}

const systemVersioned = (toks: string[]) =>
  toks.some((x, i) => isWord(x, 'SYSTEM') && isWord(toks[i + 1], 'VERSIONING') && isWord(toks[i - 1], 'WITH', 'ADD'));

function alter(t: Cursor): DdlChange {
  const ifExists = t.take('IF', 'EXISTS');
  const table = t.name();
  if (t.take('WAIT')) t.at++;
  else t.take('NOWAIT');
  const clauses: AlterClause[] = [];
  if (t.done()) return { kind: 'alter', table, clauses, ifExists };
  for (const item of splitList(t.rest(), t.fail)) clauses.push(...alterClause(item, t.fail));
  return { kind: 'alter', table, clauses, ifExists };
}

/** The words after ADD or DROP that name something other than a column. */
const NOT_COLUMN = [
  'INDEX',
  'KEY',
  'UNIQUE',
  'FULLTEXT',
  'SPATIAL',
  'VECTOR',
  'FOREIGN',
  'CONSTRAINT',
  'CHECK',
  'PARTITION',
  'PERIOD',
];

/** One clause of ALTER TABLE (a table option list may hold several options). */
function alterClause(item: string[], fail: (p: string) => never): AlterClause[] {
  const word = (i: number, ...w: string[]) => isWord(item[i], ...w);
  let i = 1;
  const skip = (...w: string[]) => (word(i, ...w) ? (i++, true) : false);
  const ifThen = (...w: string[]) => (w.every((x, k) => word(i + k, x)) ? ((i += w.length), true) : false);
  if (word(0, 'ADD')) {
    if (word(1, 'SYSTEM') && word(2, 'VERSIONING')) return fail('ADD SYSTEM VERSIONING adds hidden columns');
    const primary = item.some((x, k) => isWord(x, 'PRIMARY') && isWord(item[k + 1], 'KEY'));
    if (word(1, 'PRIMARY') || (word(1, 'CONSTRAINT') && primary)) {
      const at = item.findIndex((x) => isWord(x, 'KEY'));
      return [{ op: 'primary-key', columns: keyColumns(item.slice(at + 1)) }];
    }
    if (word(1, ...NOT_COLUMN)) return [];
    skip('COLUMN');
    const ifNotExists = ifThen('IF', 'NOT', 'EXISTS');
    if (item[i] === '(') {
      const close = closing(item, i);
      return splitList(item.slice(i + 1, close), fail).map((c) => added(c, 'last', ifNotExists, fail));
    }
    return [added(item.slice(i), 'placed', ifNotExists, fail)];
  }
  if (word(0, 'DROP')) {
    if (word(1, 'PRIMARY')) return [{ op: 'drop-primary-key' }];
    if (word(1, 'SYSTEM') && word(2, 'VERSIONING')) return fail('DROP SYSTEM VERSIONING removes hidden columns');
    if (word(1, ...NOT_COLUMN)) return [];
    skip('COLUMN');
    const ifExists = ifThen('IF', 'EXISTS');
    const column = item[i];
    return column === undefined ? fail('DROP names no column') : [{ op: 'drop', column: unquote(column), ifExists }];
  }
  if (word(0, 'MODIFY', 'CHANGE')) {
    skip('COLUMN');
    const ifExists = ifThen('IF', 'EXISTS');
    const from = item[i];
    if (from === undefined) return fail(`${item[0]!.toUpperCase()} names no column`);
    // CHANGE gives the column's new name before its definition; MODIFY keeps the name.
    const def = word(0, 'CHANGE') ? item.slice(i + 1) : item.slice(i);
    const { column, place, primaryKey } = placedColumn(def, fail);
    return [{ op: 'modify', from: unquote(from), column, place, ifExists, primaryKey }];
  }
  if (word(0, 'RENAME')) {
    if (word(1, 'COLUMN')) return [{ op: 'rename-column', from: unquote(item[2] ?? ''), to: unquote(item[4] ?? '') }];
    if (word(1, 'INDEX', 'KEY')) return [];
    skip('TO', 'AS');
    const name = item
      .slice(i)
      .filter((x) => x !== '.')
      .map(unquote);
    const table = name.at(-1) ?? fail('RENAME names no table');
    const to = name.length === 2 ? { schema: name[0], table } : { table };
    return [{ op: 'rename', to }];
  }
  if (word(0, 'CONVERT') && word(1, 'TO')) {
    const at = word(2, 'CHARACTER') ? 4 : 3;
    const options = tableOptions(['CHARSET', ...item.slice(at)], fail);
    const charset = options.charset ?? fail('CONVERT TO names no character set');
    return [
      { op: 'convert', charset, collation: typeof options.collation === 'string' ? options.collation : undefined },
    ];
  }
  return tableOptionsClause(item, fail);
}

/** A column added: its definition, where it goes, and whether it is the primary key. */
function added(
  item: string[],
  where: 'last' | 'placed',
  ifNotExists: boolean,
  fail: (p: string) => never,
): AlterClause {
  const read = placedColumn(item, fail);
  const { column, primaryKey } = read;
  const place = where === 'placed' ? read.place : undefined;
  return { op: 'add', column, place, ifNotExists, primaryKey };
}

/** A column definition, where it goes, and whether it says PRIMARY KEY. */
interface PlacedColumn {
  column: ColumnDef;
  place: Place;
  primaryKey: boolean;
}

/** A column definition followed by FIRST or AFTER name. */
function placedColumn(item: string[], fail: (p: string) => never): PlacedColumn {
  let place: Place;
  let def = item;
  if (isWord(item.at(-1), 'FIRST')) ((place = 'first'), (def = item.slice(0, -1)));
  else if (isWord(item.at(-2), 'AFTER')) ((place = { after: unquote(item.at(-1)!) }), (def = item.slice(0, -2)));
  const [column, primaryKey] = columnDef(def, fail);
  return { column, place, primaryKey };
}

/**
 * Table options (ENGINE, ROW_FORMAT, [DEFAULT] CHARACTER SET, COLLATE): what they say of the layout. Any
 * other clause (ALGORITHM, LOCK, FORCE, ORDER BY, partitioning, ALTER COLUMN … DEFAULT, keys) changes no
 * row shape, and gives nothing.
 */
function tableOptionsClause(item: string[], fail: (p: string) => never): AlterClause[] {
  const options = tableOptions(item, fail);
  return Object.keys(options).length ? [{ op: 'options', options }] : [];
}

function rename(t: Cursor): DdlChange {
  t.take('IF', 'EXISTS');
  const pairs: [TableName, TableName][] = [];
  do {
    const from = t.name();
    if (!t.take('TO')) t.fail('RENAME TABLE without TO');
    pairs.push([from, t.name()]);
  } while (t.peek() === ',' && ++t.at);
  return { kind: 'rename', pairs };
}

function drop(t: Cursor, temporary: boolean): DdlChange {
  t.take('IF', 'EXISTS');
  const tables: TableName[] = [];
  do tables.push(t.name());
  while (t.peek() === ',' && ++t.at);
  return { kind: 'drop', tables, temporary };
}

/** The words that begin ALTER DATABASE's options, when it names no database. */
const DATABASE_OPTIONS = ['DEFAULT', 'CHARACTER', 'CHARSET', 'COLLATE', 'COMMENT', 'UPGRADE', 'READ', 'ENCRYPTION'];

function database(t: Cursor, action: 'create' | 'alter' | 'drop'): DdlChange {
  t.take('IF', 'NOT', 'EXISTS');
  t.take('IF', 'EXISTS');
  const next = t.peek();
  // ALTER DATABASE may leave the name out: the default database's.
  const named = next !== undefined && !isWord(next, ...DATABASE_OPTIONS);
  const name = named ? unquote(t.toks[t.at++]!) : undefined;
  const options = tableOptions(t.rest(), t.fail);
  const collation = typeof options.collation === 'string' ? options.collation : undefined;
  return { kind: 'database', action, name, charset: options.charset, collation };
}
