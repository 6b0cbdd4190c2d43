/**
 * SQL column types → binlog column types: what a MariaDB 10.11 server logs in TABLE_MAP for a column
 * that CREATE TABLE defines (its type, metadata, signedness, character set, members), from the facts of
 * schemas/sqltypes.yaml (generated/sqltypes.ts): type names and aliases, their column types and limits,
 * the character sets' bytes per character, collation names. MariaDB: sql/field.cc
 * (Field_*::binlog_type_info, Field_string::do_save_field_metadata, get_set_pack_length).
 */
import { CellLayouts } from '../../generated/columns.js';
import { ColumnType, type ColumnTypeName, GeometryType, type GeometryTypeName } from '../../generated/rows.js';
import { Charsets, Collations, SqlType, type SqlTypeName, SqlTypes } from '../../generated/sqltypes.js';
import { charsetOf } from '../values/charsets.js';
import type { Column, Flavor } from '../values/column.js';
import { covers } from './covers.js';
import { parseType, type ParsedType } from './sql-type-parser.js';
import type { BuiltColumn, ColumnDef, SqlKind } from './table-types.js';

/**
 * An entry of the SqlTypes table (schemas/sqltypes.yaml) that is not an alias, its keys as optional as its kind makes
 * them.
 */
export interface SqlTypeFacts {
  kind: SqlKind;
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
  before56?: ColumnTypeName;
  compressed?: ColumnTypeName;
  mysql?: ColumnTypeName;
  fixedLength?: number;
}

/** A type's canonical name and facts, an alias followed to the type it names ('integer' → 'int'). */
function lookUp(name: string): { name: SqlTypeName; facts: SqlTypeFacts } | undefined {
  if (!Object.hasOwn(SqlType, name)) return undefined;
  let current = name as SqlTypeName;
  // An alias names a type, never another alias; the bound only keeps a bad table from looping.
  for (let hops = 0; hops < 4; hops++) {
    const entry = (SqlTypes as Record<number, SqlTypeFacts | { alias: SqlTypeName } | undefined>)[SqlType[current]];
    if (!entry) return undefined;
    if (!('alias' in entry)) return { name: current, facts: entry };
    current = entry.alias;
  }
  return undefined;
}

/** The facts of a SQL type by its lower-case name or alias. */
export function sqlTypeFacts(name: string): SqlTypeFacts | undefined {
  return lookUp(name)?.facts;
}

/**
 * The types a TABLE_MAP may log for the column: its own, then where there are others, the one MySQL before
 * 5.6 logs (a TIME, DATETIME or TIMESTAMP without fraction, as rows v0 have it; MariaDB logs its own
 * fractional forms under that type too), the COMPRESSED form's (MariaDB) and MySQL's own (JSON). The
 * canonical SQL type starts with the type's name.
 */
export function loggedTypes(b: BuiltColumn, flavor: Flavor): number[] {
  const facts = sqlTypeFacts(/^[A-Z0-9_]+/.exec(b.sqlType)![0].toLowerCase());
  const others = [b.fsp && flavor !== 'mariadb' ? undefined : facts?.before56, facts?.compressed, facts?.mysql];
  return [b.columnType, ...others.flatMap((t) => (t === undefined ? [] : [ColumnType[t]]))];
}

// ---- character sets and collations ----------------------------------------------------------------------

export interface CharsetFacts {
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
const COLLATION_IDS = new Map<string, number>(
  [...(Collations as ReadonlyMap<number, string>)].map(([id, name]) => [name, id]),
);

/** A character set by its lower-case name or alias. */
export function characterSet(name: string): CharsetFacts | undefined {
  return CHARSETS.get(name);
}

/** A collation's id by its name (any case), where the generated table knows it. */
export function collationId(name: string): number | undefined {
  return COLLATION_IDS.get(name.toLowerCase());
}

/** A collation's name by its id, where the generated table knows it. */
export function collationName(id: number): string | undefined {
  return (Collations as ReadonlyMap<number, string>).get(id);
}

/** The collation of bytes (character set binary). */
export const BINARY_COLLATION = CHARSETS.get('binary')!.defaultCollation;

export interface ResolvedCharset {
  charset: CharsetFacts;
  collation: number;
}

/** A character set and collation from their names (either may be absent; then the other decides). */
export function resolveCharset(
  charset: string | undefined,
  collation: string | number | undefined,
  fail: (p: string) => never,
): ResolvedCharset | undefined {
  let cs: CharsetFacts | undefined;
  if (charset !== undefined) {
    cs = CHARSETS.get(charset.toLowerCase());
    if (!cs) fail(`unknown character set '${charset}'`);
  }
  if (collation === undefined) return cs && { charset: cs, collation: cs.defaultCollation };
  const id = typeof collation === 'number' ? collation : collationId(collation);
  if (id === undefined) return fail(`unknown collation '${collation}' (give its id as a number)`);
  const name = charsetOf(id);
  const ofCollation = name === undefined ? undefined : CHARSETS.get(name);
  if (!ofCollation) return fail(`collation ${collation} has no known character set`);
  if (cs && cs !== ofCollation) fail(`collation ${collation} is not of character set ${cs.name}`);
  return { charset: ofCollation, collation: id };
}

// ---- columns ------------------------------------------------------------------------------------------------

/** Describes a column from its definition (`fail` throws for what MariaDB would refuse). */
export function describeColumn(
  def: ColumnDef,
  index: number,
  inKey: boolean,
  tableCharset: ResolvedCharset | undefined,
  fail: (p: string) => never,
): BuiltColumn {
  if (typeof def.name !== 'string' || def.name === '') fail('a column needs a name');
  if (typeof def.type !== 'string') fail('a column needs a type');
  const t = parseType(def.type, fail);
  const found = lookUp(t.name);
  if (!found) return fail(`unknown SQL type '${t.name}'`);
  const { facts } = found;
  const upper = found.name.toUpperCase();
  const unsigned = def.unsigned ?? t.unsigned ?? false;
  if (def.unsigned === false && t.unsigned) fail('the type says UNSIGNED, the definition unsigned: false');
  const col = loggedColumn(def, index, facts, upper, isNullable(def, t, inKey, fail), unsigned);
  if (unsigned && !col.numeric) fail(`${upper} cannot be UNSIGNED`);
  const mbmaxlen = giveCharset(col, def, t, facts, tableCharset, fail);
  if (def.default !== undefined) col.default = def.default;
  const args = t.args ?? [];
  const numbers = (most: number): number[] => {
    if (args.length > most || args.some((a) => typeof a !== 'number'))
      fail(`${t.name.toUpperCase()} takes at most ${most} numeric parameter(s)`);
    return args as number[];
  };
  PARAMETERS[facts.kind](col, { facts, upper, args, numbers, unsigned, mbmaxlen, fail });
  return col;
}

/** NULL or NOT NULL, from the type's words, `nullable` and the primary key (whose columns are NOT NULL). */
function isNullable(def: ColumnDef, t: ParsedType, inKey: boolean, fail: (p: string) => never): boolean {
  if (t.nullable !== undefined && def.nullable !== undefined && t.nullable !== def.nullable)
    fail('the type and `nullable` disagree');
  const explicit = def.nullable ?? t.nullable;
  if (inKey && explicit === true) fail('a primary key column cannot be NULL');
  return explicit ?? !inKey;
}

/** The column as its type logs it, before its parameters: the column types and what optional metadata counts it in. */
function loggedColumn(
  def: ColumnDef,
  index: number,
  facts: SqlTypeFacts,
  upper: string,
  nullable: boolean,
  unsigned: boolean,
): BuiltColumn {
  const columnType = ColumnType[facts.columnType];
  const realType = ColumnType[facts.realType ?? facts.columnType];
  return {
    index,
    name: def.name,
    sqlType: upper,
    kind: facts.kind,
    columnType,
    realType,
    metadata: {},
    nullable,
    unsigned: facts.alwaysUnsigned ?? unsigned,
    // As the MariaDB server the builder imitates counts them.
    numeric: covers('SIGNEDNESS', realType, 'mariadb'),
    character: covers('COLUMN_CHARSET', realType, 'mariadb'),
  };
}

const CHARACTER_KINDS: readonly SqlKind[] = ['char', 'varchar', 'blob', 'enum', 'set'];

/**
 * Gives a character column its character set and collation (given, fixed by its type, the table's, or
 * utf8mb4), a binary string or geometry column binary; returns the bytes per character its lengths count.
 */
function giveCharset(
  col: BuiltColumn,
  def: ColumnDef,
  t: ParsedType,
  facts: SqlTypeFacts,
  tableCharset: ResolvedCharset | undefined,
  fail: (p: string) => never,
): number {
  const upper = col.sqlType;
  const isCharacterType = CHARACTER_KINDS.includes(facts.kind) && !facts.binary;
  const charsetGiven = def.charset ?? t.charset;
  const collationGiven = def.collation ?? t.collation;
  const given = charsetGiven !== undefined || collationGiven !== undefined;
  // BINARY, VARBINARY and the BLOBs take CHARACTER SET binary, which they have anyway.
  if (!isCharacterType && given && !(facts.binary && /^binary$/i.test(String(charsetGiven ?? collationGiven))))
    fail(`${upper} has no character set`);
  if (isCharacterType) {
    const fixed = facts.charset !== undefined ? resolveCharset(facts.charset, facts.collation, fail) : undefined;
    if (fixed && given) fail(`${upper}'s character set is always ${facts.collation}`);
    const cs =
      fixed ??
      resolveCharset(charsetGiven, collationGiven, fail) ??
      tableCharset ??
      resolveCharset('utf8mb4', undefined, fail)!;
    col.collation = cs.collation;
    col.charset = charsetOf(cs.collation) ?? cs.charset.name;
    col.ownCharset = fixed !== undefined || given;
    return cs.charset.maxBytes;
  }
  if (col.character) {
    col.collation = BINARY_COLLATION;
    col.charset = 'binary';
    col.ownCharset = true;
  }
  return 1;
}

/** What a kind's parameters are read with. */
interface TypeParameters {
  facts: SqlTypeFacts;
  /** The canonical type name, upper case. */
  upper: string;
  args: (number | string)[];
  /** The parameters, refused unless they are at most `most` numbers. */
  numbers(most: number): number[];
  unsigned: boolean;
  /** Bytes per character of the column's character set (1 without one). */
  mbmaxlen: number;
  fail(problem: string): never;
}

/** Per kind: reads the type's parameters into the column's limits, metadata and canonical SQL type. */
const PARAMETERS: Record<SqlKind, (col: BuiltColumn, p: TypeParameters) => void> = {
  int(col, p) {
    p.numbers(1); // a display width, which changes nothing logged
    col.sqlType = `${p.upper}${p.unsigned ? ' UNSIGNED' : ''}`;
  },
  float(col, p) {
    const [precision, decimals] = p.numbers(2);
    // FLOAT(p) with p > 24 is a DOUBLE; FLOAT(M,D) and DOUBLE(M,D) are logged as plain FLOAT and DOUBLE.
    const bitsOnly = precision !== undefined && decimals === undefined;
    if (bitsOnly && precision > 53) p.fail(`FLOAT(${precision}) is beyond 53 bits`);
    const isDouble = p.facts.columnType === 'DOUBLE' || (bitsOnly && precision > 24);
    col.columnType = col.realType = isDouble ? ColumnType.DOUBLE : ColumnType.FLOAT;
    col.metadata = { packLength: isDouble ? 8 : 4 };
    col.sqlType = `${isDouble ? 'DOUBLE' : 'FLOAT'}${p.unsigned ? ' UNSIGNED' : ''}`;
  },
  decimal(col, p) {
    const { maxPrecision, maxScale, defaultPrecision } = p.facts as Required<SqlTypeFacts>;
    const [precision = defaultPrecision, scale = 0] = p.numbers(2);
    if (precision < 1 || precision > maxPrecision)
      p.fail(`DECIMAL precision ${precision} is not within 1 to ${maxPrecision}`);
    if (scale > maxScale || scale > precision)
      p.fail(`DECIMAL(${precision},${scale}): the scale is at most ${maxScale} and the precision`);
    col.precision = precision;
    col.scale = scale;
    col.metadata = { precision, scale };
    col.sqlType = `DECIMAL(${precision},${scale})${p.unsigned ? ' UNSIGNED' : ''}`;
  },
  date(col, p) {
    p.numbers(0);
    col.sqlType = 'DATE';
  },
  year(col, p) {
    const [width] = p.numbers(1);
    if (width !== undefined && width !== 4) p.fail('YEAR takes only the display width 4');
    col.sqlType = 'YEAR';
  },
  time: temporal,
  datetime: temporal,
  timestamp: temporal,
  bit(col, p) {
    const [bits = 1] = p.numbers(1);
    if (bits < 1 || bits > p.facts.maxBits!) p.fail(`BIT(${bits}) is not within 1 to ${p.facts.maxBits} bits`);
    col.bits = bits;
    col.metadata = { bitsInLastByte: bits % 8, wholeBytes: bits >> 3 };
    col.sqlType = `BIT(${bits})`;
  },
  enum: members,
  set: members,
  char(col, p) {
    const fixed = p.facts.fixedLength;
    const [length = fixed ?? p.facts.defaultLength!] = p.numbers(fixed === undefined ? 1 : 0);
    if (fixed === undefined && length > p.facts.maxLength!)
      p.fail(`${p.upper}(${length}) is longer than ${p.facts.maxLength}`);
    const bytes = length * p.mbmaxlen;
    col.length = length;
    col.maxBytes = bytes;
    // STRING's metadata encoder folds the byte length into the type byte (schemas/rows.yaml StringMeta).
    col.metadata = { realType: col.realType, maxLength: bytes };
    col.sqlType = fixed === undefined ? `${p.upper}(${length})` : p.upper;
  },
  varchar(col, p) {
    const [length] = p.numbers(1);
    if (length === undefined) return p.fail(`${p.upper} needs a length`);
    const bytes = length * p.mbmaxlen;
    if (bytes > p.facts.maxBytes!) p.fail(`${p.upper}(${length}) holds ${bytes} bytes, more than ${p.facts.maxBytes}`);
    col.length = length;
    col.maxBytes = bytes;
    col.metadata = { maxLength: bytes };
    col.sqlType = `${p.upper}(${length})`;
  },
  blob: lengthPrefixed,
  geometry: lengthPrefixed,
};

/** TIME, DATETIME and TIMESTAMP: `(fsp)` fractional digits. */
function temporal(col: BuiltColumn, p: TypeParameters): void {
  const [fsp = 0] = p.numbers(1);
  if (fsp > p.facts.maxFsp!) p.fail(`${p.upper}(${fsp}): at most ${p.facts.maxFsp} fractional digits`);
  col.fsp = fsp;
  col.metadata = { fsp };
  col.sqlType = fsp ? `${p.upper}(${fsp})` : p.upper;
}

/** ENUM and SET: their members, and the bytes a value takes (ENUM 1 or 2, SET get_set_pack_length). */
function members(col: BuiltColumn, p: TypeParameters): void {
  const { args, upper } = p;
  if (!args.length || args.some((a) => typeof a !== 'string')) p.fail(`${upper} needs its members, as quoted strings`);
  const names = args as string[];
  if (names.length > p.facts.maxMembers!) p.fail(`${upper} has at most ${p.facts.maxMembers} members`);
  if (new Set(names).size !== names.length) p.fail(`${upper} has a member twice`);
  if (col.kind === 'set' && names.some((m) => m.includes(','))) p.fail('a SET member cannot contain a comma');
  col.members = names;
  const pack = col.kind === 'enum' ? (names.length < 256 ? 1 : 2) : setPackLength(names.length);
  col.metadata = { realType: col.realType, maxLength: pack };
  col.sqlType = `${upper}(${names.map(sqlString).join(',')})`;
}

/** get_set_pack_length: a byte per 8 members, 8 bytes beyond 32 members. */
function setPackLength(count: number): number {
  const n = (count + 7) >> 3;
  return n > 4 ? 8 : n;
}

/** A string as SQL quotes it. */
const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

const TEXT_FAMILY: readonly SqlTypeName[] = ['tinytext', 'text', 'mediumtext', 'longtext'];
const BLOB_FAMILY: readonly SqlTypeName[] = ['tinyblob', 'blob', 'mediumblob', 'longblob'];

/** The BLOBs and TEXTs, JSON and the geometry types: a length prefix of `packLength` bytes. */
function lengthPrefixed(col: BuiltColumn, p: TypeParameters): void {
  const { facts } = p;
  p.numbers(facts.kind === 'blob' && !facts.json ? 1 : 0);
  let [name, pack, maxBytes] = [p.upper, facts.packLength!, facts.maxBytes!];
  if (p.args.length === 1) {
    // TEXT(n) and BLOB(n): the smallest of the family that holds n characters' bytes.
    const want = (p.args[0] as number) * p.mbmaxlen;
    const family = (facts.binary ? BLOB_FAMILY : TEXT_FAMILY).map((x) => [x, sqlTypeFacts(x)!] as const);
    const fit = family.find(([, f]) => f.maxBytes! >= want) ?? family[3]!;
    [name, pack, maxBytes] = [fit[0].toUpperCase(), fit[1].packLength!, fit[1].maxBytes!];
  }
  col.maxBytes = maxBytes;
  col.metadata = { packLength: pack };
  col.sqlType = name;
  if (facts.json) col.json = true;
  if (facts.geometryType) col.geometryType = GeometryType[facts.geometryType];
}

/**
 * The column as the cell codecs take it, as a TABLE_MAP of its description gives it to the table
 * registry; `logged` is the type that TABLE_MAP logs (the description's, or its pre-5.6 type).
 */
export function cellColumn(b: BuiltColumn, logged = b.columnType): Column {
  const realType = logged === b.columnType ? b.realType : logged;
  const meta: Record<string, unknown> = { ...b.metadata };
  if (b.kind === 'bit') meta.bits = b.bits;
  const c: Column = {
    index: b.index,
    name: b.name,
    type: logged,
    realType,
    layout: CellLayouts[realType as keyof typeof CellLayouts] ?? { codec: 'unsupported' },
    nullable: b.nullable,
    meta,
  };
  if (b.numeric) c.unsigned = b.unsigned;
  if (b.collation !== undefined) ((c.collation = b.collation), (c.charset = b.charset));
  if (b.members) c.members = b.members;
  return c;
}
