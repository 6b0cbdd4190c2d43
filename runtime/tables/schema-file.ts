/**
 * Table definitions from an SQL script: a `mysqldump --no-data` / `mariadb-dump --no-data` file (one
 * database, several, or all of them), or any script of CREATE TABLE statements. It is split into
 * statements as the mysql client splits it (quotes, `--` and `#` comments, `/* … *\/` comments, DELIMITER
 * lines); the text of the servers' executable comments (`/*!40101 … *\/`, MariaDB's `/*M!100301 … *\/`) is
 * SQL, as a server runs it. Only CREATE TABLE (and CREATE TABLE … LIKE) statements define tables, in the
 * database of the last USE before them, or the dump header's (`-- Host: …  Database: db`), or the one
 * given; everything else (SET, DROP, views, triggers, routines) is read past.
 */
import type { TableDefinitions } from './definitions.js';
import { TableDefinitionError } from './table-types.js';

/**
 * The definitions an SQL script's CREATE TABLE statements give, by 'schema.table': each statement's text,
 * which resolveTableDefinitions reads (parseTableSql). `defaultSchema` is the database of tables created
 * before any USE (default: the one a dump's header names).
 */
export function tableDefinitionsFromSql(text: string, defaultSchema?: string): TableDefinitions {
  const defs: TableDefinitions = {};
  let schema = defaultSchema ?? /^-- Host: .*?\bDatabase: (\S+)/m.exec(text)?.[1];
  for (const statement of statements(text)) {
    const use = USE.exec(statement);
    if (use) {
      schema = unquote(use[1]!);
      continue;
    }
    const create = CREATE_TABLE.exec(statement);
    if (!create) continue;
    const key = qualify(create[1]!, create[2], schema);
    const like = LIKE.exec(statement.slice(create[0].length));
    if (!like) defs[key] = statement;
    else {
      const source = defs[qualify(like[1]!, like[2], schema)];
      if (source === undefined)
        throw new TableDefinitionError('CREATE TABLE … LIKE names a table the script has not created before it', key);
      defs[key] = source;
    }
  }
  return defs;
}

/**
 * The default character set of each database an SQL script creates (`CREATE DATABASE db … CHARACTER SET
 * cs`, as mariadb-dump and mysqldump write them): the tables created later without one take it.
 */
export function databaseCharsetsFromSql(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const statement of statements(text)) {
    const m = CREATE_DATABASE.exec(statement);
    if (m) out[unquote(m[1]!)] = m[2]!;
  }
  return out;
}

/** A name: `quoted`, "quoted" (ANSI_QUOTES) or bare. */
const NAME = '(`(?:[^`]|``)*`|"(?:[^"]|"")*"|[\\w$]+)';
const QUALIFIED = `${NAME}(?:\\s*\\.\\s*${NAME})?`;
const USE = new RegExp(`^\\s*USE\\s+${NAME}\\s*$`, 'i');
const CREATE_TABLE = new RegExp(
  `^\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${QUALIFIED}`,
  'i',
);
const CREATE_DATABASE = new RegExp(
  `^\\s*CREATE\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${NAME}` +
    `.*?\\b(?:CHARACTER\\s+SET|CHARSET)\\s*=?\\s*(\\w+)`,
  'is',
);
const DELIMITER = /^[ \t]*delimiter[ \t]+(\S+)[^\n]*/i;
const LIKE = new RegExp(`^\\s*\\(?\\s*LIKE\\s+${QUALIFIED}`, 'i');

function unquote(name: string): string {
  const q = name[0];
  return q === '`' || q === '"' ? name.slice(1, -1).replaceAll(q + q, q) : name;
}

/** 'schema.table' of `a` or `a.b`, a bare table in the current database. */
function qualify(first: string, second: string | undefined, schema: string | undefined): string {
  if (second !== undefined) return `${unquote(first)}.${unquote(second)}`;
  const table = unquote(first);
  if (schema === undefined)
    throw new TableDefinitionError(
      'created before any USE, and no database was given for it (nor named by a dump header)',
      table,
    );
  return `${schema}.${table}`;
}

/**
 * The statements of a script, as the mysql client splits them: at its delimiter (`;` until a DELIMITER
 * line changes it) outside quotes and comments, the comments left out but an executable comment's text.
 */
export function statements(text: string): string[] {
  const out: string[] = [];
  let delimiter = ';';
  let current = '';
  let executable = false; // inside /*! … */, whose text is SQL
  let i = 0;
  const end = () => {
    if (current.trim() !== '') out.push(current.trim());
    current = '';
  };
  while (i < text.length) {
    const ch = text[i]!;
    // DELIMITER is a command of the client, on a line of its own between statements.
    if ((i === 0 || text[i - 1] === '\n') && !executable && current.trim() === '') {
      const line = DELIMITER.exec(text.slice(i, i + 100));
      if (line) {
        delimiter = line[1]!;
        i += line[0].length;
        continue;
      }
    }
    if (text.startsWith(delimiter, i)) {
      end();
      i += delimiter.length;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      const close = quoteEnd(text, i);
      current += text.slice(i, close);
      i = close;
    } else if (ch === '#' || (ch === '-' && text[i + 1] === '-' && /[\s]/.test(text[i + 2] ?? ' '))) {
      const eol = text.indexOf('\n', i);
      i = eol < 0 ? text.length : eol;
    } else if (executable && text.startsWith('*/', i)) {
      executable = false;
      current += ' ';
      i += 2;
    } else if (text.startsWith('/*', i)) {
      const marker = /^\/\*M?!\d*/.exec(text.slice(i, i + 12));
      const close = text.indexOf('*/', i + 2);
      // MariaDB's sandbox line (/*M!999999\- …*/) is a command of its client, no SQL.
      if (marker && text[i + marker[0].length] !== '\\') {
        executable = true;
        current += ' ';
        i += marker[0].length;
      } else {
        current += ' ';
        i = close < 0 ? text.length : close + 2;
      }
    } else {
      current += ch;
      i++;
    }
  }
  end();
  return out;
}

/** The index after the quote that closes the one at `open` (its double, or a backslash before it, escapes it). */
function quoteEnd(text: string, open: number): number {
  const q = text[open]!;
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\' && q !== '`') i++;
    else if (text[i] === q) {
      if (text[i + 1] !== q) return i + 1;
      i++;
    }
  }
  return text.length;
}
