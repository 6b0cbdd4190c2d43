/**
 * The statements replicas and CDC clients send a source before they ask for its binlog, answered:
 * SELECTs of functions and variables (UNIX_TIMESTAMP(), VERSION(), @@server_id, @master_binlog_checksum,
 * BINLOG_GTID_POS()…), `SET` of user and session variables, SHOW VARIABLES, SHOW MASTER STATUS,
 * SHOW BINARY LOGS and SHOW SLAVE HOSTS, and SELECTs of a table's INFORMATION_SCHEMA.COLUMNS (what CDC
 * clients ask before decoding its rows); each also as a prepared statement, its ? bound. Anything else is refused with
 * an error that quotes it: a client learns at once what
 * this server does not do, rather than read an answer made up for it.
 */
import { ServerErrorCode } from '../generated/replication.js';
import { randomUUID } from 'node:crypto';
import type { ColumnRow, ServedTable } from './source-columns.js';
import {
  columnsRows,
  schemaNames,
  schemataRows,
  showColumns,
  showCreateTable,
  showIndex,
  showTables,
  tablesRows,
} from './catalog.js';

/** A result set: column names and rows of text (null: NULL). */
export interface ResultSet {
  columns: string[];
  rows: (string | null)[][];
}

/** What a statement gets: rows, an OK, or an error (ERR packet). */
export type Answer = ResultSet | 'ok' | QueryError;

export class QueryError extends Error {
  constructor(
    readonly code: number,
    readonly sqlState: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the statements read: the server's variables and binlogs, and the session's user variables. */
export interface QueryContext {
  /** A system variable's value (lower-case name), undefined for one the server does not have. */
  variable(name: string): Promise<string | null | undefined>;
  /** Every system variable, for SHOW VARIABLES. */
  variables(): Promise<[string, string | null][]>;
  /** The session's user variables (@name, lower-case), as SET left them. */
  readonly user: Map<string, string | null>;
  /** The binlogs served and their sizes, oldest first. */
  binlogs(): Promise<{ name: string; size: number }[]>;
  /** The replicas registered now (COM_REGISTER_SLAVE), for SHOW SLAVE HOSTS. */
  replicas(): { serverId: number; host: string; port: number; masterId: number }[];
  /** MariaDB's BINLOG_GTID_POS(file, offset): the GTID state there, null for a file not served. */
  gtidAt(file: string, pos: number): Promise<string | null>;
  /** A table's INFORMATION_SCHEMA.COLUMNS rows, in order, or why they cannot be told. */
  columns(schema: string, table: string): Promise<ColumnRow[] | string>;
  /** Every table the served binlogs map. */
  tables(): Promise<ServedTable[]>;
  /** The connection's id (CONNECTION_ID()), and its account (SHOW GRANTS, CURRENT_USER()). */
  readonly connectionId: number;
  readonly account: string;
  /** The connection's default database (USE, COM_INIT_DB), undefined before one is chosen. */
  database?: string;
  /** KILL [CONNECTION] id: ends the connection with that id; false when there is none. */
  kill(id: number): boolean;
}

interface Token {
  kind: 'word' | 'string' | 'number' | 'sysvar' | 'uservar' | 'punct';
  text: string;
  /** Where it starts and ends in the statement (for the column name of an expression). */
  start: number;
  end: number;
}

/** The kinds of token, each one capture group, in the order tokens() tells them apart by group number. */
const TOKEN_KINDS = [
  /(@@[A-Za-z0-9_.$]+)/, // sysvar
  /(@[A-Za-z0-9_.$]+|@`[^`]*`)/, // uservar
  /('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/, // string
  /(\d+(?:\.\d+)?)/, // number
  /([A-Za-z_$][A-Za-z0-9_$]*|`[^`]*`)/, // word
  /(:=|[(),=*;.?])/, // punct
];
const TOKEN = new RegExp(`\\s*(?:${TOKEN_KINDS.map((k) => k.source).join('|')})`, 'y');

function tokens(sql: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  for (let m; (m = TOKEN.exec(sql)); at = TOKEN.lastIndex) {
    const text = m[0].trim();
    const start = TOKEN.lastIndex - text.length;
    const kind = m[1] ? 'sysvar' : m[2] ? 'uservar' : m[3] ? 'string' : m[4] ? 'number' : m[5] ? 'word' : 'punct';
    out.push({ kind, text, start, end: TOKEN.lastIndex });
  }
  if (sql.slice(at).trim() !== '') throw unknown(sql);
  while (out.at(-1)?.text === ';') out.pop();
  return out;
}

/** A string literal's text: quotes off, escapes and doubled quotes resolved. */
function unquote(t: string): string {
  const q = t[0]!;
  return t
    .slice(1, -1)
    .replace(new RegExp(`\\\\(.)|${q}${q}`, 'g'), (_: string, c: string | undefined) =>
      c === undefined ? q : (({ n: '\n', t: '\t', '0': '\0' } as Record<string, string>)[c] ?? c),
    );
}

function unknown(sql: string): QueryError {
  const message = `binlog serve does not answer this statement: ${quoted(sql.trim(), STATEMENT_QUOTE)}`;
  return new QueryError(ServerErrorCode.ER_NOT_SUPPORTED_YET, '42000', message);
}

/** How much of a statement an error quotes: MariaDB's ER_PARSE_ERROR quotes 80 characters ('%-.80s'). */
const STATEMENT_QUOTE = 80;

/** How much of a name an error quotes: MariaDB's messages quote 192 characters of one ('%-.192s'). */
const NAME_QUOTE = 192;

/**
 * A client's text as an error quotes it: cut, as a server cuts it, so that no answer echoes a whole
 * packet back (a client may send max_allowed_packet's worth).
 */
export function quoted(text: string, max = NAME_QUOTE): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Answers one statement. */
export async function answer(sql: string, ctx: QueryContext): Promise<Answer> {
  try {
    const t = new Tokens(tokens(sql), sql);
    const first = t.word();
    if (first === 'SELECT') return await select(t, ctx);
    if (first === 'SET') return await set(t, ctx);
    if (first === 'SHOW') return await show(t, ctx);
    if (first === 'DESC' || first === 'DESCRIBE' || first === 'EXPLAIN') return await describe(t, ctx, false);
    if (first === 'USE') return use(t, ctx);
    if (first === 'KILL') return kill(t, ctx);
    if (transactionStatement(first, t)) return 'ok';
    throw unknown(sql);
  } catch (e) {
    if (e instanceof QueryError) return e;
    throw e;
  }
}

/** A statement's tokens, read from the front. */
class Tokens {
  private i = 0;
  constructor(
    private readonly list: Token[],
    readonly sql: string,
  ) {}

  peek(): Token | undefined {
    return this.list[this.i];
  }

  take(): Token {
    const t = this.list[this.i++];
    if (!t) throw unknown(this.sql);
    return t;
  }

  /** The next token as an upper-case keyword ('' for one that is not a word). */
  word(): string {
    const t = this.take();
    return t.kind === 'word' ? t.text.toUpperCase() : '';
  }

  /** Takes the next tokens when they are these keywords. */
  accept(...words: string[]): boolean {
    const saved = this.i;
    for (const w of words) {
      const t = this.list[this.i];
      if (!t || t.text.toUpperCase() !== w) return ((this.i = saved), false);
      this.i++;
    }
    return true;
  }

  /** A word that is no function call (SET's ON, OFF, DEFAULT…), taken. */
  bareWord(): string | undefined {
    const t = this.list[this.i];
    if (t?.kind !== 'word' || this.list[this.i + 1]?.text === '(' || t.text.toUpperCase() === 'NULL') return undefined;
    this.i++;
    return t.text;
  }

  expect(text: string): void {
    if (this.take().text.toUpperCase() !== text) throw unknown(this.sql);
  }

  /** The INFORMATION_SCHEMA table the statement (from here) selects FROM, upper case, or undefined. */
  fromInformationSchema(): string | undefined {
    const i = this.list.findIndex((t, k) => k >= this.i && t.text.toUpperCase() === 'FROM');
    if (i < 0 || identifier(this.list[i + 1]?.text ?? '').toUpperCase() !== 'INFORMATION_SCHEMA') return undefined;
    if (this.list[i + 2]?.text !== '.') return undefined;
    return identifier(this.list[i + 3]?.text ?? '').toUpperCase();
  }

  /** Takes a name (a word or a backquoted one), without its quotes. */
  name(): string {
    const t = this.take();
    if (t.kind !== 'word') throw unknown(this.sql);
    return identifier(t.text);
  }

  /** Takes the rest of the statement, whatever it is. */
  rest(): void {
    this.i = this.list.length;
  }

  get done(): boolean {
    return this.i >= this.list.length;
  }

  end(): void {
    if (!this.done) throw unknown(this.sql);
  }
}

/** The number of ? in a statement (a prepared statement's parameters). */
export function placeholders(sql: string): number {
  return tokens(sql).filter((t) => t.text === '?').length;
}

/** The statement with each ? replaced by its value as a string literal (or NULL). */
export function bound(sql: string, values: (string | null)[]): string {
  const marks = tokens(sql).filter((t) => t.text === '?');
  if (marks.length !== values.length)
    throw new QueryError(
      ServerErrorCode.ER_WRONG_ARGUMENTS,
      'HY000',
      `the statement has ${marks.length} parameters, the execution gave ${values.length}`,
    );
  let out = '';
  let at = 0;
  marks.forEach((m, i) => {
    const v = values[i]!;
    out += sql.slice(at, m.start) + (v === null ? 'NULL' : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
    at = m.end;
  });
  return out + sql.slice(at);
}

async function select(t: Tokens, ctx: QueryContext): Promise<ResultSet> {
  const table = t.fromInformationSchema();
  if (table !== undefined) return selectInformationSchema(t, ctx, table);
  const columns: string[] = [];
  const row: (string | null)[] = [];
  do {
    const from = t.peek()?.start ?? 0;
    row.push(await expression(t, ctx));
    const to = t.peek()?.start ?? t.sql.length;
    columns.push(alias(t) ?? t.sql.slice(from, to).trim());
  } while (t.peek()?.text === ',' && t.take());
  if (t.accept('FROM')) t.expect('DUAL');
  if (t.accept('LIMIT')) t.take();
  t.end();
  return { columns, rows: [row] };
}

/** The INFORMATION_SCHEMA tables answered, each's rows from the served tables. */
const INFORMATION_SCHEMA: Readonly<Record<string, (tables: ServedTable[]) => ColumnRow[]>> = {
  SCHEMATA: schemataRows,
  TABLES: tablesRows,
  COLUMNS: columnsRows,
};

/**
 * SELECT name [AS alias], … | * FROM INFORMATION_SCHEMA.SCHEMATA|TABLES|COLUMNS [WHERE …] [ORDER BY name, …]
 * [LIMIT n]: the served tables' rows. A COLUMNS question for one table (TABLE_SCHEMA and TABLE_NAME given) that the
 * binlogs cannot answer (never mapped, or mapped without names) is refused with the reason.
 */
async function selectInformationSchema(t: Tokens, ctx: QueryContext, table: string): Promise<ResultSet> {
  const rowsOf = INFORMATION_SCHEMA[table];
  if (!rowsOf) throw unknown(t.sql);
  const wanted: { column: string; name: string }[] = [];
  if (!t.accept('*')) {
    do {
      const column = t.name();
      wanted.push({ column, name: alias(t) ?? column });
    } while (t.peek()?.text === ',' && t.take());
  }
  for (const w of ['FROM', 'INFORMATION_SCHEMA', '.', table])
    if (identifier(t.take().text).toUpperCase() !== w) throw unknown(t.sql);
  const filter = t.accept('WHERE') ? condition(t) : { keep: () => true, equals: new Map<string, string>() };
  const order: string[] = [];
  if (t.accept('ORDER', 'BY'))
    do order.push(t.name().toUpperCase());
    while (t.peek()?.text === ',' && t.take());
  const limit = t.accept('LIMIT') ? Number(t.take().text) : Infinity;
  t.end();
  let rows = rowsOf(await ctx.tables()).filter(filter.keep);
  const schema = filter.equals.get('TABLE_SCHEMA');
  const name = filter.equals.get('TABLE_NAME');
  if (table === 'COLUMNS' && schema !== undefined && name !== undefined) {
    const columns = await ctx.columns(schema, name);
    if (typeof columns === 'string') {
      const message = `binlog serve cannot answer this statement: ${quoted(columns)}`;
      throw new QueryError(ServerErrorCode.ER_NOT_SUPPORTED_YET, '42000', message);
    }
  }
  rows = sorted(rows, order).slice(0, limit);
  const known = Object.keys(rows[0] ?? {});
  if (wanted.length === 0) return { columns: known, rows: rows.map((r) => known.map((k) => r[k] ?? null)) };
  const keys = wanted.map(({ column }) => {
    const key = column.toUpperCase();
    if (rows.length && !(key in rows[0]!)) {
      const message =
        `Unknown column '${quoted(column)}' in 'field list' ` +
        `(binlog serve knows ${Object.keys(rows[0]!).join(', ')})`;
      throw new QueryError(ServerErrorCode.ER_BAD_FIELD_ERROR, '42S22', message);
    }
    return key;
  });
  return { columns: wanted.map((w) => w.name), rows: rows.map((r) => keys.map((k) => r[k] ?? null)) };
}

/** Rows in the order of these columns, numbers as numbers (ORDINAL_POSITION). */
function sorted(rows: ColumnRow[], order: string[]): ColumnRow[] {
  const compare = (a: string | null | undefined, b: string | null | undefined) =>
    /^\d+$/.test(a ?? '') && /^\d+$/.test(b ?? '')
      ? Number(a) - Number(b)
      : String(a ?? '').localeCompare(String(b ?? ''));
  return [...rows].sort((x, y) => {
    for (const k of order) {
      const c = compare(x[k], y[k]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/**
 * A WHERE condition over a row's columns (any case): comparisons `name = 'v'`, `name IN ('a', …)`, `name LIKE 'p'`,
 * `name REGEXP 'r'`, joined by AND and OR (AND first), as clients write them for SHOW VARIABLES and INFORMATION_SCHEMA;
 * with the equalities of its top AND, which say which table is asked about.
 */
function condition(t: Tokens): { keep: (row: Record<string, string | null>) => boolean; equals: Map<string, string> } {
  const alternatives: ((row: Record<string, string | null>) => boolean)[][] = [[]];
  const equals = new Map<string, string>();
  do {
    const column = t.name().toUpperCase();
    const test = comparison(t, (value) => alternatives.length === 1 && equals.set(column, value));
    alternatives.at(-1)!.push((row) => {
      const key = Object.keys(row).find((k) => k.toUpperCase() === column);
      if (key === undefined)
        throw new QueryError(
          ServerErrorCode.ER_BAD_FIELD_ERROR,
          '42S22',
          `Unknown column '${quoted(column)}' in 'where clause'`,
        );
      const v = row[key];
      return v !== null && v !== undefined && test(v);
    });
    if (t.accept('OR')) {
      alternatives.push([]);
      equals.clear();
      continue;
    }
  } while (t.accept('AND') || alternatives.at(-1)!.length === 0);
  if (alternatives.length > 1) equals.clear();
  return { keep: (row) => alternatives.some((all) => all.every((f) => f(row))), equals };
}

/** One comparison's test of a value (names compare without case, as on variable names and Linux's defaults). */
function comparison(t: Tokens, equal: (value: string) => void): (v: string) => boolean {
  const op = t.take().text.toUpperCase();
  if (op === '=') {
    const value = literal(t);
    equal(value);
    return (v) => v === value || v.toLowerCase() === value.toLowerCase();
  }
  if (op === 'IN') {
    t.expect('(');
    const values = new Set<string>();
    do values.add(literal(t).toLowerCase());
    while (t.peek()?.text === ',' && t.take());
    t.expect(')');
    return (v) => values.has(v.toLowerCase());
  }
  if (op === 'LIKE') return likeMatcher(literal(t));
  if (op === 'REGEXP' || op === 'RLIKE') {
    const re = new RegExp(literal(t), 'i');
    return (v) => re.test(v);
  }
  throw unknown(t.sql);
}

/** A string literal's value. */
function literal(t: Tokens): string {
  const value = t.take();
  if (value.kind !== 'string') throw unknown(t.sql);
  return unquote(value.text);
}

/**
 * A selected item's alias, taken when one follows: `AS name`, or a name or string alone before the next
 * comma, FROM or LIMIT, as MySQL takes it. The result's column is then named so.
 */
function alias(t: Tokens): string | undefined {
  const next = t.peek();
  const bare = next?.kind === 'word' && !['FROM', 'LIMIT'].includes(next.text.toUpperCase());
  if (t.accept('AS') || bare || next?.kind === 'string') return identifier(t.take().text);
  return undefined;
}

function identifier(text: string): string {
  return text.startsWith('`') ? text.slice(1, -1) : text.startsWith("'") || text.startsWith('"') ? unquote(text) : text;
}

/** A value: a literal, a variable or one of the functions clients ask a source for. */
async function expression(t: Tokens, ctx: QueryContext): Promise<string | null> {
  const tok = t.take();
  if (tok.kind === 'string') return unquote(tok.text);
  if (tok.kind === 'number') return tok.text;
  if (tok.kind === 'uservar') return ctx.user.get(userName(tok.text)) ?? null;
  if (tok.kind === 'sysvar') return systemVariable(tok.text, ctx);
  if (tok.kind !== 'word') throw unknown(t.sql);
  const name = tok.text.toUpperCase();
  if (name === 'NULL') return null;
  if (t.peek()?.text !== '(') throw unknown(t.sql);
  t.take();
  const args: (string | null)[] = [];
  while (t.peek()?.text !== ')') {
    args.push(await expression(t, ctx));
    if (t.peek()?.text === ',') t.take();
  }
  t.take();
  return call(name, args, t, ctx);
}

async function call(name: string, args: (string | null)[], t: Tokens, ctx: QueryContext): Promise<string | null> {
  if (name === 'UNIX_TIMESTAMP' && args.length === 0) return String(Math.floor(Date.now() / 1000));
  if (name === 'VERSION' && args.length === 0) return (await ctx.variable('version')) ?? null;
  if (name === 'BINLOG_GTID_POS' && args.length === 2 && args[0] !== null && args[1] !== null)
    return ctx.gtidAt(args[0], Number(args[1]));
  if ((name === 'DATABASE' || name === 'SCHEMA') && args.length === 0) return ctx.database ?? null;
  if (name === 'CONNECTION_ID' && args.length === 0) return String(ctx.connectionId);
  if (name === 'UUID' && args.length === 0) return randomUUID();
  if (['USER', 'CURRENT_USER', 'SESSION_USER', 'SYSTEM_USER'].includes(name) && args.length === 0) return ctx.account;
  throw unknown(t.sql);
}

/** '@`a b`' or '@name' as the user variable's key. */
function userName(text: string): string {
  return identifier(text.slice(1)).toLowerCase();
}

/** '@@global.name', '@@session.name' or '@@name': the variable, or an error naming it. */
async function systemVariable(text: string, ctx: QueryContext): Promise<string | null> {
  const name = text
    .slice(2)
    .replace(/^(global|session|local)\./i, '')
    .toLowerCase();
  const value = await ctx.variable(name);
  if (value === undefined) {
    const message = `Unknown system variable '${quoted(name)}'`;
    throw new QueryError(ServerErrorCode.ER_UNKNOWN_SYSTEM_VARIABLE, 'HY000', message);
  }
  return value;
}

/** SET @user = value, SET [GLOBAL|SESSION] name = value, SET NAMES …: user variables kept, the rest taken as said. */
async function set(t: Tokens, ctx: QueryContext): Promise<'ok'> {
  // SET [GLOBAL|SESSION] TRANSACTION ISOLATION LEVEL …, READ ONLY…: a binlog server has no transactions to set.
  if (t.accept('TRANSACTION') || t.accept('SESSION', 'TRANSACTION') || t.accept('GLOBAL', 'TRANSACTION')) {
    t.rest();
    return 'ok';
  }
  do {
    if (t.accept('NAMES') || t.accept('CHARACTER', 'SET')) {
      t.take();
      if (t.accept('COLLATE')) t.take();
      continue;
    }
    t.accept('GLOBAL') || t.accept('SESSION') || t.accept('LOCAL');
    const target = t.take();
    if (target.kind !== 'uservar' && target.kind !== 'sysvar' && target.kind !== 'word') throw unknown(t.sql);
    const op = t.take().text;
    if (op !== '=' && op !== ':=') throw unknown(t.sql);
    const value = t.bareWord() ?? (await expression(t, ctx));
    if (target.kind === 'uservar') ctx.user.set(userName(target.text), value);
  } while (t.peek()?.text === ',' && t.take());
  t.end();
  return 'ok';
}

async function show(t: Tokens, ctx: QueryContext): Promise<ResultSet> {
  if (t.accept('MASTER', 'STATUS') || t.accept('BINARY', 'LOG', 'STATUS') || t.accept('BINLOG', 'STATUS')) {
    t.end();
    const last = (await ctx.binlogs()).at(-1);
    return {
      columns: ['File', 'Position', 'Binlog_Do_DB', 'Binlog_Ignore_DB'],
      rows: last ? [[last.name, String(last.size), '', '']] : [],
    };
  }
  if (t.accept('BINARY', 'LOGS') || t.accept('MASTER', 'LOGS')) {
    t.end();
    return { columns: ['Log_name', 'File_size'], rows: (await ctx.binlogs()).map((b) => [b.name, String(b.size)]) };
  }
  if (t.accept('SLAVE', 'HOSTS') || t.accept('REPLICA', 'HOSTS') || t.accept('REPLICAS')) {
    t.end();
    return {
      columns: ['Server_id', 'Host', 'Port', 'Master_id'],
      rows: ctx.replicas().map((r) => [String(r.serverId), r.host, String(r.port), String(r.masterId)]),
    };
  }
  const catalog = await showCatalog(t, ctx);
  if (catalog) return catalog;
  if (t.accept('GRANTS')) {
    // FOR CURRENT_USER[()], or an account named: each is told what the binlogs let it do.
    if (t.accept('FOR')) t.rest();
    return {
      columns: [`Grants for ${ctx.account}`],
      rows: [[`GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO ${grantee(ctx.account)}`]],
    };
  }
  t.accept('GLOBAL') || t.accept('SESSION') || t.accept('LOCAL');
  if (!t.accept('VARIABLES')) throw unknown(t.sql);
  const rows = (await ctx.variables()).map(([n, v]) => [n, v]);
  return filtered({ columns: ['Variable_name', 'Value'], rows }, t);
}

/** SHOW …'s rows as its LIKE (on the first column) or WHERE (on any) keeps them. */
function filtered(rs: ResultSet, t: Tokens): ResultSet {
  let keep: (row: (string | null)[]) => boolean = () => true;
  if (t.accept('LIKE')) {
    const like = likeMatcher(literal(t));
    keep = (row) => row[0] !== null && like(row[0]!);
  } else if (t.accept('WHERE')) {
    const where = condition(t).keep;
    keep = (row) => where(Object.fromEntries(rs.columns.map((c, i) => [c, row[i] ?? null])));
  }
  t.end();
  return { columns: rs.columns, rows: rs.rows.filter(keep) };
}

/** 'user@host' as a GRANT names it: 'user'@'host'. */
function grantee(account: string): string {
  const at = account.lastIndexOf('@');
  return `'${account.slice(0, at)}'@'${account.slice(at + 1)}'`;
}

/**
 * SHOW DATABASES, SHOW [FULL] TABLES, SHOW [FULL] COLUMNS, SHOW INDEX and SHOW CREATE TABLE over the served tables
 * (catalog.ts), or undefined for another SHOW.
 */
async function showCatalog(t: Tokens, ctx: QueryContext): Promise<ResultSet | undefined> {
  if (t.accept('DATABASES') || t.accept('SCHEMAS')) {
    const rows = schemaNames(await ctx.tables()).map((n) => [n]);
    return filtered({ columns: ['Database'], rows }, t);
  }
  const full = t.accept('FULL');
  if (t.accept('TABLES')) {
    const schema = (t.accept('FROM') || t.accept('IN') ? t.name() : ctx.database) ?? noDatabase();
    return filtered(showTables(await ctx.tables(), schema, full), t);
  }
  if (t.accept('COLUMNS') || t.accept('FIELDS')) return describe(t, ctx, full, true);
  if (full) throw unknown(t.sql);
  if (t.accept('INDEX') || t.accept('INDEXES') || t.accept('KEYS')) {
    const table = await servedTable(t, ctx, true);
    const index = showIndex(table);
    if (!index) throw notLogged(table, 'its primary key', 'binlog_row_metadata=FULL');
    return filtered(index, t);
  }
  if (t.accept('CREATE', 'TABLE')) {
    const table = await servedTable(t, ctx, false);
    t.end();
    return showCreateTable(table, namedColumns(table));
  }
  return undefined;
}

/** DESCRIBE t, SHOW [FULL] COLUMNS FROM t [FROM db]: the columns the binlogs name. */
async function describe(t: Tokens, ctx: QueryContext, full: boolean, from = false): Promise<ResultSet> {
  const table = await servedTable(t, ctx, from);
  return filtered(showColumns(namedColumns(table), full), t);
}

/** A table named next (`db.t`, or `t` of `FROM db` or of the current database), as the served binlogs map it. */
async function servedTable(t: Tokens, ctx: QueryContext, from: boolean): Promise<ServedTable> {
  if (from && !(t.accept('FROM') || t.accept('IN'))) throw unknown(t.sql);
  let schema: string | undefined;
  let name = t.name();
  if (t.peek()?.text === '.' && t.take()) [schema, name] = [name, t.name()];
  if (from && (t.accept('FROM') || t.accept('IN'))) schema = t.name();
  schema ??= ctx.database ?? noDatabase();
  const table = (await ctx.tables()).find((x) => x.schema === schema && x.table === name);
  if (!table) {
    const table = quoted(`${schema}.${name}`);
    const message = `Table '${table}' doesn't exist (no TABLE_MAP of it is in the served binlogs)`;
    throw new QueryError(ServerErrorCode.ER_NO_SUCH_TABLE, '42S02', message);
  }
  return table;
}

/** A table's named columns, or the refusal that says the binlogs do not name them. */
function namedColumns(table: ServedTable): ColumnRow[] {
  if (!table.columns)
    throw notLogged(
      table,
      'the names of its columns',
      'binlog_row_metadata=FULL, or a table definition given to serve (--schema-file, --table-def)',
    );
  return table.columns;
}

function notLogged(table: ServedTable, what: string, needs: string): QueryError {
  const message =
    `binlog serve cannot answer this statement: the served binlogs do not say ${what} of ` +
    `${quoted(`${table.schema}.${table.table}`)} (that needs ${needs})`;
  return new QueryError(ServerErrorCode.ER_NOT_SUPPORTED_YET, '42000', message);
}

/** MariaDB's ER_NO_DB_ERROR: a table named without its database, none chosen. */
function noDatabase(): never {
  throw new QueryError(ServerErrorCode.ER_NO_DB_ERROR, '3D000', 'No database selected');
}

/** USE db: the session's default database (any name: a binlog server has them all, or none). */
function use(t: Tokens, ctx: QueryContext): 'ok' {
  ctx.database = t.name();
  t.end();
  return 'ok';
}

/** KILL [CONNECTION | QUERY] id: the connection ends (a query too, as no query of serve's runs long but a dump). */
function kill(t: Tokens, ctx: QueryContext): 'ok' {
  t.accept('HARD') || t.accept('SOFT');
  t.accept('CONNECTION') || t.accept('QUERY');
  const id = t.take();
  t.end();
  if (id.kind !== 'number' || !ctx.kill(Number(id.text))) {
    throw new QueryError(ServerErrorCode.ER_NO_SUCH_THREAD, 'HY000', `Unknown thread id: ${quoted(id.text)}`);
  }
  return 'ok';
}

/**
 * BEGIN, START TRANSACTION [WITH CONSISTENT SNAPSHOT | READ ONLY…], COMMIT, ROLLBACK and UNLOCK TABLES, which clients
 * send around their reads of the catalogue: a binlog server has no transactions or locks, and answers OK.
 */
function transactionStatement(first: string, t: Tokens): boolean {
  const taken =
    ['BEGIN', 'COMMIT', 'ROLLBACK'].includes(first) ||
    (first === 'START' && t.accept('TRANSACTION')) ||
    (first === 'UNLOCK' && t.accept('TABLES'));
  if (taken) t.rest();
  return taken;
}

/** SQL's LIKE, case-insensitive as on variable names: % any run, _ any one character. */
function likeMatcher(pattern: string): (s: string) => boolean {
  const re = pattern.replace(
    /\\(.)|([%_])|([^%_\\]+)/g,
    (_, esc: string | undefined, wild: string | undefined, lit: string | undefined) =>
      esc !== undefined
        ? esc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        : wild === '%'
          ? '.*'
          : wild === '_'
            ? '.'
            : lit!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  const r = new RegExp(`^${re}$`, 'is');
  return (s) => r.test(s);
}
