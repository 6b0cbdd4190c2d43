/**
 * Table definitions the caller gives for what a binlog does not say: rows v0 (runtime/rows/v0.ts) cannot
 * be split into values without the table's columns, and where the record keeps its null bits depends on
 * how the table stores its rows. A definition is a CREATE TABLE statement (or just its column list) or
 * an object of column definitions (ColumnDef); runtime/tables/table.ts's describeTable turns its SQL types
 * into binlog types and metadata.
 */
import { BitFieldEngine } from '../../generated/sqltypes.js';
import { collationId } from './sqltypes.js';
import { describeTable, type Table } from './table.js';
import { type ColumnDef, TableDefinitionError } from './table-types.js';

/** A table as the caller describes it. */
export interface TableDefinitionInput {
  columns: ColumnDef[];
  /** Column name(s) of the primary key (its columns are NOT NULL). */
  primaryKey?: string | string[];
  /** Default character set of its character columns (default latin1, MySQL 5.1's). */
  charset?: string;
  collation?: string | number;
  /**
   * Storage engine (default MyISAM, MySQL 5.1's): MyISAM, MERGE, ARCHIVE and NDB keep BIT columns' odd bits in the null
   * bytes.
   */
  engine?: string;
  /** ROW_FORMAT: DYNAMIC packs the record, FIXED keeps VARCHAR columns from packing it. */
  rowFormat?: string;
  /**
   * Whether the record is packed (HA_OPTION_PACK_RECORD), when it is not what the columns and row format
   * say (a table ALTERed from another layout): a record that is not packed has a reserved first null bit.
   */
  packRecord?: boolean;
}

/** Per 'schema.table': its CREATE TABLE statement, its column list ('a int, b char(50)'), or an object. */
export type TableDefinitions = Record<string, string | TableDefinitionInput>;

/** A table definition, resolved: its columns, and the storage facts that place its null bits. */
export interface TableDefinition {
  table: Table;
  /** HA_OPTION_PACK_RECORD: when not set, the record's first null bit is reserved (the deleted mark). */
  packRecord: boolean;
  /** HA_CAN_BIT_FIELD: a BIT(n) column keeps its n % 8 odd bits in the null bytes, after its null bit. */
  bitsInNullBytes: boolean;
  /**
   * Per column, whether the definition says its character set (its own, its table's, or its type's:
   * binary strings, JSON): rows v1/v2 take no default (5.1's latin1 is only rows v0's).
   */
  charsetStated: readonly boolean[];
}

/** The definitions by 'schema.table' (throws TableDefinitionError for one that cannot be described). */
export function resolveTableDefinitions(defs: TableDefinitions | undefined): Map<string, TableDefinition> {
  const out = new Map<string, TableDefinition>();
  for (const [qualified, def] of Object.entries(defs ?? {})) {
    const dot = qualified.indexOf('.');
    if (dot <= 0 || dot === qualified.length - 1)
      throw new TableDefinitionError("a table definition's key is 'schema.table'", qualified);
    const input = typeof def === 'string' ? parseTableSql(def, qualified) : def;
    out.set(qualified, resolve(qualified.slice(0, dot), qualified.slice(dot + 1), input));
  }
  return out;
}

function resolve(schema: string, name: string, def: TableDefinitionInput): TableDefinition {
  const engine = def.engine ?? 'MyISAM';
  const table = describeTable({
    schema,
    name,
    columns: def.columns,
    primaryKey: def.primaryKey,
    charset: def.collation === undefined ? (def.charset ?? 'latin1') : def.charset,
    collation: def.collation,
    engine,
  });
  const rowFormat = def.rowFormat?.toUpperCase();
  // sql_table.cc (mysql_prepare_create_table, mysql_create_table_no_lock): BLOB, TEXT and GEOMETRY
  // columns pack the record, VARCHAR ones unless ROW_FORMAT=FIXED, and ROW_FORMAT=DYNAMIC does.
  const packs = table.columns.some(
    (c) => c.kind === 'blob' || c.kind === 'geometry' || (c.kind === 'varchar' && rowFormat !== 'FIXED'),
  );
  const tableCharset = def.charset !== undefined || def.collation !== undefined;
  return {
    table,
    packRecord: def.packRecord ?? (packs || rowFormat === 'DYNAMIC'),
    bitsInNullBytes: Object.hasOwn(BitFieldEngine, engine.toLowerCase()),
    charsetStated: table.columns.map((b) => tableCharset || b.ownCharset === true),
  };
}

// ---- SQL ----------------------------------------------------------------------------------------------

/** A quoted string, a balanced parenthesized group, a `quoted` name, a word, or one other character. */
const TOKEN = /\s*('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`(?:[^`]|``)*`|[A-Za-z0-9_$]+|\S)/y;

export function tokens(sql: string, fail: (p: string) => never): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < sql.length && !/^\s*$/.test(sql.slice(TOKEN.lastIndex))) {
    const m = TOKEN.exec(sql);
    if (!m) return fail(`cannot read '${sql.slice(TOKEN.lastIndex, TOKEN.lastIndex + 20)}'`);
    out.push(m[1]!);
  }
  return out;
}

/** The tokens split at top-level commas, each part's parentheses matched. */
export function splitList(toks: string[], fail: (p: string) => never): string[][] {
  const parts: string[][] = [[]];
  let depth = 0;
  for (const t of toks) {
    if (t === '(') depth++;
    else if (t === ')' && --depth < 0) fail("a ')' without its '('");
    if (t === ',' && depth === 0) parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  if (depth !== 0) fail("a '(' without its ')'");
  return parts;
}

export const unquote = (name: string) => (name.startsWith('`') ? name.slice(1, -1).replace(/``/g, '`') : name);
export const isWord = (t: string | undefined, ...words: string[]) => t !== undefined && words.includes(t.toUpperCase());

/**
 * Items of the column list that are no column (keys, constraints, MariaDB's system-time period and its
 * vector indexes).
 */
const KEY_ITEMS = [
  'PRIMARY',
  'KEY',
  'INDEX',
  'UNIQUE',
  'CONSTRAINT',
  'FOREIGN',
  'FULLTEXT',
  'SPATIAL',
  'CHECK',
  'PERIOD',
  'VECTOR',
];

/**
 * A definition from SQL: `CREATE TABLE name (columns and keys) options`, or only the columns. Column
 * attributes other than the type, NULL / NOT NULL and PRIMARY KEY (DEFAULT, AUTO_INCREMENT, COMMENT,
 * generated columns' expressions, CHECK, INVISIBLE, keys) are read past: they do not change how a value
 * is stored.
 */
export function parseTableSql(sql: string, qualified: string): TableDefinitionInput {
  const fail = (problem: string): never => {
    throw new TableDefinitionError(problem, qualified);
  };
  let toks = tokens(sql.replace(/;\s*$/, ''), fail);
  let options: string[] = [];
  if (isWord(toks[0], 'CREATE')) {
    const open = toks.indexOf('(');
    if (open < 0 || !toks.slice(1, open).some((t) => isWord(t, 'TABLE'))) fail('expected CREATE TABLE name (columns)');
    const close = closing(toks, open);
    if (close === toks.length) fail("the column list has no closing ')'");
    options = toks.slice(close + 1);
    toks = toks.slice(open + 1, close);
  }
  return { ...columnList(toks, fail), ...tableOptions(options, fail) };
}

/**
 * A CREATE TABLE's column list: its columns and primary key (declared on a column, or as a key of its own,
 * named by CONSTRAINT or not). The schema file's reader and the DDL reader (ddl.ts) share it.
 */
export function columnList(toks: string[], fail: (p: string) => never): TableDefinitionInput {
  const def: TableDefinitionInput = { columns: [] };
  const primaryKey: string[] = [];
  for (const item of splitList(toks, fail)) {
    if (item.length === 0) fail('an empty column definition');
    if (isWord(item[0], ...KEY_ITEMS)) {
      const pk = item.findIndex((x, i) => isWord(x, 'PRIMARY') && isWord(item[i + 1], 'KEY'));
      if (pk >= 0) primaryKey.push(...keyColumns(item.slice(pk + 2)));
      continue;
    }
    const [column, inKey] = columnDef(item, fail);
    if (inKey) primaryKey.push(column.name);
    def.columns.push(column);
  }
  if (primaryKey.length) def.primaryKey = primaryKey;
  return def;
}

/** The column names of a key's `(a, b(10))`. */
export function keyColumns(toks: string[]): string[] {
  const names: string[] = [];
  let depth = 0;
  for (const t of toks) {
    if (t === '(') depth++;
    else if (t === ')') depth--;
    else if (depth === 1 && t !== ',' && !/^\d+$/.test(t) && !isWord(t, 'ASC', 'DESC')) names.push(unquote(t));
  }
  return names;
}

/**
 * How many tokens after it a column attribute that does not change how values are stored takes (read past):
 * a value (`value`), a parenthesized expression (`expr`), a word or number (`word`, after an optional `=`).
 */
const READ_PAST: Record<string, readonly ('value' | 'expr' | 'word' | 'optional=')[]> = {
  DEFAULT: ['value'],
  COMMENT: ['word'],
  AS: ['expr'],
  CHECK: ['expr'],
  SRID: ['word'],
  COLUMN_FORMAT: ['word'],
  STORAGE: ['word'],
  ENGINE_ATTRIBUTE: ['optional=', 'word'],
  SECONDARY_ENGINE_ATTRIBUTE: ['optional=', 'word'],
  REF_SYSTEM_ID: ['optional=', 'word'],
};
/** Attributes of one or more words alone (MariaDB's COMPRESSED column format among them: the TABLE_MAP says it). */
const WORDS_PAST = [
  'AUTO_INCREMENT',
  'UNIQUE',
  'KEY',
  'INVISIBLE',
  'VISIBLE',
  'VIRTUAL',
  'STORED',
  'PERSISTENT',
  'COMPRESSED',
  'GENERATED',
  'ALWAYS',
  'SERIAL',
  'VALUE',
  'SYSTEM',
  'VERSIONING',
  'WITH',
  'WITHOUT',
];

/** A column's name and type (as a ColumnDef), and whether it says PRIMARY KEY itself. */
export function columnDef(item: string[], fail: (p: string) => never): [ColumnDef, boolean] {
  const name = unquote(item[0]!);
  const type: string[] = [];
  let inKey = false;
  for (let i = 1; i < item.length; i++) {
    const t = item[i]!;
    const upper = t.toUpperCase();
    if (isWord(t, 'PRIMARY') && isWord(item[i + 1], 'KEY')) ((inKey = true), i++);
    // SERIAL as the type is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE (SERIAL DEFAULT VALUE is an attribute).
    else if (i === 1 && isWord(t, 'SERIAL')) type.push('BIGINT', 'UNSIGNED', 'NOT', 'NULL');
    // BINARY after a character type asks for its charset's binary collation, which stores values alike.
    else if (
      i > 1 &&
      isWord(t, 'BINARY') &&
      /^(n?(var)?char|(tiny|medium|long)?text|enum|set|national)/i.test(type[0] ?? '')
    )
      continue;
    // MariaDB's system-versioned tables' period columns: AS ROW START, AS ROW END.
    else if (isWord(t, 'AS') && isWord(item[i + 1], 'ROW')) i += 2;
    else if (isWord(t, 'ON') && isWord(item[i + 1], 'UPDATE')) i = valueEnd(item, i + 2);
    else if (isWord(t, 'CONSTRAINT')) i += isWord(item[i + 1], 'CHECK') ? 0 : 1;
    // A column's REFERENCES (which the servers parse and ignore) ends its definition.
    else if (isWord(t, 'REFERENCES')) break;
    else if (isWord(t, 'COMPRESSED') && item[i + 1] === '=') i += 2;
    else if (Object.hasOwn(READ_PAST, upper)) {
      for (const what of READ_PAST[upper]!) {
        if (what === 'optional=') i += item[i + 1] === '=' ? 1 : 0;
        else if (what === 'value') i = valueEnd(item, i + 1);
        else if (what === 'expr')
          i =
            item[i + 1] === '('
              ? closing(item, i + 1)
              : fail(`${upper} takes an expression in parentheses (column ${name})`);
        else i++;
      }
    } else if (isWord(t, ...WORDS_PAST)) continue;
    else if (isWord(t, 'COLLATE') && item[i + 1] !== undefined && collationId(unquote(item[i + 1]!)) === undefined) {
      // A collation not known here stands for its character set, whose name begins it: text needs no more.
      if (!type.some((x) => isWord(x, 'CHARSET', 'CHARACTER')))
        type.push('CHARACTER', 'SET', charsetOfCollation(unquote(item[i + 1]!)));
      i++;
    } else type.push(t);
  }
  if (type.length === 0) fail(`column ${name} has no type`);
  return [{ name, type: joinType(type) }, inKey];
}

/** The character set a collation's name begins with (`utf8mb4_0900_ai_ci`: utf8mb4). */
const charsetOfCollation = (collation: string) => collation.split('_')[0]!;

/**
 * The index of the last token of the value at `at` (DEFAULT's, ON UPDATE's): a parenthesized expression, a
 * signed number, a call (`current_timestamp(3)`), a string after its introducer (`_utf8mb4'x'`, `b'101'`).
 */
function valueEnd(toks: string[], at: number): number {
  let i = at;
  if (toks[i] === '(') return closing(toks, i);
  if (toks[i] === '-' || toks[i] === '+') i++;
  if (toks[i + 1] === '(') return closing(toks, i + 1);
  if (/^[A-Za-z_]\w*$/.test(toks[i] ?? '') && /^'/.test(toks[i + 1] ?? '')) return i + 1;
  if (toks[i + 1] === '.' && /^\d/.test(toks[i + 2] ?? '')) return i + 2;
  return i;
}

/** Index of the ')' that closes the '(' at `open`. */
export function closing(toks: string[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i] === '(') depth++;
    else if (toks[i] === ')' && --depth === 0) return i;
  }
  return toks.length;
}

/** Tokens back into a type that runtime/tables/sql-type-parser.ts reads: words apart, punctuation as it was. */
function joinType(toks: string[]): string {
  return toks.reduce(
    (s, t, i) => (i > 0 && /^[A-Za-z0-9_$]/.test(t) && /[A-Za-z0-9_$'")]$/.test(s) ? `${s} ${t}` : s + t),
    '',
  );
}

/** ENGINE (or TYPE), ROW_FORMAT, [DEFAULT] CHARSET / CHARACTER SET and COLLATE after the column list. */
export function tableOptions(toks: string[], fail: (p: string) => never): Partial<TableDefinitionInput> {
  const out: Partial<TableDefinitionInput> = {};
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!.toUpperCase();
    const value = (skip: number): string => {
      i += skip;
      if (toks[i + 1] === '=') i++;
      const v = toks[++i];
      return v === undefined ? fail(`${t} without a value`) : unquote(v.replace(/^'(.*)'$/, '$1'));
    };
    if (t === 'ENGINE' || t === 'TYPE') out.engine = value(0);
    else if (t === 'ROW_FORMAT') out.rowFormat = value(0);
    else if (t === 'CHARSET') out.charset = value(0);
    else if (t === 'CHARACTER' && isWord(toks[i + 1], 'SET')) out.charset = value(1);
    else if (t === 'COLLATE') {
      const collation = value(0);
      if (collationId(collation) !== undefined) out.collation = collation;
      else out.charset ??= charsetOfCollation(collation);
    }
  }
  return out;
}
