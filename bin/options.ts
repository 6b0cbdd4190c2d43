/**
 * What the commands share of their command lines: the dump's filters, table definitions, parsing, and how
 * a failure is said (the options themselves and the exit statuses are usage.ts's).
 */
import { once } from 'node:events';
import { appendFileSync, createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  BinlogError,
  ChecksumError,
  ConnectionError,
  printable,
  ServerError,
  SnapshotError,
} from '../runtime/core/errors.js';
import {
  EVENT_CIPHERS,
  parseKeyFile,
  type EncryptionKeys,
  type EncryptionOptions,
  type EventCipherName,
} from '../runtime/events/encryption.js';
import { KEY_FILE_SECRET_PREFIX } from '../generated/encryption.js';
import { parseKeyringFile, type Keyring } from '../runtime/io/mysql-encryption.js';
import { eventFromJson, type BinlogEventInput } from '../runtime/events/event-codec.js';
import type { EventFilter, EventSelection } from '../runtime/io/filter.js';
import { resolveTableDefinitions, type TableDefinitions } from '../runtime/tables/definitions.js';
import { databaseCharsetsFromSql, tableDefinitionsFromSql } from '../runtime/tables/schema-file.js';
import { SchemaHistory, type SchemaHistoryOptions } from '../runtime/tables/history.js';
import { PasswordPromptInterrupted } from './secrets.js';
import { EXIT, UsageError } from './usage.js';

/**
 * The definitions --schema-file, --table-defs and --table-def give, checked: a bad --table-def or
 * --table-defs is a usage error; a table of a schema file that cannot be described is said and left out.
 */
export function tableDefinitions(values: {
  'table-def'?: string[];
  'table-defs'?: string;
  'schema-file'?: string[];
}): TableDefinitions | undefined {
  if (!values['table-def'] && !values['table-defs'] && !values['schema-file']) return undefined;
  const defs: TableDefinitions = {};
  for (const arg of values['schema-file'] ?? []) Object.assign(defs, schemaFile(arg));
  if (values['table-defs']) {
    let json: unknown;
    try {
      json = JSON.parse(readOption(values['table-defs'], '--table-defs'));
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`--table-defs: not JSON: ${(e as Error).message}`);
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new UsageError('--table-defs holds a JSON object');
    Object.assign(defs, json);
  }
  for (const d of values['table-def'] ?? []) {
    const eq = d.indexOf('=');
    if (eq <= 0) throw new UsageError(`--table-def takes DB.TABLE=SQL, not '${d}'`);
    const sql = d.slice(eq + 1);
    defs[d.slice(0, eq)] = sql.startsWith('@') ? readOption(sql.slice(1), '--table-def') : sql;
  }
  try {
    resolveTableDefinitions(defs);
  } catch (e) {
    if (e instanceof BinlogError) throw new UsageError(e.message);
    throw e;
  }
  return defs;
}

/**
 * The keys of --key-file (a file_key_management key file), decrypted with --key-file-key when it is
 * encrypted: the secret itself, or FILE:PATH for the first line of a file, as the plugin's filekey.
 */
export function encryptionKeys(values: { 'key-file'?: string; 'key-file-key'?: string }): EncryptionKeys | undefined {
  const file = values['key-file'];
  if (file === undefined) {
    const lone = values['key-file-key'] !== undefined;
    if (lone) throw new UsageError('--key-file-key decrypts the --key-file: give that too');
    return undefined;
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new UsageError(`--key-file: ${(e as Error).message}`);
  }
  try {
    return parseKeyFile(bytes, fileKey(values['key-file-key']));
  } catch (e) {
    if (e instanceof BinlogError) throw new UsageError(`--key-file ${file}: ${e.problem}`);
    throw e;
  }
}

/** The secret of --key-file-key: as given, or from FILE:PATH the file's text without its line ends. */
function fileKey(value: string | undefined): string | undefined {
  if (value === undefined || !value.startsWith(KEY_FILE_SECRET_PREFIX)) return value;
  return readOption(value.slice(KEY_FILE_SECRET_PREFIX.length), '--key-file-key').replace(/[\r\n]+$/, '');
}

/** The keys of --keyring, a component_keyring_file JSON file, for MySQL 8's encrypted binlogs. */
export function keyringOption(values: { keyring?: string }): Keyring | undefined {
  if (values.keyring === undefined) return undefined;
  try {
    return parseKeyringFile(readBytesOption(values.keyring, '--keyring'));
  } catch (e) {
    if (e instanceof BinlogError) throw new UsageError(`--keyring ${values.keyring}: ${e.problem}`);
    throw e;
  }
}

/** encode's --key-file and --encryption-algorithm: how the events after a START_ENCRYPTION are written. */
export function encryptionOptions(values: {
  'key-file'?: string;
  'key-file-key'?: string;
  'encryption-algorithm'?: string;
}): EncryptionOptions | undefined {
  const cipher = values['encryption-algorithm'];
  if (cipher !== undefined && !EVENT_CIPHERS.includes(cipher as EventCipherName)) {
    throw new UsageError(`--encryption-algorithm is ${EVENT_CIPHERS.join(' or ')}`);
  }
  const keys = encryptionKeys(values);
  if (!keys) {
    if (cipher !== undefined) throw new UsageError('--encryption-algorithm needs the --key-file it encrypts with');
    return undefined;
  }
  return { keys, cipher: cipher as EventCipherName | undefined };
}

/** The table definitions' options. */
type TableDefinitionValues = Parameters<typeof tableDefinitions>[0];

/**
 * The schema history a command reads with: seeded with the definitions the options give (and the
 * databases' character sets a schema file states), its lines said on stderr, and kept in
 * --schema-history's file as it changes.
 */
export function schemaHistory(values: TableDefinitionValues & { 'schema-history'?: string }): SchemaHistory {
  const file = values['schema-history'];
  return new SchemaHistory({
    ...schemaHistorySeed(values),
    record: file === undefined ? undefined : (entry) => appendFileSync(file, `${JSON.stringify(entry)}\n`),
  });
}

/** The schema history's seed the options give, its lines said on stderr. */
export function schemaHistorySeed(values: TableDefinitionValues): SchemaHistoryOptions {
  return {
    seed: tableDefinitions(values),
    databases: schemaFileDatabases(values),
    report: (line) => process.stderr.write(`binlog: ${line}\n`),
  };
}

/** The default character sets of the databases the --schema-file scripts create. */
function schemaFileDatabases(values: { 'schema-file'?: string[] }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const arg of values['schema-file'] ?? []) {
    Object.assign(out, databaseCharsetsFromSql(readOption(schemaFileArg(arg).file, '--schema-file')));
  }
  return out;
}

/** `[DB=]FILE.sql`: the file, and the database it names for tables created before any USE. */
function schemaFileArg(arg: string): { file: string; database?: string } {
  const named = existsSync(arg) ? undefined : /^([^=/]+)=(.+)$/s.exec(arg);
  return named ? { file: named[2]!, database: named[1] } : { file: arg };
}

/** The definitions of `[DB=]FILE.sql` that can be described (the others said on stderr). */
function schemaFile(arg: string): TableDefinitions {
  const { file, database } = schemaFileArg(arg);
  let all: TableDefinitions;
  try {
    all = tableDefinitionsFromSql(readOption(file, '--schema-file'), database);
  } catch (e) {
    if (e instanceof BinlogError) throw new UsageError(`--schema-file ${file}: ${e.problem}`);
    throw e;
  }
  const usable: TableDefinitions = {};
  for (const [table, sql] of Object.entries(all)) {
    try {
      resolveTableDefinitions({ [table]: sql });
      usable[table] = sql;
    } catch (e) {
      if (!(e instanceof BinlogError)) throw e;
      process.stderr.write(`binlog: --schema-file ${file}: ${e.problem}; its rows are read without a definition.\n`);
    }
  }
  return usable;
}

function readOption(file: string, option: string): string {
  return new TextDecoder().decode(readBytesOption(file, option));
}

function readBytesOption(file: string, option: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new UsageError(`${option}: ${(e as Error).message}`);
  }
}

function position(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`${option} takes a byte offset`);
  return Number(v);
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1 << 10, m: 1 << 20, g: 1 << 30 };

/** A size in bytes, or with K, M or G (binary multiples). */
function byteCount(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)([kmg]?)$/i.exec(v);
  if (!m) throw new UsageError(`${option} takes a size in bytes (or with K, M or G)`);
  return Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!;
}

/** 'YYYY-MM-DD[ HH:MM:SS]', UTC unless an offset is given, as Unix seconds. */
function datetime(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  const iso = v.trim().replace(' ', 'T');
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  if (Number.isNaN(t)) throw new UsageError(`${option} takes 'YYYY-MM-DD HH:MM:SS'`);
  return Math.floor(t / 1000);
}

/** Where a command writes a binlog (-o): `stream`, then `commit()` once all is written, or `abandon()`. */
export interface Output {
  stream: NodeJS.WritableStream;
  commit(): Promise<void>;
  abandon(): void;
}

/**
 * Standard output for `-`; else the file, written beside it and renamed by `commit()`, so that a failure
 * leaves no partial file.
 */
export function openOutput(path: string): Output {
  if (path === '-') return { stream: process.stdout, commit: async () => {}, abandon: () => {} };
  if (isDirectory(path)) throw new UsageError(`-o ${path} is a directory: give the binlog file to write`);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  const stream = createWriteStream(temp);
  return {
    stream,
    async commit() {
      await new Promise<void>((resolve, reject) => stream.end((e?: Error | null) => (e ? reject(e) : resolve())));
      renameSync(temp, path);
    },
    abandon() {
      stream.on('error', () => {}); // writes still queued fail once it is destroyed: nothing to report
      stream.destroy();
      rmSync(temp, { force: true });
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // not there yet: it is to be written
  }
}

export async function write(stream: NodeJS.WritableStream, bytes: Uint8Array): Promise<void> {
  if (!stream.write(bytes)) await once(stream, 'drain');
}

export function reportFailure(e: unknown, file: string): number {
  if (e instanceof ServerError || e instanceof ConnectionError || e instanceof SnapshotError) {
    // A connection's error may quote the server too (mysql2's words around what it sent), and none of it
    // may act on the terminal.
    process.stderr.write(`binlog: ${file}: ${printable(e.message)}\n`);
    return EXIT.server;
  }
  if (e instanceof BinlogError) {
    const hint =
      e instanceof ChecksumError
        ? ' (--no-verify-checksum reads it anyway; dump --on-error=skip keeps it raw and goes on)'
        : '';
    process.stderr.write(`binlog: ${file}: ${e.message}${hint}\n`);
    return EXIT.badInput;
  }
  const err = e as NodeJS.ErrnoException;
  // The reader of our output went away (`binlog dump f | head`): not a failure of ours.
  if (err.code === 'EPIPE') return EXIT.ok;
  if (err.code && err.syscall) {
    process.stderr.write(`binlog: ${file}: ${FILE_ERRORS[err.code] ?? err.message}\n`);
    return EXIT.io;
  }
  // A usage error or Ctrl-C at the prompt met on the way is the command line's to say (cli.ts).
  if (e instanceof UsageError || e instanceof PasswordPromptInterrupted) throw e;
  return internalError(e, file);
}

/**
 * A failure no typed error describes is a fault of binlog's own: it is said as a sentence that asks for a
 * report, and the stack, which a report needs, is shown when BINLOG_DEBUG is set.
 */
function internalError(e: unknown, file: string): number {
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`binlog: ${file}: an internal error stopped the command (please report it): ${message}\n`);
  if (process.env.BINLOG_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return EXIT.internal;
}

/** Node's file errors in words; the others keep Node's message. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'cannot open: no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'cannot open: permission denied',
  ENOTDIR: 'cannot open: a part of the path is not a directory',
};

/**
 * parseArgs for a command, its errors said plainly: an unknown option with the nearest known one, an
 * option without its value by name.
 */
export function parseCommand<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: T }>> {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const message = (e as Error).message;
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
      const near = nearest(option.replace(/^-+/, '').split('=')[0]!, Object.keys(options));
      throw new UsageError(`unknown option ${option}${near ? ` (did you mean --${near}?)` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option && /argument missing/.test(message))
      throw new UsageError(`${option} needs a value`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) throw new UsageError(`${option} takes no value`);
    throw e;
  }
}

/** The known name closest to `name`, when it is a likely misspelling of it (at most 2 edits, or a prefix). */
function nearest(name: string, known: string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = k.startsWith(name) && name.length >= 3 ? 1 : editDistance(name, k);
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

type FilterValues = {
  'start-position'?: string;
  'stop-position'?: string;
  'start-datetime'?: string;
  'stop-datetime'?: string;
  database?: string[];
  table?: string[];
  'case-insensitive-names'?: boolean;
  'max-transaction-size'?: string;
};

/** The filters the options give, over the files read (`-` for standard input). */
export function eventFilter(values: FilterValues, files: string[]): EventFilter {
  const last = files.at(-1);
  return {
    startPosition: position(values['start-position'], '--start-position'),
    stopPosition: position(values['stop-position'], '--stop-position'),
    // As mariadb-binlog: the start position is in the first file, the stop position in the last.
    stopFile: last === undefined || last === '-' ? undefined : basename(last),
    startTime: datetime(values['start-datetime'], '--start-datetime'),
    stopTime: datetime(values['stop-datetime'], '--stop-datetime'),
    database: values.database,
    table: values.table,
    ignoreCase: values['case-insensitive-names'],
    maxTransactionSize: byteCount(values['max-transaction-size'], '--max-transaction-size'),
  };
}

/** Says on stderr each --database and --table that no event read named; whether there was one. */
export function sayUnmatched(selection: EventSelection): boolean {
  const { databases, tables } = selection.unmatched();
  for (const d of databases) process.stderr.write(`binlog: --database=${d}: no event read names this database.\n`);
  for (const t of tables) process.stderr.write(`binlog: --table=${t}: no event read names this table.\n`);
  return databases.length + tables.length > 0;
}

/**
 * The events of dump-format JSON lines (a file, or - for standard input), each with its JSON path in the
 * input (`line 7: $`); `read.lineNo` follows the line being read, for errors that name none. A line that
 * `takeLine` takes (a line that is no event) is not given as an event.
 */
export async function* jsonLineEvents(
  input: string,
  read = { lineNo: 0 },
  takeLine: (json: unknown, source: string) => boolean = () => false,
): AsyncGenerator<{ event: BinlogEventInput; source: string }> {
  const lines = createInterface({
    input: input === '-' ? process.stdin : createReadStream(input),
    crlfDelay: Infinity,
  });
  for await (const line of lines) {
    read.lineNo++;
    if (line.trim() === '') continue;
    const source = `line ${read.lineNo}: $`;
    const json = parseLine(line, read.lineNo);
    if (!takeLine(json, source)) yield { event: eventFromJson(json, source), source };
  }
}

function parseLine(line: string, lineNo: number): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new BinlogError('encode', `not JSON: ${(e as Error).message}`, { offset: -1, schemaPath: `line ${lineNo}` });
  }
}
