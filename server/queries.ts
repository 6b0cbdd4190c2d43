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
import type { ColumnRow } from './source-columns.js';

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
}

interface Token {
  kind: 'word' | 'string' | 'number' | 'sysvar' | 'uservar' | 'punct';
  text: string;
  /** Where it starts and ends in the statement (for the column name of an expression). */
  start: number;
  end: number;
}

const TOKEN =
  /\s*(?:(@@[A-Za-z0-9_.$]+)|(@[A-Za-z0-9_.$]+|@`[^`]*`)|('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")|(\d+(?:\.\d+)?)|([A-Za-z_$][A-Za-z0-9_$]*|`[^`]*`)|(:=|[(),=*;.?]))/y;

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

  /** Whether the statement (from here) selects FROM INFORMATION_SCHEMA.COLUMNS. */
  fromInformationSchemaColumns(): boolean {
    const i = this.list.findIndex((t, k) => k >= this.i && t.text.toUpperCase() === 'FROM');
    return (
      i >= 0 &&
      this.list[i + 1]?.text.toUpperCase() === 'INFORMATION_SCHEMA' &&
      this.list[i + 2]?.text === '.' &&
      this.list[i + 3]?.text.toUpperCase() === 'COLUMNS'
    );
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
  if (t.fromInformationSchemaColumns()) return selectColumns(t, ctx);
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

/**
 * SELECT name, … FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '…' AND TABLE_NAME = '…'
 * [ORDER BY ORDINAL_POSITION]: the table's columns as the served binlogs tell them.
 */
async function selectColumns(t: Tokens, ctx: QueryContext): Promise<ResultSet> {
  const wanted: { column: string; name: string }[] = [];
  do {
    const c = t.take();
    if (c.kind !== 'word') throw unknown(t.sql);
    const column = identifier(c.text);
    wanted.push({ column, name: alias(t) ?? column });
  } while (t.peek()?.text === ',' && t.take());
  for (const w of ['FROM', 'INFORMATION_SCHEMA', '.', 'COLUMNS', 'WHERE']) t.expect(w);
  const where = new Map<string, string>();
  do {
    const name = identifier(t.take().text).toUpperCase();
    t.expect('=');
    const value = t.take();
    if (value.kind !== 'string') throw unknown(t.sql);
    where.set(name, unquote(value.text));
  } while (t.accept('AND'));
  if (t.accept('ORDER', 'BY')) t.expect('ORDINAL_POSITION');
  t.end();
  const schema = where.get('TABLE_SCHEMA');
  const table = where.get('TABLE_NAME');
  if (schema === undefined || table === undefined || where.size !== 2) throw unknown(t.sql);
  const rows = await ctx.columns(schema, table);
  if (typeof rows === 'string') {
    const message = `binlog serve cannot answer this statement: ${quoted(rows)}`;
    throw new QueryError(ServerErrorCode.ER_NOT_SUPPORTED_YET, '42000', message);
  }
  const known = Object.keys(rows[0] ?? {});
  const keys = wanted.map(({ column }) => {
    const key = column.toUpperCase();
    if (rows.length && !known.includes(key)) {
      const message = `Unknown column '${quoted(column)}' in 'field list' (binlog serve knows ${known.join(', ')})`;
      throw new QueryError(ServerErrorCode.ER_BAD_FIELD_ERROR, '42S22', message);
    }
    return key;
  });
  return { columns: wanted.map((w) => w.name), rows: rows.map((r) => keys.map((k) => r[k] ?? null)) };
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
  if ((name === 'DATABASE' || name === 'SCHEMA') && args.length === 0) return null;
  if (name === 'CONNECTION_ID' && args.length === 0) return '1';
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
  if (t.accept('MASTER', 'STATUS') || t.accept('BINARY', 'LOG', 'STATUS')) {
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
  t.accept('GLOBAL') || t.accept('SESSION');
  if (!t.accept('VARIABLES')) throw unknown(t.sql);
  let keep: (name: string) => boolean = () => true;
  if (t.accept('LIKE')) {
    const pattern = t.take();
    if (pattern.kind !== 'string') throw unknown(t.sql);
    keep = likeMatcher(unquote(pattern.text));
  }
  t.end();
  return {
    columns: ['Variable_name', 'Value'],
    rows: (await ctx.variables()).filter(([n]) => keep(n)).map(([n, v]) => [n, v]),
  };
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
