/**
 * Writing binlogs from a description in SQL terms, for tests: tables given by their SQL column types,
 * rows as plain objects in the value forms the decoder returns, and statements, written as a MariaDB 10.11
 * server writes them (FORMAT_DESCRIPTION, GTID_LIST, BINLOG_CHECKPOINT, then per transaction GTID,
 * QUERY or ANNOTATE_ROWS + TABLE_MAP + row events v1, XID). The builder derives the column types, their
 * metadata and the full optional metadata (binlog_row_metadata=FULL), table ids, GTIDs and XIDs; the
 * EventEncoder derives event sizes, positions and checksums.
 *
 * The facts about SQL types (column type, metadata, value limits, bytes per character of each character
 * set, collation names) are data: schemas/sqltypes.yaml, emitted into generated/sqltypes.ts.
 *
 * Three ways to get the bytes: `toBytes()` / `writeTo(path)` keep the whole file in memory; a `sink`
 * receives each event's bytes as it is written and nothing is kept; `writeBinlog(ops)` turns an
 * (async) iterable of operations into an async iterable of byte chunks, holding one event at a time.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { CellLayouts } from '../generated/columns.js';
import type { FormatDescriptionEventInput } from '../generated/control.js';
import { type EventBodyInput, EventTypes } from '../generated/events.js';
import { BINLOG_MAGIC, EventFlags } from '../generated/header.js';
import { type GtidEventInput, GtidFlags, type GtidListEntryInput } from '../generated/mariadb.js';
import type { QueryEventStatusVarsEntryInput } from '../generated/query.js';
import { ColumnType, type ColumnTypeName, GeometryType, type GeometryTypeName, RowImages, type RowsEventInput, RowsFlags, type TableMapEventInput, type TableMapEventOptionalMetadataEntryInput, TableMapFlags } from '../generated/rows.js';
import { Charsets, Collations, SqlType, type SqlTypeName, SqlTypes } from '../generated/sqltypes.js';
import { beyondBmp, charsetOf, decodeText, encodableText, encodeText } from '../runtime/values/charsets.js';
import { BinlogError, EncodeError } from '../runtime/core/errors.js';
import { type BinlogEventInput, EventEncoder } from '../runtime/events/event-codec.js';
import type { Text } from '../runtime/core/reader.js';
import { encodeRows } from '../runtime/rows/images.js';
import { Writer } from '../runtime/core/writer.js';
import type { CellValue, Row, RowChange } from '../runtime/core/values.js';
import type { HintFn } from '../runtime/values/column.js';

// ---- what a server writes that no statement changes ---------------------------------------------------

/** The server a builder imitates. */
export type ServerProfileName = 'mariadb-10.11';

interface ServerProfile {
  serverVersion: string;
  postHeaderLengths: readonly number[];
  /** QUERY's Q_FLAGS2_CODE, Q_SQL_MODE_CODE, Q_CATALOG_NZ_CODE and Q_CHARSET_CODE values. */
  flags2: number;
  sqlMode: bigint;
  catalog: string;
  charset: { characterSetClient: number; collationConnection: number; collationServer: number };
}

const PROFILES: Record<ServerProfileName, ServerProfile> = {
  'mariadb-10.11': {
    serverVersion: '10.11.19-MariaDB-log',
    // The FORMAT_DESCRIPTION post-header lengths (by type code - 1, 171 types up to PARTIAL_ROW_DATA) of a
    // real MariaDB 10.11.19 server: copied from the FDE of test/fixtures/sample.bin
    // (`binlog dump test/fixtures/sample.bin | head -1`).
    postHeaderLengths: [
      56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10,
      0, 0, 0, 0, 0, 0, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10,
    ],
    // The session state every QUERY event of test/fixtures/sample.bin carries: flags2 (the OPTION_* bits
    // a default session has), the default sql_mode of 10.11 (STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO,
    // NO_AUTO_CREATE_USER, NO_ENGINE_SUBSTITUTION), the catalog, and the client's utf8mb4 (45) with the
    // server's compiled-in latin1 (8).
    flags2: 16777216,
    sqlMode: 1411383296n,
    catalog: 'std',
    charset: { characterSetClient: 45, collationConnection: 45, collationServer: 8 },
  },
};

/** binlog_row_event_max_size's default: a row event is closed before it would grow past this. */
const ROWS_EVENT_MAX_SIZE = 8192;
/** ROWS_HEADER_LEN_V1: table id (6) and flags (2). */
const ROWS_POST_HEADER_V1 = 8;

// ---- errors -----------------------------------------------------------------------------------------------

/** A table definition the builder cannot describe (an unknown type, a bad parameter, a bad key). */
export class TableDefinitionError extends EncodeError {
  readonly table: string;
  readonly column: string | undefined;
  /** The problem alone, without the table and column the message names. */
  readonly reason: string;
  constructor(reason: string, table: string, column?: string) {
    super(`table ${table}${column !== undefined ? `, column ${column}` : ''}: ${reason}`, column !== undefined ? `${table}.${column}` : table);
    this.table = table;
    this.column = column;
    this.reason = reason;
  }
}

/** A row value that its column cannot hold (out of range, too long, not a member, not NULL-able …). */
export class RowValueError extends EncodeError {
  readonly table: string;
  readonly column: string;
  /** Index of the row in the statement's rows (0-based). */
  readonly row: number;
  /** Which image of an UPDATE row, when it is one. */
  readonly image: 'before' | 'after' | undefined;
  readonly value: unknown;
  /** The problem alone, without the table, row and column the message names. */
  readonly reason: string;
  constructor(reason: string, where: RowSite, column: string, value: unknown) {
    const image = where.image ? ` (${where.image} image)` : '';
    super(`table ${where.table}, row ${where.row}${image}, column ${column}: ${reason}`, `${where.table}[${where.row}]${where.image ? `.${where.image}` : ''}.${column}`);
    this.reason = reason;
    this.table = where.table;
    this.column = column;
    this.row = where.row;
    this.image = where.image;
    this.value = value;
  }
}

/** Where a row comes from, for its errors. */
interface RowSite {
  table: string;
  row: number;
  image?: 'before' | 'after';
}

// ---- table definitions ----------------------------------------------------------------------------------

export interface ColumnDef {
  name: string;
  /**
   * The SQL type as CREATE TABLE writes it: 'int unsigned', 'decimal(10,2)', 'varchar(255)',
   * "enum('a','b')", 'datetime(6)', 'json', 'point' … It may carry UNSIGNED, ZEROFILL, CHARACTER SET,
   * COLLATE, NULL and NOT NULL as well.
   */
  type: string;
  /** May the column be NULL (default: yes, unless it is part of the primary key). */
  nullable?: boolean;
  unsigned?: boolean;
  /** Character set of a character column (default: the table's). */
  charset?: string;
  /** Collation of a character column, by name or id (default: its character set's default). */
  collation?: string | number;
  /** The value of a row that leaves the column out (default: NULL, when the column may be NULL). */
  default?: CellValue;
}

export interface TableDef {
  schema: string;
  name: string;
  columns: ColumnDef[];
  /** Column name(s) of the primary key, in key order. */
  primaryKey?: string | string[];
  /** Default character set of the table's character columns (default utf8mb4). */
  charset?: string;
  collation?: string | number;
  /** Storage engine (default InnoDB). MyISAM, Aria and MEMORY tables are not transactional. */
  engine?: string;
}

type Kind = 'int' | 'float' | 'decimal' | 'date' | 'time' | 'datetime' | 'timestamp' | 'year' | 'bit' | 'enum' | 'set' | 'char' | 'varchar' | 'blob' | 'geometry';

/** One entry of the SqlTypes table (schemas/sqltypes.yaml), all its keys optional. */
interface SqlTypeFacts {
  kind: Kind;
  columnType: ColumnTypeName;
  realType?: ColumnTypeName;
  bytes?: number;
  packLength?: number;
  maxPrecision?: number;
  maxScale?: number;
  defaultPrecision?: number;
  maxFsp?: number;
  maxHours?: number;
  maxSeconds?: number;
  minYear?: number;
  maxYear?: number;
  alwaysUnsigned?: boolean;
  maxBits?: number;
  maxMembers?: number;
  defaultLength?: number;
  maxLength?: number;
  maxBytes?: number;
  binary?: boolean;
  charset?: string;
  collation?: string;
  json?: boolean;
  geometryType?: GeometryTypeName;
  alias?: SqlTypeName;
}

/** A column as the builder writes it: its SQL definition and everything TABLE_MAP says about it. */
export interface BuiltColumn {
  index: number;
  name: string;
  /** The SQL type, canonical: 'VARCHAR(40)', 'INT UNSIGNED', "ENUM('a','b')". */
  sqlType: string;
  kind: Kind;
  /** The type TABLE_MAP logs, and the real type (ENUM, SET, STRING) behind STRING. */
  columnType: number;
  realType: number;
  /** The column's TABLE_MAP metadata. */
  metadata: NonNullable<TableMapEventInput['columnMetadata']>[number];
  nullable: boolean;
  unsigned: boolean;
  /** Counted by SIGNEDNESS. */
  numeric: boolean;
  /** Counted by DEFAULT_CHARSET / COLUMN_CHARSET (character and binary strings, geometry). */
  character: boolean;
  /** Collation id and character set of character, ENUM and SET columns (63, binary, for bytes). */
  collation?: number;
  charset?: string;
  /** ENUM and SET members. */
  members?: string[];
  geometryType?: number;
  default?: CellValue;
  /** The column's limits: characters or bytes of a string, precision and scale, fsp, bits. */
  length?: number;
  maxBytes?: number;
  precision?: number;
  scale?: number;
  fsp?: number;
  bits?: number;
  json?: boolean;
}

const NON_TRANSACTIONAL_ENGINES = new Set(['myisam', 'aria', 'memory', 'heap', 'csv', 'archive', 'merge', 'mrg_myisam', 'blackhole']);

/** A table described for the builder: its columns resolved, its DDL and its TABLE_MAP at hand. */
export class Table {
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly BuiltColumn[];
  /** Primary key columns, by index, in key order. */
  readonly primaryKey: readonly number[];
  readonly engine: string;
  readonly transactional: boolean;
  /** `schema.name`. */
  readonly qualified: string;
  private readonly byName: Map<string, BuiltColumn>;
  private ddlText: string | undefined;

  constructor(def: TableDef) {
    this.schema = def.schema;
    this.name = def.name;
    this.qualified = `${def.schema}.${def.name}`;
    this.engine = def.engine ?? 'InnoDB';
    this.transactional = !NON_TRANSACTIONAL_ENGINES.has(this.engine.toLowerCase());
    const fail = (problem: string, column?: string): never => {
      throw new TableDefinitionError(problem, this.qualified, column);
    };
    if (!def.columns?.length) fail('a table needs at least one column');
    const pk = def.primaryKey === undefined ? [] : typeof def.primaryKey === 'string' ? [def.primaryKey] : def.primaryKey;
    const tableCharset = resolveCharset(def.charset, def.collation, (p) => fail(p));
    const seen = new Set<string>();
    this.columns = def.columns.map((c, index) => {
      const key = c.name.toLowerCase();
      if (seen.has(key)) fail('is defined twice', c.name);
      seen.add(key);
      return describeColumn(c, index, pk.some((k) => k.toLowerCase() === key), tableCharset, (p) => fail(p, c.name));
    });
    this.byName = new Map(this.columns.map((c) => [c.name, c]));
    this.primaryKey = pk.map((k) => {
      const c = this.columns.find((x) => x.name.toLowerCase() === k.toLowerCase());
      if (!c) return fail(`the primary key names '${k}', which is not a column`);
      if (c.kind === 'blob' || c.kind === 'geometry') fail(`a ${c.sqlType} column cannot be a whole primary key part`, c.name);
      return c.index;
    });
    if (new Set(this.primaryKey).size !== this.primaryKey.length) fail('the primary key names a column twice');
  }

  column(name: string): BuiltColumn | undefined {
    return this.byName.get(name);
  }

  /** CREATE TABLE for the table, every character column with its character set and collation. */
  get ddl(): string {
    this.ddlText ??= createTableSql(this);
    return this.ddlText;
  }

  /** The TABLE_MAP event body a MariaDB 10.11 server writes for the table. */
  tableMap(tableId: number, rowMetadata: RowMetadata = 'FULL'): TableMapEventInput & { type: 'TABLE_MAP_EVENT' } {
    return {
      type: 'TABLE_MAP_EVENT',
      tableId,
      flags: TableMapFlags.TM_BIT_LEN_EXACT_F,
      schemaName: this.schema,
      tableName: this.name,
      columnTypes: this.columns.map((c) => c.columnType),
      columnMetadata: this.columns.map((c) => c.metadata),
      nullable: this.columns.map((c) => c.nullable),
      optionalMetadata: optionalMetadata(this, rowMetadata),
    };
  }

  /**
   * A complete row image from a row given by the caller, each value checked against its column: every
   * column present, in column order, omitted ones at their default (or NULL).
   */
  checkRow(row: RowInput, where: RowSite): Row {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new RowValueError(`expected a row object, got ${show(row)}`, where, '*', row);
    }
    for (const name of Object.keys(row)) {
      if (!this.byName.has(name)) throw new RowValueError('no such column in the table', where, name, row[name]);
    }
    const out: Row = {};
    for (const c of this.columns) {
      let v = Object.hasOwn(row, c.name) ? row[c.name] : undefined;
      if (v === undefined) {
        if (c.default !== undefined) v = c.default;
        else if (c.nullable) v = null;
        else throw new RowValueError(`the row has no value for this NOT NULL column (and it has no default)`, where, c.name, undefined);
      }
      out[c.name] = checkValue(c, v, where);
    }
    return out;
  }
}

/** A table given as a Table, as its definition, or (once the builder knows it) as 'schema.name'. */
export type TableRef = Table | TableDef | string;

/** A row as the caller gives it: column name → value, in the decoder's value forms; NULL is null. */
export type RowInput = Record<string, CellValue | undefined>;

export type RowMetadata = 'FULL' | 'MINIMAL' | 'NO_LOG';

/** Describes a table (throws TableDefinitionError for what MariaDB would refuse). */
export function describeTable(def: TableDef): Table {
  return new Table(def);
}

// ---- SQL types ------------------------------------------------------------------------------------------

function sqlTypeFacts(name: string): SqlTypeFacts | undefined {
  let code: number | undefined = Object.hasOwn(SqlType, name) ? SqlType[name as SqlTypeName] : undefined;
  for (let hops = 0; code !== undefined && hops < 4; hops++) {
    const facts = (SqlTypes as Record<number, SqlTypeFacts | { alias: SqlTypeName }>)[code];
    if (!facts) return undefined;
    if (!('alias' in facts) || facts.alias === undefined) return facts as SqlTypeFacts;
    code = SqlType[facts.alias];
  }
  return undefined;
}

interface CharsetFacts {
  name: string;
  maxBytes: number;
  defaultCollation: number;
}

const CHARSETS = new Map<string, CharsetFacts>();
for (const [id, c] of Charsets as ReadonlyMap<number, { name: string; maxBytes: number; alias?: string }>) {
  const facts = { name: c.name, maxBytes: c.maxBytes, defaultCollation: id };
  CHARSETS.set(c.name, facts);
  if (c.alias) CHARSETS.set(c.alias, facts);
}
const COLLATION_IDS = new Map<string, number>([...(Collations as ReadonlyMap<number, string>)].map(([id, name]) => [name, id]));
const BINARY_COLLATION = CHARSETS.get('binary')!.defaultCollation;

interface ResolvedCharset {
  charset: CharsetFacts;
  collation: number;
}

/** A character set and collation from their names (either may be absent; then the other decides). */
function resolveCharset(charset: string | undefined, collation: string | number | undefined, fail: (p: string) => never): ResolvedCharset | undefined {
  let cs: CharsetFacts | undefined;
  if (charset !== undefined) {
    cs = CHARSETS.get(charset.toLowerCase());
    if (!cs) fail(`unknown character set '${charset}'`);
  }
  if (collation === undefined) return cs && { charset: cs, collation: cs.defaultCollation };
  const id = typeof collation === 'number' ? collation : COLLATION_IDS.get(collation.toLowerCase());
  if (id === undefined) return fail(`unknown collation '${collation}' (give its id as a number)`);
  const name = charsetOf(id);
  const ofCollation = name === undefined ? undefined : CHARSETS.get(name);
  if (!ofCollation) return fail(`collation ${collation} has no known character set`);
  if (cs && cs !== ofCollation) fail(`collation ${collation} is not of character set ${cs.name}`);
  return { charset: ofCollation, collation: id };
}

interface ParsedType {
  name: string;
  args: (number | string)[] | undefined;
  unsigned?: boolean;
  zerofill?: boolean;
  charset?: string;
  collation?: string;
  nullable?: boolean;
}

/** Reads a column type as CREATE TABLE writes it. */
function parseType(text: string, fail: (p: string) => never): ParsedType {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const word = (): string | undefined => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0].toLowerCase();
  };
  const name = word();
  if (!name) return fail(`'${text}' is not a column type`);
  const parsed: ParsedType = { name, args: undefined };
  const save = i;
  if (name === 'double' && word() !== 'precision') i = save;
  ws();
  if (text[i] === '(') {
    i++;
    parsed.args = [];
    ws();
    if (text[i] === ')') i++;
    else for (;;) {
      ws();
      if (text[i] === "'" || text[i] === '"') {
        const quote = text[i]!;
        let s = '';
        for (i++; ; i++) {
          if (i >= text.length) return fail(`unterminated string in '${text}'`);
          const ch = text[i]!;
          if (ch === '\\' && i + 1 < text.length) s += unescape(text[++i]!);
          else if (ch === quote && text[i + 1] === quote) (s += quote), i++;
          else if (ch === quote) break;
          else s += ch;
        }
        i++;
        parsed.args.push(s);
      } else {
        const m = /^\d+/.exec(text.slice(i));
        if (!m) return fail(`unexpected '${text.slice(i, i + 10)}' in the parameters of '${text}'`);
        i += m[0].length;
        parsed.args.push(Number(m[0]));
      }
      ws();
      if (text[i] === ',') i++;
      else if (text[i] === ')') {
        i++;
        break;
      } else return fail(`expected ',' or ')' in '${text}'`);
    }
  }
  for (;;) {
    const w = word();
    if (w === undefined) break;
    if (w === 'unsigned') parsed.unsigned = true;
    else if (w === 'signed') parsed.unsigned = false;
    else if (w === 'zerofill') (parsed.zerofill = true), (parsed.unsigned = true);
    else if (w === 'character' || w === 'charset') {
      if (w === 'character' && word() !== 'set') return fail(`expected CHARACTER SET in '${text}'`);
      parsed.charset = word() ?? fail(`CHARACTER SET without a name in '${text}'`);
    } else if (w === 'collate') parsed.collation = word() ?? fail(`COLLATE without a name in '${text}'`);
    else if (w === 'null') parsed.nullable = true;
    else if (w === 'not') {
      if (word() !== 'null') return fail(`expected NOT NULL in '${text}'`);
      parsed.nullable = false;
    } else return fail(`unexpected '${w}' in '${text}'`);
  }
  ws();
  if (i < text.length) fail(`unexpected '${text.slice(i)}' in '${text}'`);
  return parsed;
}

function unescape(ch: string): string {
  return ({ n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' } as Record<string, string>)[ch] ?? ch;
}

function describeColumn(def: ColumnDef, index: number, inKey: boolean, tableCharset: ResolvedCharset | undefined, fail: (p: string) => never): BuiltColumn {
  if (typeof def.name !== 'string' || def.name === '') fail('a column needs a name');
  if (typeof def.type !== 'string') fail('a column needs a type');
  const t = parseType(def.type, fail);
  const facts = sqlTypeFacts(t.name);
  if (!facts) return fail(`unknown SQL type '${t.name}'`);
  const args = t.args ?? [];
  const numbers = (most: number): number[] => {
    if (args.length > most || args.some((a) => typeof a !== 'number')) fail(`${t.name.toUpperCase()} takes at most ${most} numeric parameter(s)`);
    return args as number[];
  };
  const upper = canonicalName(t.name).toUpperCase();
  const unsigned = def.unsigned ?? t.unsigned ?? false;
  if (def.unsigned === false && t.unsigned) fail('the type says UNSIGNED, the definition unsigned: false');
  if (t.nullable !== undefined && def.nullable !== undefined && t.nullable !== def.nullable) fail('the type and `nullable` disagree');
  const explicitNull = def.nullable ?? t.nullable;
  if (inKey && explicitNull === true) fail('a primary key column cannot be NULL');
  const nullable = explicitNull ?? !inKey;
  const columnType = ColumnType[facts.columnType];
  const realType = ColumnType[facts.realType ?? facts.columnType];
  const layout = CellLayouts[realType as keyof typeof CellLayouts] as { numeric?: boolean; character?: string };
  const col: BuiltColumn = {
    index,
    name: def.name,
    sqlType: upper,
    kind: facts.kind,
    columnType,
    realType,
    metadata: {},
    nullable,
    unsigned: facts.alwaysUnsigned ?? unsigned,
    numeric: layout.numeric === true,
    character: (layout.character === 'both' || layout.character === 'mariadb') && facts.kind !== 'enum' && facts.kind !== 'set',
  };
  if (unsigned && !col.numeric) fail(`${upper} cannot be UNSIGNED`);
  const isCharacterType = ['char', 'varchar', 'blob', 'enum', 'set'].includes(facts.kind) && !facts.binary;
  const charsetGiven = def.charset ?? t.charset;
  const collationGiven = def.collation ?? t.collation;
  if (!isCharacterType && (charsetGiven !== undefined || collationGiven !== undefined) && !(facts.binary && /^binary$/i.test(String(charsetGiven ?? collationGiven)))) {
    fail(`${upper} has no character set`);
  }
  let mbmaxlen = 1;
  if (isCharacterType) {
    const fixed = facts.charset !== undefined ? resolveCharset(facts.charset, facts.collation, fail) : undefined;
    if (fixed && (charsetGiven !== undefined || collationGiven !== undefined)) fail(`${upper}'s character set is always ${facts.collation}`);
    const cs = fixed ?? resolveCharset(charsetGiven, collationGiven, fail) ?? tableCharset ?? resolveCharset('utf8mb4', undefined, fail)!;
    col.collation = cs.collation;
    col.charset = charsetOf(cs.collation) ?? cs.charset.name;
    mbmaxlen = cs.charset.maxBytes;
  } else if (col.character) {
    col.collation = BINARY_COLLATION;
    col.charset = 'binary';
  }
  if (def.default !== undefined) col.default = def.default;

  switch (facts.kind) {
    case 'int':
      numbers(1); // a display width, which changes nothing logged
      col.sqlType = `${upper}${unsigned ? ' UNSIGNED' : ''}`;
      break;
    case 'float': {
      const [p, d] = numbers(2);
      // FLOAT(p) with p > 24 is a DOUBLE; FLOAT(M,D) and DOUBLE(M,D) are logged as plain FLOAT and DOUBLE.
      const isDouble = facts.columnType === 'DOUBLE' || (p !== undefined && d === undefined && p > 24);
      if (p !== undefined && d === undefined && p > 53) fail(`FLOAT(${p}) is beyond 53 bits`);
      col.columnType = col.realType = isDouble ? ColumnType.DOUBLE : ColumnType.FLOAT;
      col.metadata = { packLength: isDouble ? 8 : 4 };
      col.sqlType = `${isDouble ? 'DOUBLE' : 'FLOAT'}${unsigned ? ' UNSIGNED' : ''}`;
      break;
    }
    case 'decimal': {
      const [p = facts.defaultPrecision!, s = 0] = numbers(2);
      if (p < 1 || p > facts.maxPrecision!) fail(`DECIMAL precision ${p} is not within 1 to ${facts.maxPrecision}`);
      if (s > facts.maxScale! || s > p) fail(`DECIMAL(${p},${s}): the scale is at most ${facts.maxScale} and the precision`);
      col.precision = p;
      col.scale = s;
      col.metadata = { precision: p, scale: s };
      col.sqlType = `DECIMAL(${p},${s})${unsigned ? ' UNSIGNED' : ''}`;
      break;
    }
    case 'date':
      numbers(0);
      col.sqlType = 'DATE';
      break;
    case 'year': {
      const [w] = numbers(1);
      if (w !== undefined && w !== 4) fail('YEAR takes only the display width 4');
      col.sqlType = 'YEAR';
      break;
    }
    case 'time':
    case 'datetime':
    case 'timestamp': {
      const [fsp = 0] = numbers(1);
      if (fsp > facts.maxFsp!) fail(`${upper}(${fsp}): at most ${facts.maxFsp} fractional digits`);
      col.fsp = fsp;
      col.metadata = { fsp };
      col.sqlType = fsp ? `${upper}(${fsp})` : upper;
      break;
    }
    case 'bit': {
      const [bits = 1] = numbers(1);
      if (bits < 1 || bits > facts.maxBits!) fail(`BIT(${bits}) is not within 1 to ${facts.maxBits} bits`);
      col.bits = bits;
      col.metadata = { bitsInLastByte: bits % 8, wholeBytes: bits >> 3 };
      col.sqlType = `BIT(${bits})`;
      break;
    }
    case 'enum':
    case 'set': {
      if (!args.length || args.some((a) => typeof a !== 'string')) fail(`${upper} needs its members, as quoted strings`);
      const members = args as string[];
      if (members.length > facts.maxMembers!) fail(`${upper} has at most ${facts.maxMembers} members`);
      if (new Set(members).size !== members.length) fail(`${upper} has a member twice`);
      if (facts.kind === 'set' && members.some((m) => m.includes(','))) fail('a SET member cannot contain a comma');
      col.members = members;
      const pack = facts.kind === 'enum' ? (members.length < 256 ? 1 : 2) : setPackLength(members.length);
      col.metadata = { typeByte: realType, lengthByte: pack };
      col.sqlType = `${upper}(${members.map(sqlString).join(',')})`;
      break;
    }
    case 'char': {
      const [n = facts.defaultLength!] = numbers(1);
      if (n > facts.maxLength!) fail(`${upper}(${n}) is longer than ${facts.maxLength}`);
      const bytes = n * mbmaxlen;
      col.length = n;
      col.maxBytes = bytes;
      // Field_string::do_save_field_metadata: bits 8 and 9 of the byte length go into the type byte, inverted.
      col.metadata = { typeByte: realType ^ ((bytes & 0x300) >> 4), lengthByte: bytes & 0xff };
      col.sqlType = `${upper}(${n})`;
      break;
    }
    case 'varchar': {
      const [n] = numbers(1);
      if (n === undefined) return fail(`${upper} needs a length`);
      const bytes = n * mbmaxlen;
      if (bytes > facts.maxBytes!) fail(`${upper}(${n}) holds ${bytes} bytes, more than ${facts.maxBytes}`);
      col.length = n;
      col.maxBytes = bytes;
      col.metadata = { maxLength: bytes };
      col.sqlType = `${upper}(${n})`;
      break;
    }
    case 'blob':
    case 'geometry': {
      numbers(facts.kind === 'blob' && !facts.json ? 1 : 0);
      let pack = facts.packLength!;
      let maxBytes = facts.maxBytes!;
      let name = upper;
      if (args.length === 1) {
        // TEXT(n) and BLOB(n): the smallest of the family that holds n characters' bytes.
        const want = (args[0] as number) * mbmaxlen;
        const family = (facts.binary ? ['tinyblob', 'blob', 'mediumblob', 'longblob'] : ['tinytext', 'text', 'mediumtext', 'longtext']).map((x) => [x, sqlTypeFacts(x)!] as const);
        const fit = family.find(([, f]) => f.maxBytes! >= want) ?? family[3]!;
        [name, pack, maxBytes] = [fit[0].toUpperCase(), fit[1].packLength!, fit[1].maxBytes!];
      }
      col.maxBytes = maxBytes;
      col.metadata = { packLength: pack };
      col.sqlType = name;
      if (facts.json) col.json = true;
      if (facts.geometryType) col.geometryType = GeometryType[facts.geometryType];
      break;
    }
  }
  return col;
}

/** The canonical name of an alias ('integer' → 'int'). */
function canonicalName(name: string): string {
  let code: number | undefined = SqlType[name as SqlTypeName];
  for (let hops = 0; code !== undefined && hops < 4; hops++) {
    const facts: { alias?: SqlTypeName } | undefined = (SqlTypes as Record<number, { alias?: SqlTypeName }>)[code];
    if (!facts?.alias) return Object.entries(SqlType).find(([, v]) => v === code)![0];
    code = SqlType[facts.alias];
  }
  return name;
}

/** get_set_pack_length: a byte per 8 members, 8 bytes beyond 32 members. */
function setPackLength(members: number): number {
  const n = (members + 7) >> 3;
  return n > 4 ? 8 : n;
}

const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
const ident = (s: string) => `\`${s.replace(/`/g, '``')}\``;

/** CREATE TABLE `schema`.`name` (...) ENGINE=...: a definition MariaDB turns back into the same columns. */
export function createTableSql(table: Table | TableDef): string {
  const t = table instanceof Table ? table : new Table(table);
  const cols = t.columns.map((c) => {
    let type = c.sqlType;
    if (c.collation !== undefined && c.collation !== BINARY_COLLATION && !c.json) {
      const collation = (Collations as ReadonlyMap<number, string>).get(c.collation);
      const cs = CHARSETS.get(c.charset!)!;
      if (collation === undefined && c.collation !== cs.defaultCollation) {
        throw new TableDefinitionError(`collation ${c.collation} has no known name to write in CREATE TABLE`, t.qualified, c.name);
      }
      type += ` CHARACTER SET ${cs.name}${collation !== undefined ? ` COLLATE ${collation}` : ''}`;
    }
    return `  ${ident(c.name)} ${type} ${c.nullable ? 'NULL' : 'NOT NULL'}`;
  });
  if (t.primaryKey.length) cols.push(`  PRIMARY KEY (${t.primaryKey.map((i) => ident(t.columns[i]!.name)).join(', ')})`);
  return `CREATE TABLE ${ident(t.schema)}.${ident(t.name)} (\n${cols.join(',\n')}\n) ENGINE=${t.engine}`;
}

// ---- optional metadata (Table_map_log_event::init_metadata_fields) -------------------------------------------

function optionalMetadata(t: Table, level: RowMetadata): TableMapEventOptionalMetadataEntryInput[] {
  if (level === 'NO_LOG') return [];
  const out: TableMapEventOptionalMetadataEntryInput[] = [];
  const cols = t.columns;
  const numeric = cols.filter((c) => c.numeric);
  if (numeric.length) {
    // A bit per numeric column, most significant first, in whole bytes.
    const bits = numeric.map((c) => c.unsigned);
    while (bits.length % 8) bits.push(false);
    out.push({ code: 'SIGNEDNESS', unsigned: bits });
  }
  const character = cols.filter((c) => c.character);
  if (character.length) out.push(charsetEntry(character.map((c) => c.collation!), 'DEFAULT_CHARSET', 'COLUMN_CHARSET'));
  const geometry = cols.filter((c) => c.geometryType !== undefined);
  if (geometry.length) out.push({ code: 'GEOMETRY_TYPE', geometryTypes: geometry.map((c) => c.geometryType!) });
  if (level === 'MINIMAL') return out;
  out.push({ code: 'COLUMN_NAME', names: cols.map((c) => c.name) });
  const enumSet = cols.filter((c) => c.kind === 'enum' || c.kind === 'set');
  if (enumSet.length) out.push(charsetEntry(enumSet.map((c) => c.collation!), 'ENUM_AND_SET_DEFAULT_CHARSET', 'ENUM_AND_SET_COLUMN_CHARSET'));
  const sets = cols.filter((c) => c.kind === 'set');
  if (sets.length) out.push({ code: 'SET_STR_VALUE', sets: sets.map((c) => ({ names: memberTexts(c) })) });
  const enums = cols.filter((c) => c.kind === 'enum');
  if (enums.length) out.push({ code: 'ENUM_STR_VALUE', enums: enums.map((c) => ({ names: memberTexts(c) })) });
  if (t.primaryKey.length) out.push({ code: 'SIMPLE_PRIMARY_KEY', columns: [...t.primaryKey] });
  return out;
}

/** Member names as the server stores them: in the column's character set. */
function memberTexts(c: BuiltColumn): Text[] {
  return c.members!.map((m) => (c.charset === 'utf8mb4' || c.charset === 'utf8mb3' ? m : encodeText(m, c.charset!)));
}

/**
 * init_charset_field: the most used collation (the lowest id among equals) and the exceptions to it, or
 * every column's collation, whichever is shorter by the server's reckoning (a byte per id and index).
 */
function charsetEntry<D extends 'DEFAULT_CHARSET' | 'ENUM_AND_SET_DEFAULT_CHARSET', C extends 'COLUMN_CHARSET' | 'ENUM_AND_SET_COLUMN_CHARSET'>(
  collations: number[],
  byDefault: D,
  perColumn: C,
): TableMapEventOptionalMetadataEntryInput {
  const counts = new Map<number, number>();
  for (const c of collations) counts.set(c, (counts.get(c) ?? 0) + 1);
  let most = 0;
  let mostCount = 0;
  for (const [c, n] of [...counts].sort((a, b) => a[0] - b[0])) if (n > mostCount) [most, mostCount] = [c, n];
  if (collations.length < 1 + (collations.length - mostCount) * 2) return { code: perColumn, collations } as TableMapEventOptionalMetadataEntryInput;
  const exceptions = collations.flatMap((collation, column) => (collation === most ? [] : [{ column, collation }]));
  return { code: byDefault, defaultCollation: most, exceptions } as TableMapEventOptionalMetadataEntryInput;
}

// ---- value checks -------------------------------------------------------------------------------------------

/** A value as an error message shows it. */
function show(v: unknown): string {
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return JSON.stringify(v);
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const TIME_RE = /^(-?)(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?$/;

const daysIn = (y: number, m: number) => (m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

/** Checks a date's parts; '' when they are valid (or all zero, MySQL's zero date). */
function dateProblem(y: number, m: number, d: number): string {
  if (y === 0 && m === 0 && d === 0) return '';
  if (m < 1 || m > 12) return `month ${m} is not 1 to 12`;
  if (d < 1 || d > daysIn(y, m)) return `day ${d} is not in ${y}-${String(m).padStart(2, '0')}`;
  return '';
}

function checkValue(c: BuiltColumn, v: CellValue, where: RowSite): CellValue {
  const fail = (problem: string): never => {
    throw new RowValueError(problem, where, c.name, v);
  };
  if (v === null) {
    if (!c.nullable) fail(`NULL in a NOT NULL column (${c.sqlType})`);
    return null;
  }
  const type = c.sqlType;
  switch (c.kind) {
    case 'int': {
      if (!(typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)))) return fail(`expected an integer for ${type}, got ${show(v)}`);
      const bytes = SQL_INT_BYTES[c.realType]!;
      const bits = BigInt(8 * bytes);
      const [lo, hi] = c.unsigned ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
      const b = BigInt(v);
      if (b < lo || b > hi) fail(`${v} is out of range for ${type} (${lo} to ${hi})`);
      return bytes === 8 ? v : Number(v);
    }
    case 'float': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return fail(`expected a finite number for ${type}, got ${show(v)}`);
      if (c.realType === ColumnType.FLOAT && !Number.isFinite(Math.fround(v))) fail(`${v} is out of range for FLOAT`);
      if (c.unsigned && v < 0) fail(`${v} is negative, in ${type}`);
      return v;
    }
    case 'decimal': {
      const text = typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v) && !/e/i.test(String(v))) ? String(v) : v;
      const m = typeof text === 'string' ? DECIMAL_RE.exec(text) : null;
      if (!m || (m[2] === '' && !m[3])) return fail(`expected a decimal string for ${type}, got ${show(v)}`);
      const whole = m[2]!.replace(/^0+(?=\d)/, '') || '0';
      const frac = m[3] ?? '';
      const intDigits = whole === '0' ? 0 : whole.length;
      if (intDigits > c.precision! - c.scale!) fail(`${text} has ${intDigits} integer digits; ${type} holds ${c.precision! - c.scale!}`);
      if (frac.length > c.scale!) fail(`${text} has ${frac.length} fraction digits; ${type} holds ${c.scale}`);
      const zero = /^0*$/.test(whole + frac);
      const negative = m[1] === '-' && !zero;
      if (negative && c.unsigned) fail(`${text} is negative, in ${type}`);
      return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
    }
    case 'date': {
      const m = typeof v === 'string' ? DATE_RE.exec(v) : null;
      if (!m) return fail(`expected a date 'YYYY-MM-DD', got ${show(v)}`);
      const problem = dateProblem(Number(m[1]), Number(m[2]), Number(m[3]));
      if (problem) fail(`${v}: ${problem}`);
      return v;
    }
    case 'time': {
      const m = typeof v === 'string' ? TIME_RE.exec(v) : null;
      if (!m) return fail(`expected a time '[-]HH:MM:SS[.ffffff]', got ${show(v)}`);
      const [h, mi, s] = [Number(m[2]), Number(m[3]), Number(m[4])];
      if (mi > 59 || s > 59) fail(`${v}: minutes and seconds are at most 59`);
      if (h > SQL_TYPE_LIMITS.maxHours) fail(`${v} is out of range for TIME (±${SQL_TYPE_LIMITS.maxHours}:59:59)`);
      if ((m[5]?.length ?? 0) > c.fsp!) fail(`${v} has more fraction digits than ${type}'s ${c.fsp}`);
      return v;
    }
    case 'datetime':
    case 'timestamp': {
      const m = typeof v === 'string' ? DATETIME_RE.exec(v) : null;
      if (!m) return fail(`expected 'YYYY-MM-DD HH:MM:SS[.ffffff]'${c.kind === 'timestamp' ? ' (UTC)' : ''}, got ${show(v)}`);
      const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
      const problem = dateProblem(y, mo, d);
      if (problem) fail(`${v}: ${problem}`);
      if (h > 23 || mi > 59 || s > 59) fail(`${v}: not a time of day`);
      if ((m[7]?.length ?? 0) > c.fsp!) fail(`${v} has more fraction digits than ${type}'s ${c.fsp}`);
      if (c.kind === 'timestamp') {
        const zero = y === 0 && mo === 0 && d === 0;
        if (zero && (h || mi || s || /[1-9]/.test(m[7] ?? ''))) fail(`${v}: the zero TIMESTAMP has no time`);
        const seconds = zero ? 0 : Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
        if (!zero && (seconds < 1 || seconds > SQL_TYPE_LIMITS.maxSeconds)) fail(`${v} is out of range for TIMESTAMP (1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC)`);
      }
      return v;
    }
    case 'year': {
      const y = typeof v === 'bigint' ? Number(v) : v;
      if (typeof y !== 'number' || !Number.isInteger(y)) return fail(`expected a year, got ${show(v)}`);
      if (y !== 0 && (y < SQL_TYPE_LIMITS.minYear || y > SQL_TYPE_LIMITS.maxYear)) fail(`${y} is out of range for YEAR (${SQL_TYPE_LIMITS.minYear} to ${SQL_TYPE_LIMITS.maxYear}, or 0)`);
      return y;
    }
    case 'bit': {
      if (!(typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v)))) return fail(`expected an integer for ${type}, got ${show(v)}`);
      const b = BigInt(v);
      if (b < 0n || b >> BigInt(c.bits!) !== 0n) fail(`${v} does not fit ${type}`);
      return b;
    }
    case 'enum': {
      if (typeof v === 'number') {
        if (!Number.isInteger(v) || v < 0 || v > c.members!.length) fail(`index ${v} is not 0 to ${c.members!.length}`);
        return v;
      }
      if (typeof v !== 'string') return fail(`expected a member of ${type}, got ${show(v)}`);
      const index = c.members!.indexOf(v);
      if (index < 0) fail(`${show(v)} is not a member of ${type}`);
      // Written by its index, which needs no matching of names in the column's character set.
      return index + 1;
    }
    case 'set': {
      if (typeof v === 'bigint' || typeof v === 'number') {
        if ((typeof v === 'number' && !Number.isSafeInteger(v)) || BigInt(v) < 0n || BigInt(v) >> BigInt(c.members!.length) !== 0n) fail(`${v} is not a bitmask of ${c.members!.length} members`);
        return v;
      }
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return fail(`expected a list of members of ${type}, got ${show(v)}`);
      const names = v as string[];
      let mask = 0n;
      for (const n of names) {
        const i = c.members!.indexOf(n);
        if (i < 0) fail(`'${n}' is not a member of ${type}`);
        if ((mask >> BigInt(i)) & 1n) fail(`'${n}' is given twice`);
        mask |= 1n << BigInt(i);
      }
      return mask;
    }
    default:
      return checkString(c, v, fail);
  }
}

/** The byte width of each integer type's values, by its column type code. */
const SQL_INT_BYTES: Record<number, number> = Object.fromEntries(
  (Object.values(SqlTypes) as SqlTypeFacts[]).filter((f) => f.kind === 'int').map((f) => [ColumnType[f.columnType], f.bytes!]),
);

const SQL_TYPE_LIMITS = {
  maxHours: sqlTypeFacts('time')!.maxHours!,
  maxSeconds: sqlTypeFacts('timestamp')!.maxSeconds!,
  minYear: sqlTypeFacts('year')!.minYear!,
  maxYear: sqlTypeFacts('year')!.maxYear!,
};

function checkString(c: BuiltColumn, v: CellValue, fail: (p: string) => never): CellValue {
  const type = c.sqlType;
  const binary = c.charset === 'binary';
  if (c.kind === 'geometry') {
    if (!(v instanceof Uint8Array)) return fail(`expected the bytes of a geometry (SRID and WKB), got ${show(v)}`);
    checkGeometry(c, v, fail);
    return v;
  }
  let bytes: Uint8Array;
  if (typeof v === 'string') {
    if (!binary) {
      if ((c.charset === 'utf8mb3' || c.charset === 'ucs2') && beyondBmp(v)) fail(`${show(v)} has a character beyond U+FFFF, which ${c.charset} cannot hold`);
      const stored = encodableText(v, c.charset!);
      // What the decoder gives back is the test: text that does not come back the same is given as bytes.
      if (stored === undefined || decodeText(stored, c.charset!) !== v) {
        fail(`${show(v)} is not representable in ${c.charset} (as text that reads back the same; give its bytes)`);
      }
      if (c.json) {
        try {
          JSON.parse(v);
        } catch {
          fail(`${show(v)} is not valid JSON`);
        }
      }
      if (c.length !== undefined) {
        const chars = [...v].length;
        if (chars > c.length) fail(`${show(v)} has ${chars} characters; ${type} holds ${c.length}`);
      }
    }
    bytes = encodeText(v, binary ? 'binary' : c.charset!);
  } else if (v instanceof Uint8Array) {
    if (c.json) fail(`expected JSON text, got ${show(v)}`);
    bytes = v;
  } else {
    return fail(`expected ${binary ? 'bytes' : 'text'} for ${type}, got ${show(v)}`);
  }
  if (bytes.length > c.maxBytes!) fail(`${show(v)} is ${bytes.length} bytes; ${type} holds ${c.maxBytes}`);
  return v;
}

const WKB_TYPES = 7;

/** MariaDB's geometry: a 4-byte SRID, then WKB (byte order, type, coordinates). */
function checkGeometry(c: BuiltColumn, v: Uint8Array, fail: (p: string) => never): void {
  if (v.length < 9) fail(`${v.length} bytes are too few for a geometry (SRID and WKB)`);
  if (v[4] !== 0 && v[4] !== 1) fail(`byte 4 is ${v[4]}, not a WKB byte order`);
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const wkbType = dv.getUint32(5, v[4] === 1);
  if (wkbType < 1 || wkbType > WKB_TYPES) fail(`WKB type ${wkbType} is not a geometry type`);
  if (c.geometryType && wkbType !== c.geometryType) {
    fail(`a ${GEOMETRY_NAMES[wkbType] ?? wkbType} in a ${c.sqlType} column`);
  }
}

const GEOMETRY_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GeometryType).map(([k, v]) => [v, k]));

// ---- the writer ---------------------------------------------------------------------------------------------

export interface BinlogWriterOptions {
  /** The server imitated (default 'mariadb-10.11'). */
  server?: ServerProfileName;
  /** FORMAT_DESCRIPTION's server version (default '10.11.19-MariaDB-log'). */
  serverVersion?: string;
  /** server_id in every event header (default 1). */
  serverId?: number;
  /** binlog_checksum: CRC32 (default) or NONE. */
  checksum?: 'CRC32' | 'NONE';
  /** Event timestamps, Unix seconds (default: when the writer is made); change it with `setTimestamp`. */
  timestamp?: number;
  /** The file's creation time in FORMAT_DESCRIPTION (default: the timestamp; 0 as after a rotation). */
  createTimestamp?: number;
  /** The file BINLOG_CHECKPOINT names (default 'binlog.000001'). */
  checkpointFile?: string;
  /** GTID_LIST's entries: the last GTID of each domain in earlier files (default none). */
  gtidList?: GtidListEntryInput[];
  /** gtid_domain_id (default 0). */
  domainId?: number;
  /** Sequence number of the first GTID (default 1, or one after the highest in gtidList). */
  firstSeqNo?: number | bigint;
  /** The first table id (default 1). */
  firstTableId?: number;
  /** The first XID (default 1). */
  firstXid?: number | bigint;
  /** QUERY's thread id (default 1). */
  threadId?: number;
  /** binlog_row_metadata (default FULL). */
  rowMetadata?: RowMetadata;
  /** binlog_row_event_max_size (default 8192): rows go into a new event past it. */
  maxRowsEventSize?: number;
  /**
   * Receives each event's bytes (the magic first) as soon as it is written; nothing is kept, so memory
   * stays constant. `toBytes` and `writeTo` are then unavailable.
   */
  sink?: (chunk: Uint8Array) => void;
}

export interface GtidOptions {
  domainId?: number;
  /** The group's server id (header serverId of its events; default the writer's). */
  serverId?: number;
  seqNo?: number | bigint;
  /** Group-commit id (FL_GROUP_COMMIT_ID). */
  commitId?: number | bigint;
  /** The GTID flags byte, instead of the one the builder derives. */
  flags?: number;
}

export interface BeginOptions extends GtidOptions {
  /** Whether the transaction changes transactional tables (XID at commit) or not (QUERY COMMIT). */
  transactional?: boolean;
}

export interface QueryOptions {
  /** The default database the statement runs in. */
  schema?: string;
  /** Whether the statement is DDL (default: by its first word: CREATE, ALTER, DROP, RENAME, TRUNCATE …). */
  ddl?: boolean;
  threadId?: number;
  execTime?: number;
  errorCode?: number;
  /** Header flags (default LOG_EVENT_SUPPRESS_USE_F for database statements, else 0). */
  flags?: number;
  /** The status variables, instead of the server's. */
  statusVars?: QueryEventStatusVarsEntryInput[];
  /** DDL's Q_XID (default: the next XID). */
  xid?: number | bigint;
}

export interface TableOptions {
  /** The table id (default: the next one; later tables count on from it). */
  tableId?: number;
}

export interface CommitOptions {
  /** The XID (default: the next one; later ones count on from it). */
  xid?: number | bigint;
}

export interface RowsOptions {
  /** The statement, written as ANNOTATE_ROWS before the TABLE_MAP (binlog_annotate_row_events). */
  statement?: string;
}

/** An event of any type, its header filled in from the writer's state where not given. */
export type EventInput = (EventBodyInput | { type: string; raw: Uint8Array }) & { header?: Partial<BinlogEventInput['header']> };

type RowsKind = 'insert' | 'update' | 'delete';

const ROWS_EVENTS: Record<RowsKind, { type: 'WRITE_ROWS_EVENT_V1' | 'UPDATE_ROWS_EVENT_V1' | 'DELETE_ROWS_EVENT_V1'; images: number }> = {
  insert: { type: 'WRITE_ROWS_EVENT_V1', images: RowImages.AFTER },
  update: { type: 'UPDATE_ROWS_EVENT_V1', images: RowImages.BOTH },
  delete: { type: 'DELETE_ROWS_EVENT_V1', images: RowImages.BEFORE },
};

const DDL_RE = /^\s*(?:\/\*.*?\*\/\s*)*(CREATE|ALTER|DROP|RENAME|TRUNCATE|GRANT|REVOKE|ANALYZE|OPTIMIZE|REPAIR)\b/is;
const DATABASE_RE = /^\s*(?:CREATE|ALTER|DROP)\s+(?:DATABASE|SCHEMA)\b/i;

interface OpenTransaction {
  transactional: boolean;
  serverId: number;
  schema: string;
}

/** The row statement being written: its table, the rows of its pending event, their size. */
interface PendingRows {
  kind: RowsKind;
  table: Table;
  tableId: number;
  site: string;
  statement: string | undefined;
  started: boolean;
  rows: RowChange[];
  dataSize: number;
  count: number;
}

/**
 * Builds a binlog event by event, as a MariaDB 10.11 server writes it. Every method that writes returns
 * the writer; the bytes are `toBytes()` (or `writeTo(path)`), or go to `options.sink` as they are made.
 */
export class BinlogWriter {
  private readonly profile: ServerProfile;
  private readonly encoder: EventEncoder;
  private readonly sink: ((chunk: Uint8Array) => void) | undefined;
  private readonly chunks: Uint8Array[] = [];
  private readonly serverId: number;
  private readonly domainId: number;
  private readonly rowMetadata: RowMetadata;
  private readonly maxRowsEventSize: number;
  private readonly threadId: number;
  private readonly tables = new Map<string, { table: Table; tableId: number }>();
  private nextTableId: number;
  private lastSeqNo: bigint;
  private nextXid: bigint;
  private nextGtid: GtidOptions | undefined;
  private tx: OpenTransaction | undefined;
  private pending: PendingRows | undefined;
  private offset = 0;
  private closedBy: string | undefined;
  timestamp: number;

  constructor(options: BinlogWriterOptions = {}) {
    const profile = PROFILES[options.server ?? 'mariadb-10.11'];
    if (!profile) throw new EncodeError(`unknown server '${options.server}'`, 'BinlogWriterOptions.server');
    this.profile = profile;
    this.encoder = new EventEncoder({ columnHints: this.columnHints });
    this.sink = options.sink;
    this.serverId = options.serverId ?? 1;
    this.domainId = options.domainId ?? 0;
    this.rowMetadata = options.rowMetadata ?? 'FULL';
    this.maxRowsEventSize = options.maxRowsEventSize ?? ROWS_EVENT_MAX_SIZE;
    this.threadId = options.threadId ?? 1;
    this.timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    this.nextTableId = options.firstTableId ?? 1;
    this.nextXid = BigInt(options.firstXid ?? 1);
    const gtidList = options.gtidList ?? [];
    const listed = gtidList.reduce((m, g) => (BigInt(g.seqNo) > m ? BigInt(g.seqNo) : m), 0n);
    this.lastSeqNo = options.firstSeqNo !== undefined ? BigInt(options.firstSeqNo) - 1n : listed;

    this.output(BINLOG_MAGIC);
    const fde: FormatDescriptionEventInput & { type: 'FORMAT_DESCRIPTION_EVENT' } = {
      type: 'FORMAT_DESCRIPTION_EVENT',
      binlogVersion: 4,
      serverVersion: options.serverVersion ?? profile.serverVersion,
      createTimestamp: options.createTimestamp ?? this.timestamp,
      headerLength: 19,
      postHeaderLengths: [...profile.postHeaderLengths],
      checksumAlg: (options.checksum ?? 'CRC32') === 'CRC32' ? 'BINLOG_CHECKSUM_ALG_CRC32' : 'BINLOG_CHECKSUM_ALG_OFF',
    };
    if (options.checksum !== undefined && options.checksum !== 'CRC32' && options.checksum !== 'NONE') {
      throw new EncodeError(`binlog_checksum is CRC32 or NONE, not '${String(options.checksum)}'`, 'BinlogWriterOptions.checksum');
    }
    this.emit(fde);
    this.emit({
      type: 'GTID_LIST_EVENT',
      countAndFlags: gtidList.length,
      gtids: gtidList.map((g) => ({ domainId: g.domainId, serverId: g.serverId, seqNo: BigInt(g.seqNo) })),
      // MariaDB pads an empty list with two zero bytes.
      ...(gtidList.length === 0 ? { padding: new Uint8Array(2) } : {}),
    });
    this.emit({ type: 'BINLOG_CHECKPOINT_EVENT', file: options.checkpointFile ?? 'binlog.000001' });
  }

  /**
   * Signedness and character sets of the known tables' columns, for reading a binlog written with
   * rowMetadata MINIMAL or NO_LOG: `decodeBinlog(bytes, { columnHints: writer.columnHints })`.
   */
  readonly columnHints: HintFn = (table, column) => {
    const t = this.tables.get(`${textOf(table.schema)}.${textOf(table.table)}`)?.table;
    const c = t?.columns[column.index];
    if (!c) return undefined;
    return { ...(c.numeric ? { unsigned: c.unsigned } : {}), ...(c.charset !== undefined ? { charset: c.charset } : {}) };
  };

  /** File offset of the next event. */
  get position(): number {
    return this.offset;
  }

  /** Whether a transaction is open (rows written, not yet committed). */
  get inTransaction(): boolean {
    return this.tx !== undefined;
  }

  /** The timestamp of the events written from now on (Unix seconds). */
  setTimestamp(seconds: number): this {
    this.timestamp = seconds;
    return this;
  }

  /**
   * Makes the table known under 'schema.name' (nothing is written). A definition that differs from the
   * one known under its name is a new table, with a new table id (as after ALTER TABLE).
   */
  table(def: Table | TableDef, options: TableOptions = {}): Table {
    this.writable();
    const table = def instanceof Table ? def : new Table(def);
    const known = this.tables.get(table.qualified);
    const same = known && (known.table === table || known.table.ddl === table.ddl);
    if (same && (options.tableId === undefined || options.tableId === known.tableId)) return known.table;
    const tableId = options.tableId ?? this.nextTableId++;
    if (options.tableId !== undefined && options.tableId >= this.nextTableId) this.nextTableId = options.tableId + 1;
    this.tables.set(table.qualified, { table, tableId });
    return table;
  }

  /** The table id the writer gives a known table. */
  tableId(ref: TableRef): number {
    return this.tables.get(this.resolve(ref).qualified)!.tableId;
  }

  /** CREATE DATABASE as a QUERY event (the server's form: the new database as its schema, no USE). */
  createDatabase(name: string): this {
    return this.query(`CREATE DATABASE ${ident(name)}`, { schema: name, ddl: true });
  }

  /** CREATE TABLE as a QUERY event, from the definition; the table is known from then on. */
  createTable(def: Table | TableDef, options: TableOptions & Pick<QueryOptions, 'xid'> = {}): Table {
    const table = this.table(def, options);
    this.query(table.ddl, { schema: table.schema, ddl: true, ...(options.xid !== undefined ? { xid: options.xid } : {}) });
    return table;
  }

  /**
   * A statement as a QUERY event. DDL is an event group of its own (GTID FL_DDL | FL_STANDALONE), after an
   * implicit commit of any open transaction; other statements join the open transaction, or make one of
   * their own, committed at once (autocommit).
   */
  query(sql: string, options: QueryOptions = {}): this {
    this.writable();
    if (typeof sql !== 'string' && !(sql as unknown instanceof Uint8Array)) throw new EncodeError(`a statement is text, not ${show(sql)}`, 'BinlogWriter.query');
    const ddl = options.ddl ?? DDL_RE.test(sql);
    const database = DATABASE_RE.test(sql);
    const schema = options.schema ?? '';
    const body = (xid: bigint | undefined) => ({
      type: 'QUERY_EVENT' as const,
      threadId: options.threadId ?? this.threadId,
      execTime: options.execTime ?? 0,
      errorCode: options.errorCode ?? 0,
      statusVars: options.statusVars ?? this.statusVars(xid),
      schema,
      query: sql,
    });
    const flags = options.flags ?? (database ? EventFlags.LOG_EVENT_SUPPRESS_USE_F : 0);
    if (ddl) {
      if (this.tx) this.commit();
      const gtid = this.writeGtid(GtidFlags.FL_STANDALONE | GtidFlags.FL_ALLOW_PARALLEL | GtidFlags.FL_DDL);
      // DDL on tables is logged with an XID (Q_XID) for crash recovery; database statements are not.
      this.emit(body(database ? undefined : this.takeXid(options.xid)), { flags, serverId: gtid.serverId });
      return this;
    }
    const autocommit = !this.tx;
    if (autocommit) this.begin({ transactional: true });
    this.tx!.schema ||= schema;
    this.emit(body(undefined), { flags, serverId: this.tx!.serverId });
    if (autocommit) this.commit();
    return this;
  }

  /** Sets the GTID of the next event group; later groups count on from its sequence number. */
  gtid(options: GtidOptions): this {
    this.writable();
    this.nextGtid = { ...this.nextGtid, ...options };
    return this;
  }

  /** Opens a transaction (its GTID event); row operations open one themselves when none is. */
  begin(options: BeginOptions = {}): this {
    this.writable();
    if (this.tx) throw new EncodeError('a transaction is already open: commit() it first', 'BinlogWriter.begin');
    const { transactional = true, ...gtid } = options;
    if (Object.keys(gtid).length) this.gtid(gtid);
    const flags = transactional ? GtidFlags.FL_TRANSACTIONAL | GtidFlags.FL_ALLOW_PARALLEL : GtidFlags.FL_ALLOW_PARALLEL;
    const written = this.writeGtid(flags);
    this.tx = { transactional, serverId: written.serverId, schema: '' };
    return this;
  }

  /** Ends the open transaction: XID, or for non-transactional tables QUERY 'COMMIT'. */
  commit(options: CommitOptions = {}): this {
    this.writable();
    if (this.pending) throw new EncodeError('commit() while a row statement is being written', 'BinlogWriter.commit');
    const tx = this.tx;
    if (!tx) throw new EncodeError('commit() with no transaction open', 'BinlogWriter.commit');
    if (tx.transactional) {
      this.emit({ type: 'XID_EVENT', xid: this.takeXid(options.xid) }, { serverId: tx.serverId });
    } else {
      this.emit(
        { type: 'QUERY_EVENT', threadId: this.threadId, execTime: 0, errorCode: 0, statusVars: this.statusVars(undefined), schema: tx.schema, query: 'COMMIT' },
        { flags: EventFlags.LOG_EVENT_SUPPRESS_USE_F, serverId: tx.serverId },
      );
    }
    this.tx = undefined;
    return this;
  }

  /** INSERT: ANNOTATE_ROWS (with a statement), TABLE_MAP and WRITE_ROWS events. */
  insert(table: TableRef, rows: Iterable<RowInput>, options: RowsOptions = {}): this {
    const s = this.startRows('insert', table, options);
    for (const row of rows) s.add(row);
    s.end();
    return this;
  }

  /** UPDATE: each row as [before, after]. */
  update(table: TableRef, rows: Iterable<readonly [RowInput, RowInput]>, options: RowsOptions = {}): this {
    const s = this.startRows('update', table, options);
    for (const pair of rows) s.add(pair);
    s.end();
    return this;
  }

  delete(table: TableRef, rows: Iterable<RowInput>, options: RowsOptions = {}): this {
    const s = this.startRows('delete', table, options);
    for (const row of rows) s.add(row);
    s.end();
    return this;
  }

  /**
   * A row statement written row by row (for rows that arrive one at a time): `add` each row (for an
   * update, [before, after]), then `end`. Full events go out as they fill.
   */
  startRows(kind: 'update', table: TableRef, options?: RowsOptions): { add(row: readonly [RowInput, RowInput]): void; end(): void };
  startRows(kind: 'insert' | 'delete', table: TableRef, options?: RowsOptions): { add(row: RowInput): void; end(): void };
  startRows(kind: RowsKind, table: TableRef, options?: RowsOptions): { add(row: RowInput | readonly [RowInput, RowInput]): void; end(): void };
  startRows(kind: RowsKind, ref: TableRef, options: RowsOptions = {}): { add(row: RowInput | readonly [RowInput, RowInput]): void; end(): void } {
    this.writable();
    if (this.pending) throw new EncodeError('another row statement is still being written', `BinlogWriter.${kind}`);
    const table = this.resolve(ref);
    const p: PendingRows = {
      kind,
      table,
      tableId: this.tables.get(table.qualified)!.tableId,
      site: table.qualified,
      statement: options.statement,
      started: false,
      rows: [],
      dataSize: 0,
      count: 0,
    };
    this.pending = p;
    return {
      add: (row) => {
        if (this.pending !== p) throw new EncodeError('the row statement has ended', `BinlogWriter.${kind}`);
        try {
          this.addRow(p, row);
        } catch (e) {
          // A refused row ends its statement unwritten (but for the full events already out).
          this.pending = undefined;
          throw e;
        }
      },
      end: () => {
        if (this.pending !== p) return;
        if (p.rows.length) this.flushRows(p, true);
        this.pending = undefined;
      },
    };
  }

  /** ROTATE to the next file: the last event of this one. */
  rotate(nextFile: string, position: number | bigint = 4): this {
    this.finishable('rotate');
    this.emit({ type: 'ROTATE_EVENT', position: BigInt(position), nextFile });
    this.closedBy = 'ROTATE';
    return this;
  }

  /** STOP, as a server that shuts down writes last. */
  stop(): this {
    this.finishable('stop');
    this.emit({ type: 'STOP_EVENT' });
    this.closedBy = 'STOP';
    return this;
  }

  /** Any event, as given; the header's timestamp, type code, server id and flags default to the writer's. */
  event(event: EventInput): this {
    this.writable();
    const { header, ...body } = event as EventInput & { header?: Partial<BinlogEventInput['header']> };
    this.emit(body as EventBodyInput, header);
    return this;
  }

  /** Checks that nothing is left open (a transaction, a row statement). */
  end(): this {
    if (this.pending) throw new EncodeError('a row statement is still being written', 'BinlogWriter.end');
    if (this.tx) throw new EncodeError('a transaction is still open: commit() it', 'BinlogWriter.end');
    return this;
  }

  /** The whole binlog file so far. */
  toBytes(): Uint8Array {
    if (this.sink) throw new EncodeError('the events went to the sink; none are kept', 'BinlogWriter.toBytes');
    this.end();
    const out = new Uint8Array(this.offset);
    let at = 0;
    for (const c of this.chunks) (out.set(c, at), (at += c.length));
    return out;
  }

  async writeTo(path: string): Promise<void> {
    await writeFile(path, this.toBytes());
  }

  /** Runs one operation of `writeBinlog`'s list (rows given as a synchronous iterable). */
  apply(op: BinlogOp): this {
    switch (op.op) {
      case 'query': {
        const { op: _, sql, ...options } = op;
        return this.query(sql, options);
      }
      case 'createDatabase':
        return this.createDatabase(op.name);
      case 'table':
        this.table(op.table, op);
        return this;
      case 'createTable':
        this.createTable(op.table, op);
        return this;
      case 'begin':
        return this.begin(op.options);
      case 'gtid': {
        const { op: _, ...options } = op;
        return this.gtid(options);
      }
      case 'insert':
      case 'delete':
      case 'update': {
        if (!isIterable(op.rows)) throw new EncodeError('apply() takes rows as a synchronous iterable; writeBinlog takes async ones', `BinlogOp.${op.op}`);
        const s = this.startRows(op.op, op.table, { statement: op.statement });
        for (const row of op.rows as Iterable<RowInput | readonly [RowInput, RowInput]>) s.add(row);
        s.end();
        return this;
      }
      case 'commit':
        return this.commit(op);
      case 'timestamp':
        return this.setTimestamp(op.timestamp);
      case 'rotate':
        return this.rotate(op.nextFile, op.position);
      case 'stop':
        return this.stop();
      case 'event':
        return this.event(op.event);
      default:
        throw new EncodeError(`unknown operation ${JSON.stringify((op as { op: unknown }).op)}`, 'BinlogOp.op');
    }
  }

  // ---- internals ----

  private writable(): void {
    if (this.closedBy) throw new EncodeError(`the binlog has ended (after ${this.closedBy}): no more events`, 'BinlogWriter');
  }

  private finishable(what: string): void {
    this.writable();
    if (this.pending || this.tx) throw new EncodeError(`${what}() inside an open transaction: commit() it first`, `BinlogWriter.${what}`);
  }

  private resolve(ref: TableRef): Table {
    if (typeof ref === 'string') {
      const known = this.tables.get(ref);
      if (!known) throw new EncodeError(`no table '${ref}' is known: define it with table() or createTable()`, 'BinlogWriter');
      return known.table;
    }
    return this.table(ref);
  }

  /** The next XID, or the one given (and the count goes on from it). */
  private takeXid(given: number | bigint | undefined): bigint {
    const xid = given !== undefined ? BigInt(given) : this.nextXid;
    this.nextXid = xid + 1n;
    return xid;
  }

  private statusVars(xid: bigint | undefined): QueryEventStatusVarsEntryInput[] {
    const p = this.profile;
    const vars: QueryEventStatusVarsEntryInput[] = [
      { code: 'Q_FLAGS2_CODE', flags2: p.flags2 },
      { code: 'Q_SQL_MODE_CODE', sqlMode: p.sqlMode },
      { code: 'Q_CATALOG_NZ_CODE', catalog: p.catalog },
      { code: 'Q_CHARSET_CODE', ...p.charset },
    ];
    if (xid !== undefined) vars.push({ code: 'Q_XID', xid });
    return vars;
  }

  private writeGtid(flags: number): { serverId: number } {
    const next = this.nextGtid ?? {};
    this.nextGtid = undefined;
    const seqNo = next.seqNo !== undefined ? BigInt(next.seqNo) : this.lastSeqNo + 1n;
    this.lastSeqNo = seqNo;
    const serverId = next.serverId ?? this.serverId;
    let f = next.flags ?? flags;
    if (next.commitId !== undefined) f |= GtidFlags.FL_GROUP_COMMIT_ID;
    const body: GtidEventInput & { type: 'GTID_EVENT' } = { type: 'GTID_EVENT', seqNo, domainId: next.domainId ?? this.domainId, flags: f };
    if (f & GtidFlags.FL_GROUP_COMMIT_ID) body.commitId = BigInt(next.commitId ?? 0);
    else {
      // Gtid_log_event::write fills the 19-byte post-header with zeros: flags_extra 0, then 5 more.
      body.flagsExtra = 0;
      body.padding = new Uint8Array(5);
    }
    // MariaDB's GTID events carry LOG_EVENT_SUPPRESS_USE_F (as test/fixtures/sample.bin's do).
    this.emit(body, { serverId, flags: EventFlags.LOG_EVENT_SUPPRESS_USE_F });
    return { serverId };
  }

  private addRow(p: PendingRows, row: RowInput | readonly [RowInput, RowInput]): void {
    const t = p.table;
    const index = p.count++;
    const change: RowChange = {};
    if (p.kind === 'update') {
      if (!Array.isArray(row) || row.length !== 2) {
        throw new RowValueError('an UPDATE row is a pair [before, after]', { table: p.site, row: index }, '*', row);
      }
      change.before = t.checkRow(row[0] as RowInput, { table: p.site, row: index, image: 'before' });
      change.after = t.checkRow(row[1] as RowInput, { table: p.site, row: index, image: 'after' });
    } else {
      const image = t.checkRow(row as RowInput, { table: p.site, row: index });
      if (p.kind === 'insert') change.after = image;
      else change.before = image;
    }
    if (!p.started) this.startStatement(p);
    if (this.rowMetadata !== 'FULL') (change.before = this.named(t, change.before)), (change.after = this.named(t, change.after));
    if (change.before === undefined) delete change.before;
    if (change.after === undefined) delete change.after;
    const size = this.rowSize(p, change, index);
    if (p.rows.length && p.dataSize + size > this.maxRowsEventSize) this.flushRows(p, false);
    if (!p.rows.length) p.dataSize = rowsHeaderSize(t.columns.length, p.kind === 'update');
    p.rows.push(change);
    p.dataSize += size;
  }

  /** The statement's first row: its transaction, ANNOTATE_ROWS and TABLE_MAP. */
  private startStatement(p: PendingRows): void {
    if (!this.tx) this.begin({ transactional: p.table.transactional });
    this.tx!.schema ||= p.table.schema;
    const serverId = this.tx!.serverId;
    if (p.statement !== undefined) this.emit({ type: 'ANNOTATE_ROWS_EVENT', query: p.statement }, { serverId });
    this.emit(p.table.tableMap(p.tableId, this.rowMetadata), { serverId });
    p.started = true;
  }

  private readonly scratch = new Writer(1024);

  /** A row image under the names the decoder gives the columns: `@1`, `@2` … without COLUMN_NAME. */
  private named(t: Table, row: Row | undefined): Row | undefined {
    if (!row || this.rowMetadata === 'FULL') return row;
    return Object.fromEntries(t.columns.map((c) => [`@${c.index + 1}`, row[c.name]!]));
  }

  /** The bytes of one row change in a row event, by the same codecs that will write it. */
  private rowSize(p: PendingRows, change: RowChange, index: number): number {
    const { images } = ROWS_EVENTS[p.kind];
    const present = new Array<boolean>(p.table.columns.length).fill(true);
    const w = this.scratch;
    w.reset();
    try {
      encodeRows(w, [change], this.encoder.format.tables, p.tableId, present, images === RowImages.BOTH ? present : undefined, images, `${p.site}[${index}]`);
    } catch (e) {
      if (!(e instanceof BinlogError)) throw e;
      const column = /\.([^.[\]]+)$/.exec(e.schemaPath ?? '')?.[1] ?? '*';
      throw new RowValueError(e.problem, { table: p.site, row: index }, column, undefined);
    }
    return w.pos;
  }

  private flushRows(p: PendingRows, last: boolean): void {
    const { type, images } = ROWS_EVENTS[p.kind];
    const n = p.table.columns.length;
    const present = new Array<boolean>(n).fill(true);
    const body: RowsEventInput & { type: typeof type } = {
      type,
      tableId: p.tableId,
      flags: last ? RowsFlags.STMT_END_F : 0,
      columnCount: n,
      columnsPresent: present,
      rows: p.rows,
    };
    if (images === RowImages.BOTH) body.columnsPresentAfter = present;
    this.emit(body as EventBodyInput, { serverId: this.tx!.serverId });
    p.rows = [];
    p.dataSize = 0;
  }

  private emit(body: EventBodyInput | { type: string; raw: Uint8Array }, header: Partial<BinlogEventInput['header']> = {}): void {
    const typeCode = header.typeCode ?? (EventTypes as Record<string, number>)[body.type] ?? Number(/^UNKNOWN_(\d+)$/.exec(body.type)?.[1]);
    if (!Number.isInteger(typeCode)) throw new EncodeError(`unknown event type '${body.type}'`, 'BinlogWriter.event');
    const event = {
      ...body,
      header: {
        timestamp: header.timestamp ?? this.timestamp,
        typeCode,
        serverId: header.serverId ?? this.tx?.serverId ?? this.serverId,
        flags: header.flags ?? 0,
        ...(header.logPos !== undefined ? { logPos: header.logPos } : {}),
        ...(header.extra !== undefined ? { extra: header.extra } : {}),
      },
    } as BinlogEventInput;
    this.output(this.encoder.encode(event, this.offset));
  }

  private output(bytes: Uint8Array): void {
    this.offset += bytes.length;
    if (this.sink) this.sink(bytes);
    else this.chunks.push(bytes);
  }
}

/** get_data_size() of an empty v1 row event: post-header, column count, the present-columns bitmap(s). */
function rowsHeaderSize(columns: number, update: boolean): number {
  const packed = columns < 251 ? 1 : columns < 1 << 16 ? 3 : columns < 1 << 24 ? 4 : 9;
  return ROWS_POST_HEADER_V1 + packed + ((columns + 7) >> 3) * (update ? 2 : 1);
}

function textOf(v: Text): string {
  return typeof v === 'string' ? v : new TextDecoder().decode(v);
}

function isIterable(x: unknown): x is Iterable<unknown> {
  return x !== null && typeof x === 'object' && Symbol.iterator in x;
}

// ---- operations, streamed ------------------------------------------------------------------------------------

type Rows<T> = Iterable<T> | AsyncIterable<T>;

/** One step of a binlog, as data: what `writeBinlog` takes. */
export type BinlogOp =
  | ({ op: 'query'; sql: string } & QueryOptions)
  | { op: 'createDatabase'; name: string }
  | ({ op: 'table' | 'createTable'; table: Table | TableDef } & TableOptions)
  | { op: 'begin'; options?: BeginOptions }
  | ({ op: 'gtid' } & GtidOptions)
  | { op: 'insert' | 'delete'; table: TableRef; rows: Rows<RowInput>; statement?: string }
  | { op: 'update'; table: TableRef; rows: Rows<readonly [RowInput, RowInput]>; statement?: string }
  | ({ op: 'commit' } & CommitOptions)
  | { op: 'timestamp'; timestamp: number }
  | { op: 'rotate'; nextFile: string; position?: number | bigint }
  | { op: 'stop' }
  | { op: 'event'; event: EventInput };

/**
 * A binlog from operations that arrive one by one (an array, a generator, an async generator), as byte
 * chunks: the magic and header events first, then each event as soon as it is complete. Only the
 * current event is held, however many operations and rows there are, and nothing is made before the
 * consumer asks for it. It ends with an error if a transaction is left open.
 */
export async function* writeBinlog(ops: Iterable<BinlogOp> | AsyncIterable<BinlogOp>, options: Omit<BinlogWriterOptions, 'sink'> = {}): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  const w = new BinlogWriter({ ...options, sink: (c) => queue.push(c) });
  const drain = function* () {
    while (queue.length) yield queue.shift()!;
  };
  yield* drain();
  for await (const op of ops) {
    if (op.op === 'insert' || op.op === 'update' || op.op === 'delete') {
      const s = w.startRows(op.op, op.table, { statement: op.statement });
      for await (const row of op.rows as Rows<RowInput | readonly [RowInput, RowInput]>) {
        s.add(row);
        yield* drain();
      }
      s.end();
    } else {
      w.apply(op);
    }
    yield* drain();
  }
  w.end();
}

/** `writeBinlog` into a file, with the file stream's backpressure. Resolves with the file's size. */
export async function writeBinlogFile(path: string, ops: Iterable<BinlogOp> | AsyncIterable<BinlogOp>, options: Omit<BinlogWriterOptions, 'sink'> = {}): Promise<number> {
  let size = 0;
  const counted = async function* () {
    for await (const chunk of writeBinlog(ops, options)) {
      size += chunk.length;
      yield chunk;
    }
  };
  await pipeline(counted, createWriteStream(path));
  return size;
}
