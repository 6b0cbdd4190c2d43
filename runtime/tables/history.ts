/**
 * The schema history: the definitions of the tables at each point of a binlog, so that every TABLE_MAP is
 * read with its table's definition at that point, not the one of the moment a schema file was taken.
 * It starts from the caller's definitions (a `--schema-file`: those at the first file's start) or from
 * none, and each table-shaping QUERY event (ddl.ts) changes it, in order, with the event's default
 * database. The registry (registry.ts) asks it for a TABLE_MAP's definition and checks the one it gets;
 * a definition a TABLE_MAP contradicts leaves the history, and a statement that cannot be read leaves the
 * tables it names unknown from there: both are said once, and never guessed.
 *
 * Each change is recorded by position (file, offset, the GTID where the server logs one) as a JSON line
 * (HistoryEntry), which `SchemaHistory.load` replays: the definitions at any position are those of the
 * entries before it.
 */
import type { ColumnDef } from './table-types.js';
import { TableDefinitionError } from './table-types.js';
import { parseTableSql, resolveTableDefinitions } from './definitions.js';
import type { TableDefinition, TableDefinitionInput, TableDefinitions } from './definitions.js';
import { DdlError, readDdl, type AlterClause, type DdlChange, type Place, type TableName } from './ddl.js';
import { charsetOf } from '../values/charsets.js';
import { collationId } from './sqltypes.js';

/** Where a change happened: the binlog file, the event's offset, and the transaction's GTID when known. */
export interface HistoryPosition {
  file?: string;
  pos: number;
  gtid?: string;
}

/**
 * One change of the history, as `--schema-history` keeps it (one JSON line each): the statement and its
 * default database, and each table it changed, as its CREATE TABLE statement or null when it is gone. The
 * tables a statement left unknown are listed apart, and database default character sets by name.
 */
export interface HistoryEntry extends HistoryPosition {
  statement: string;
  schema: string;
  tables: Record<string, string | null>;
  unknown?: string[];
  databases?: Record<string, string | null>;
}

/**
 * A table in the history: its definition, or unknown, and the statement that last changed it. A
 * definition loaded as CREATE TABLE text is read when it is first asked for, so that loading a long
 * history reads only the tables still asked about.
 */
class Known {
  private read?: TableDefinitionInput | 'unknown';
  resolved?: TableDefinition;

  constructor(
    private readonly given: TableDefinitionInput | 'unknown' | string,
    private readonly qualified: string,
    /** The DDL that last shaped it, as the mismatch line names it. */
    readonly source: string,
  ) {}

  get definition(): TableDefinitionInput | 'unknown' {
    const given = this.given;
    return (this.read ??=
      typeof given === 'string' && given !== 'unknown' ? parseTableSql(given, this.qualified) : given);
  }
}

export interface SchemaHistoryOptions {
  /** The definitions at the start (`--schema-file`, `tableDefinitions`). */
  seed?: TableDefinitions;
  /** The databases' default character sets at the start (a schema file's CREATE DATABASE statements). */
  databases?: Record<string, string>;
  /** Where the lines for people go: a definition a TABLE_MAP contradicts, a statement not read. */
  report?: (line: string) => void;
  /** Each change as it happens, to be kept (`--schema-history=FILE`). */
  record?: (entry: HistoryEntry) => void;
}

/** The part of MariaDB's two-phase ALTER a GTID event's flags say its QUERY is. */
export type AlterPhase = 'start' | 'commit' | 'rollback';

const SEED_SOURCE = 'the definitions given at the start';

export class SchemaHistory {
  private readonly tables = new Map<string, Known>();
  private readonly charsets = new Map<string, string>();
  private readonly entries: HistoryEntry[] = [];
  private readonly report: (line: string) => void;
  private readonly record?: (entry: HistoryEntry) => void;
  private gtidOf: string | undefined;
  private alterPhase: AlterPhase | undefined;
  /** Grows with every change, so that the registry reads a same-bytes TABLE_MAP again after one. */
  generation = 0;
  /** The TABLE_MAPs whose table's definition they contradicted (each such definition left the history). */
  contradictions = 0;

  constructor(options: SchemaHistoryOptions = {}) {
    this.report = options.report ?? (() => {});
    this.record = options.record;
    for (const [name, charset] of Object.entries(options.databases ?? {})) this.charsets.set(name, charset);
    for (const [qualified, def] of Object.entries(options.seed ?? {})) {
      this.tables.set(qualified, new Known(def, qualified, SEED_SOURCE));
    }
  }

  /** How many tables have a definition (the registry looks none up while there are none). */
  get size(): number {
    return this.tables.size;
  }

  /** The definition of 'schema.table' now, resolved; undefined when there is none or it is unknown. */
  get(qualified: string): TableDefinition | undefined {
    const known = this.tables.get(qualified);
    if (!known || known.definition === 'unknown') return undefined;
    try {
      known.resolved ??= resolveTableDefinitions({ [qualified]: known.definition }).get(qualified);
    } catch (e) {
      if (!(e instanceof TableDefinitionError)) throw e;
      this.forget(qualified, `${e.message}; its rows are read without a definition`);
      return undefined;
    }
    return known.resolved;
  }

  /** The definitions now, as inputs, by 'schema.table' (unknown tables left out). */
  definitions(): Map<string, TableDefinitionInput> {
    const out = new Map<string, TableDefinitionInput>();
    for (const [name, known] of this.tables) if (known.definition !== 'unknown') out.set(name, known.definition);
    return out;
  }

  /** The changes so far, in order. */
  get changes(): readonly HistoryEntry[] {
    return this.entries;
  }

  /**
   * A TABLE_MAP contradicts the table's definition: the definition leaves the history, said in one line
   * naming the table, the column and the statement that last shaped it.
   */
  contradicted(qualified: string, error: TableDefinitionError): void {
    const source = this.tables.get(qualified)?.source ?? SEED_SOURCE;
    this.contradictions++;
    const after = 'it leaves the schema history and its rows are read without one';
    this.forget(qualified, `${error.message} (the definition from ${source}); ${after}`);
  }

  /** Whether the history has the table, with a definition or as unknown. */
  has(qualified: string): boolean {
    return this.tables.has(qualified);
  }

  /**
   * A definition learnt outside the binlog (information_schema's columns, read at the table's TABLE_MAP)
   * for a table the history does not have: kept as a DDL's change is, and checked against the TABLE_MAP
   * like any definition, so that the table as it is now never labels rows it does not fit.
   */
  learn(qualified: string, definition: TableDefinitionInput, at: HistoryPosition, statement: string): void {
    this.set(qualified, definition, statement);
    this.commit({ ...at, statement, schema: '', tables: { [qualified]: createTableSql(qualified, definition) } });
  }

  /**
   * A GTID event: the transaction the next statements belong to (undefined for MySQL's anonymous one, which
   * has none), and, under MariaDB's binlog_alter_two_phase, which part of a two-phase ALTER its one QUERY is.
   */
  gtid(gtid: string | undefined, alterPhase?: AlterPhase): void {
    this.gtidOf = gtid;
    this.alterPhase = alterPhase;
  }

  /** A QUERY event: its statement, if it shapes tables, changes the history at its position. */
  query(statement: string, schema: string, at: HistoryPosition, serverCollation?: number): void {
    // A START ALTER only announces the ALTER: rows logged before its COMMIT ALTER still have the old shape,
    // and a ROLLBACK ALTER means the table never changed. The COMMIT ALTER holds the same statement.
    if (this.alterPhase === 'start' || this.alterPhase === 'rollback') return;
    let change: DdlChange | undefined;
    try {
      change = readDdl(statement);
    } catch (e) {
      if (!(e instanceof DdlError)) throw e;
      this.unreadable(statement, schema, at, e);
      return;
    }
    if (!change || change.kind === 'truncate') return;
    const gtid = this.gtidOf && at.gtid === undefined ? { gtid: this.gtidOf } : {};
    const entry: HistoryEntry = { ...at, ...gtid, statement, schema, tables: {} };
    const source = `the statement at ${at.file ? `${at.file}:` : ''}${at.pos} (${brief(statement)})`;
    try {
      const serverCharset = serverCollation === undefined ? undefined : charsetOf(serverCollation);
      new Replay(this, entry, source, schema, serverCharset).apply(change);
    } catch (e) {
      if (!(e instanceof DdlError || e instanceof TableDefinitionError)) throw e;
      this.unreadable(statement, schema, at, new DdlError(e.message, namesOf(change)));
      return;
    }
    this.commit(entry);
  }

  /** The tables a statement names become unknown, said once for the statement. */
  private unreadable(statement: string, schema: string, at: HistoryPosition, e: DdlError): void {
    const unknown = e.tables.map((n) => qualify(n, schema));
    for (const name of unknown) this.tables.set(name, new Known('unknown', name, brief(statement)));
    const where = at.file ? `${at.file}:${at.pos}` : `${at.pos}`;
    const said = `: ${unknown.join(', ')} unknown from here, their rows read without a definition`;
    const tables = unknown.length ? said : '';
    this.report(`schema history: the statement at ${where} (${brief(statement)}) is not read (${e.problem})${tables}`);
    this.commit({ ...at, statement, schema, tables: {}, unknown });
  }

  private commit(entry: HistoryEntry): void {
    this.generation++;
    this.entries.push(entry);
    this.record?.(entry);
  }

  private forget(qualified: string, line: string): void {
    this.tables.delete(qualified);
    this.generation++;
    this.report(line);
  }

  /** The table's state now (for Replay). */
  known(qualified: string): Known | undefined {
    return this.tables.get(qualified);
  }

  /** Sets or removes a table (for Replay and load). */
  set(qualified: string, definition: TableDefinitionInput | 'unknown' | string | null, source: string): void {
    if (definition === null) this.tables.delete(qualified);
    else this.tables.set(qualified, new Known(definition, qualified, source));
  }

  databaseCharset(schema: string): string | undefined {
    return this.charsets.get(schema);
  }

  setDatabaseCharset(schema: string, charset: string | null): void {
    if (charset === null) this.charsets.delete(schema);
    else this.charsets.set(schema, charset);
  }

  /**
   * The history kept by `--schema-history` (JSON Lines of HistoryEntry), replayed up to `before` (the
   * entries at positions before it; all of them without it). File names compare as the servers number
   * them (binlog.000002 after binlog.000001).
   */
  static load(lines: string, before?: HistoryPosition, options: SchemaHistoryOptions = {}): SchemaHistory {
    const entries = lines.split('\n').filter((line) => line.trim() !== '');
    return SchemaHistory.replayed(
      entries.map((line) => JSON.parse(line) as HistoryEntry),
      before,
      options,
    );
  }

  /** The history of kept entries (in their order), replayed up to `before` as `load` does. */
  static replayed(entries: Iterable<HistoryEntry>, before?: HistoryPosition, options: SchemaHistoryOptions = {}) {
    const history = new SchemaHistory(options);
    for (const entry of entries) {
      if (before && !isBefore(entry, before)) break;
      history.replay(entry);
    }
    return history;
  }

  /**
   * The definitions now as one entry at `at`, which replayed gives them all: what a history seeded by its
   * caller keeps first, so that a later start from the kept entries needs no seed.
   */
  snapshot(at: HistoryPosition, statement: string): HistoryEntry {
    const tables: Record<string, string> = {};
    for (const [name, def] of this.definitions()) tables[name] = createTableSql(name, def);
    const unknown = [...this.tables].filter(([, known]) => known.definition === 'unknown').map(([name]) => name);
    const databases = Object.fromEntries(this.charsets);
    return { ...at, statement, schema: '', tables, ...(unknown.length ? { unknown } : {}), databases };
  }

  /** One kept entry replayed: its tables as it recorded them. */
  private replay(entry: HistoryEntry): void {
    const source = `the statement at ${entry.file ? `${entry.file}:` : ''}${entry.pos} (${brief(entry.statement)})`;
    for (const [name, sql] of Object.entries(entry.tables)) this.set(name, sql, source);
    for (const name of entry.unknown ?? []) this.set(name, 'unknown', source);
    for (const [name, charset] of Object.entries(entry.databases ?? {})) this.setDatabaseCharset(name, charset);
    this.generation++;
    this.entries.push(entry);
  }
}

/** Whether an entry's position comes before `at`. */
export function isBefore(entry: HistoryPosition, at: HistoryPosition): boolean {
  if (entry.file !== undefined && at.file !== undefined && entry.file !== at.file) return entry.file < at.file;
  return entry.pos < at.pos;
}

/** A statement's first words, for a line that names it. */
function brief(statement: string): string {
  const flat = statement.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

/** 'schema.table' of a name, a bare one in the default database. */
function qualify(name: TableName, schema: string): string {
  return `${name.schema ?? schema}.${name.table}`;
}

function namesOf(change: DdlChange): TableName[] {
  switch (change.kind) {
    case 'create':
    case 'like':
    case 'alter':
    case 'truncate':
      return [change.table];
    case 'rename':
      return change.pairs.flat();
    case 'drop':
      return change.tables;
    case 'database':
      return [];
  }
}

/** One statement's change applied to the history, each table it changes recorded in its entry. */
class Replay {
  constructor(
    private readonly history: SchemaHistory,
    private readonly entry: HistoryEntry,
    private readonly source: string,
    private readonly schema: string,
    private readonly serverCharset: string | undefined,
  ) {}

  /** The character set of a table or database created without one: its database's, else the server's. */
  private defaultCharset(schema: string): string | undefined {
    return this.history.databaseCharset(schema) ?? this.serverCharset;
  }

  apply(change: DdlChange): void {
    switch (change.kind) {
      case 'create':
        return this.create(change.table, change.definition, change.ifNotExists);
      case 'like':
        return this.like(change.table, change.source, change.ifNotExists);
      case 'alter':
        return this.alter(change.table, change.clauses);
      case 'rename':
        return change.pairs.forEach(([from, to]) => this.move(qualify(from, this.schema), qualify(to, this.schema)));
      case 'drop':
        return change.tables.forEach((t) => this.put(qualify(t, this.schema), null));
      case 'truncate':
        return;
      case 'database':
        return this.database(change);
    }
  }

  private put(qualified: string, definition: TableDefinitionInput | null): void {
    if (definition === null && this.history.known(qualified) === undefined) return;
    this.history.set(qualified, definition, this.source);
    this.entry.tables[qualified] = definition === null ? null : createTableSql(qualified, definition);
  }

  private create(name: TableName, definition: TableDefinitionInput, ifNotExists: boolean): void {
    const qualified = qualify(name, this.schema);
    if (ifNotExists && this.history.known(qualified) !== undefined) return;
    const inherited = definition.collation === undefined ? this.defaultCharset(name.schema ?? this.schema) : undefined;
    const charset = definition.charset ?? inherited;
    // The definition must describe a table the servers would create: it is checked now, not at its TABLE_MAP.
    const input = { ...definition, ...(charset ? { charset } : {}) };
    resolveTableDefinitions({ [qualified]: input });
    this.put(qualified, input);
  }

  private like(name: TableName, source: TableName, ifNotExists: boolean): void {
    const qualified = qualify(name, this.schema);
    if (ifNotExists && this.history.known(qualified) !== undefined) return;
    const from = this.history.known(qualify(source, this.schema));
    if (!from || from.definition === 'unknown') {
      throw new DdlError('CREATE TABLE … LIKE a table without a known definition', [name]);
    }
    this.put(qualified, structuredClone(from.definition));
  }

  private move(from: string, to: string): void {
    const known = this.history.known(from);
    if (!known) return;
    this.put(from, null);
    if (known.definition === 'unknown') {
      this.history.set(to, 'unknown', this.source);
      (this.entry.unknown ??= []).push(to);
    } else this.put(to, known.definition);
  }

  private alter(name: TableName, clauses: AlterClause[]): void {
    const qualified = qualify(name, this.schema);
    const known = this.history.known(qualified);
    // A table the history does not know, or knows to be unknown (said once already), stays so.
    if (!known || known.definition === 'unknown') return;
    const def: TableDefinitionInput = structuredClone(known.definition);
    let target = qualified;
    for (const clause of clauses) {
      if (clause.op === 'rename') target = qualify(clause.to, this.schema);
      else alterDefinition(def, clause, qualified);
    }
    // The clauses must leave a table the servers could have: one that cannot be described is unknown from here.
    resolveTableDefinitions({ [target]: def });
    if (target !== qualified) this.put(qualified, null);
    this.put(target, def);
  }

  private database(change: Extract<DdlChange, { kind: 'database' }>): void {
    const name = change.name ?? this.schema;
    const stated = change.charset ?? (change.collation ? charsetOfCollation(change.collation) : undefined);
    const charset = stated ?? (change.action === 'create' ? this.serverCharset : undefined);
    if (change.action === 'drop') {
      this.history.setDatabaseCharset(name, null);
      (this.entry.databases ??= {})[name] = null;
      for (const [qualified] of this.history.definitions()) {
        if (qualified.startsWith(`${name}.`)) this.put(qualified, null);
      }
      return;
    }
    if (charset === undefined) return;
    this.history.setDatabaseCharset(name, charset);
    (this.entry.databases ??= {})[name] = charset;
  }
}

function charsetOfCollation(collation: string): string {
  const id = collationId(collation);
  return id === undefined ? collation.split('_')[0]! : (charsetOf(id) ?? collation.split('_')[0]!);
}

/** An ALTER TABLE clause applied to a definition (a copy the caller owns). */
type ColumnClause = Exclude<AlterClause, { op: 'rename' }>;

function alterDefinition(def: TableDefinitionInput, clause: ColumnClause, qualified: string): void {
  const index = (name: string) => def.columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  const fail = (problem: string, column?: string): never => {
    throw new TableDefinitionError(problem, qualified, column);
  };
  switch (clause.op) {
    case 'add': {
      if (index(clause.column.name) >= 0) {
        if (clause.ifNotExists) return;
        fail('ADD of a column it has', clause.column.name);
      }
      place(def.columns, clause.column, clause.place, def.columns.length, fail);
      if (clause.primaryKey) def.primaryKey = [clause.column.name];
      return;
    }
    case 'drop': {
      const at = index(clause.column);
      if (at < 0) return clause.ifExists ? undefined : fail('DROP of a column it does not have', clause.column);
      def.columns.splice(at, 1);
      def.primaryKey = keyList(def.primaryKey).filter((k) => k.toLowerCase() !== clause.column.toLowerCase());
      return;
    }
    case 'modify': {
      const at = index(clause.from);
      if (at < 0) return clause.ifExists ? undefined : fail('MODIFY or CHANGE of a column it lacks', clause.from);
      def.columns.splice(at, 1);
      place(def.columns, clause.column, clause.place, at, fail);
      def.primaryKey = renamedKey(def.primaryKey, clause.from, clause.column.name);
      if (clause.primaryKey) def.primaryKey = [clause.column.name];
      return;
    }
    case 'rename-column': {
      const at = index(clause.from);
      if (at < 0) return fail('RENAME COLUMN of a column it does not have', clause.from);
      def.columns[at] = { ...def.columns[at]!, name: clause.to };
      def.primaryKey = renamedKey(def.primaryKey, clause.from, clause.to);
      return;
    }
    case 'primary-key':
      def.primaryKey = clause.columns;
      return;
    case 'drop-primary-key':
      // The key's columns stay NOT NULL, as the key made them.
      for (const k of keyList(def.primaryKey)) {
        const c = def.columns[index(k)];
        if (c && !/\bNOT\s+NULL\b/i.test(c.type)) c.type += ' NOT NULL';
      }
      def.primaryKey = undefined;
      return;
    case 'convert':
      return convert(def, qualified, clause.charset, clause.collation);
    case 'options':
      return tableDefaults(def, qualified, clause.options);
  }
}

const keyList = (pk: string | string[] | undefined) => (pk === undefined ? [] : typeof pk === 'string' ? [pk] : pk);

/** The primary key's columns, one renamed. */
const renamedKey = (pk: string | string[] | undefined, from: string, to: string) =>
  keyList(pk).map((k) => (k.toLowerCase() === from.toLowerCase() ? to : k));

/** Inserts a column at its place: first, after a column, or at `otherwise`. */
type Fail = (problem: string, column?: string) => never;

function place(columns: ColumnDef[], column: ColumnDef, where: Place, otherwise: number, fail: Fail): void {
  let at = otherwise;
  if (where === 'first') at = 0;
  else if (where) {
    const after = columns.findIndex((c) => c.name.toLowerCase() === where.after.toLowerCase());
    if (after < 0) fail(`AFTER a column it does not have (${where.after})`, column.name);
    at = after + 1;
  }
  columns.splice(at, 0, column);
}

/** A character set or collation clause in a column type. */
const CHARSET_CLAUSE = /\s+(?:CHARACTER\s+SET|CHARSET)\s+\S+|\s+COLLATE\s+\S+/gi;

/** The character columns (not binary strings) of a definition, by index. */
function textColumns(def: TableDefinitionInput, qualified: string): number[] {
  const table = resolveTableDefinitions({ [qualified]: def }).get(qualified)!.table;
  const text = table.columns.filter(
    (c) => c.collation !== undefined && c.charset !== 'binary' && c.kind !== 'geometry',
  );
  return text.map((c) => c.index);
}

/** CONVERT TO CHARACTER SET: every character column, and the table's default, in the new one. */
function convert(def: TableDefinitionInput, qualified: string, charset: string, collation: string | undefined): void {
  for (const i of textColumns(def, qualified)) {
    def.columns[i] = { ...def.columns[i]!, type: def.columns[i]!.type.replace(CHARSET_CLAUSE, '') };
  }
  def.charset = charset;
  def.collation = collation;
}

/**
 * New table options: the default character set then applies to the columns added later only, so the
 * columns that had the old default are given it as their own first.
 */
function tableDefaults(def: TableDefinitionInput, qualified: string, options: Partial<TableDefinitionInput>): void {
  if (options.charset !== undefined || options.collation !== undefined) {
    const table = resolveTableDefinitions({ [qualified]: def }).get(qualified)!.table;
    for (const c of table.columns) {
      if (c.collation === undefined || c.ownCharset || c.charset === 'binary' || c.kind === 'geometry') continue;
      const column = def.columns[c.index]!;
      def.columns[c.index] = { ...column, type: `${column.type} CHARACTER SET ${c.charset}` };
    }
    def.charset = options.charset;
    def.collation = options.collation;
  }
  if (options.engine !== undefined) def.engine = options.engine;
  if (options.rowFormat !== undefined) def.rowFormat = options.rowFormat;
}

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;

/** A definition as the CREATE TABLE statement that parseTableSql reads back to it. */
export function createTableSql(qualified: string, def: TableDefinitionInput): string {
  const dot = qualified.indexOf('.');
  const lines = def.columns.map((c) => `  ${quote(c.name)} ${c.type}`);
  const pk = keyList(def.primaryKey);
  if (pk.length) lines.push(`  PRIMARY KEY (${pk.map(quote).join(', ')})`);
  const options = [
    def.engine ? ` ENGINE=${def.engine}` : '',
    def.rowFormat ? ` ROW_FORMAT=${def.rowFormat}` : '',
    def.charset ? ` DEFAULT CHARSET=${def.charset}` : '',
    def.collation !== undefined ? ` COLLATE=${def.collation}` : '',
  ].join('');
  const name = `${quote(qualified.slice(0, dot))}.${quote(qualified.slice(dot + 1))}`;
  return `CREATE TABLE ${name} (\n${lines.join(',\n')}\n)${options}`;
}
