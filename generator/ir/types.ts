/**
 * The intermediate representation: schemas resolved into typed structures, with every name and expression
 * checked. Emission reads only this, never the YAML; build.ts makes it.
 */
import type { Expr } from '../expr.js';

export type ParamType = 'number' | 'boolean' | 'string' | 'number[]' | 'RowTables';

export interface IrParam {
  name: string;
  type: ParamType;
  doc?: string;
}

export interface IrEnum {
  name: string;
  doc?: string;
  values: [string, number][];
  module: string;
}

export interface IntType {
  kind: 'int';
  width: number;
  signed: boolean;
  be: boolean;
  /** 7- and 8-byte integers are bigints: beyond 2^53 a number would lose bits. */
  big: boolean;
}

export interface PackedType {
  kind: 'packed';
  big: boolean;
  /** MySQL 8.3's serialization varint (`varint`) rather than the length-encoded integer. */
  serial?: boolean;
  /** A signed serialization varint (`zigzag64`): the sign in its lowest bit. */
  signed?: boolean;
}

export type LengthType = IntType | PackedType;

/** How many bytes a string or byte field spans. */
export type Span =
  | { kind: 'size'; size: Expr }
  | { kind: 'rest' }
  | { kind: 'prefix'; prefix: LengthType }
  | { kind: 'nul' }
  | { kind: 'padded'; size: Expr };

export interface IrEntry {
  code: number;
  name: string;
  struct: string;
  /** The columns the entry's values are for, when it is about a table's columns (its `covers:`). */
  covers?: IrCovers;
}

/**
 * The servers whose TABLE_MAP metadata may count a column type otherwise (a cover key's values name them, or `both`).
 */
export const COVER_SERVERS = ['mysql', 'mariadb'] as const;
export type CoverServer = (typeof COVER_SERVERS)[number];

/** Every column, or the codes of the column types covered under each server. */
export type IrCovers = 'all' | Record<CoverServer, number[]>;

export type IrType =
  | (IntType & { enum?: string })
  | (PackedType & { enum?: string })
  | { kind: 'float'; width: 4 | 8 }
  | { kind: 'text'; span: Span }
  | { kind: 'bytes'; span: Span; each?: 'varint' }
  | { kind: 'uint'; size: Expr }
  | { kind: 'bitmap'; bits: Expr; msb: boolean; keepSpare: boolean }
  /** `input`: a derived value names it, so the encoder takes it (and derives the stored fields from it). */
  | { kind: 'computed'; expr: Expr; value: 'number' | 'string' | 'boolean'; enum?: string; input?: boolean }
  /** `undecoded`: the name the images are kept under, as bytes with the reason, when they cannot be split into rows. */
  /**
   * `inferred`: the name of the fraction digits the rows layer inferred for columns the binlog does not size (read back
   * on encode).
   */
  | {
      kind: 'rows';
      table: string;
      columns: string;
      columnsAfter?: string;
      images: Expr;
      layout?: 'v0';
      undecoded?: string;
      inferred?: string;
    }
  | { kind: 'struct'; name: string; args: [string, Expr][] }
  | { kind: 'switch'; on: Expr; cases: { match: number; struct: string }[]; default?: string }
  | { kind: 'tlv'; code: IntType; length: LengthType; entries: IrEntry[]; entryType: string; covers?: string }
  | { kind: 'tagged'; code: IntType; entries: IrEntry[]; entryType: string; covers?: string };

/**
 * A TLV or tagged entry list: its entries are structs of their own; `covers` names the table of their covers, when they
 * have some.
 */
export type IrEntryList = Extract<IrType, { kind: 'tlv' | 'tagged' }>;

export type Derive =
  | { kind: 'lengthOf'; target: string }
  | { kind: 'countOf'; target: string }
  | { kind: 'sizeOf'; target: string; plus: number }
  | { kind: 'value'; expr: Expr }
  | { kind: 'frame'; what: 'eventSize' }
  | { kind: 'totalSize' };

export interface IrField {
  name: string;
  doc?: string;
  /** `Struct.field`: the schema path that errors name. */
  path: string;
  type: IrType;
  /** For structures, switches and lists read from a window of their own. */
  size?: Expr | 'rest';
  repeat?: { kind: 'count'; count: Expr } | { kind: 'rest' };
  cond?: Expr;
  derive?: Derive;
  constValue?: number;
  /** Stored compressed by a runtime codec, when `cond` holds (always when it is absent). */
  compression?: { codec: string; cond?: Expr };
  /** In a struct with `keys`: the id that precedes the field, which is present when its id is next. */
  key?: number;
}

/** How the keyed fields of a struct are introduced: an id (packed or varint), and maybe their length. */
export interface IrKeys {
  serial: boolean;
  sized: boolean;
  /**
   * For a sized list, read as MySQL reads one (any order, the last of a repeated id, other ids kept):
   * its fields' ids in declared order (the order encode writes without a `keyOrder`), its first and
   * last fields, and the id that ends it (the const that follows it), if one does.
   */
  list?: { ids: number[]; first: string; last: string; end?: number };
}

export interface IrStruct {
  name: string;
  doc?: string;
  module: string;
  params: IrParam[];
  fields: IrField[];
  /** For a TLV or tagged-list entry: its code's name, stored as the `code` property. */
  entryCode?: string;
  offsets?: boolean;
  keys?: IrKeys;
  /**
   * Where an event body's post-header ends (what a FORMAT_DESCRIPTION gives a length for): the last of
   * the fields in it, or false when every field is in the body; undefined when the schema does not say.
   */
  postHeader?: string | false;
}

export interface IrConstant {
  name: string;
  value: number | string | number[];
  doc?: string;
  module: string;
}

export interface IrLookup {
  name: string;
  doc?: string;
  /** The enum whose names key the table, or undefined for numeric keys. */
  key?: string;
  /** [first key, last key, key name, value]: numeric tables may give a range of keys one value. */
  entries: [number, number, string | undefined, unknown][];
  module: string;
}

export interface IrEvent {
  code: number;
  name: string;
  body?: string;
  args?: Record<string, string | number>;
  server: EventServer;
  doc?: string;
  transaction?: 'starts' | 'begins' | 'ends' | 'statement' | 'outside' | 'query' | 'rows';
  effect?: EventEffect;
  /** Its post-header's length, from its body's `postHeader` and its arguments, where that fixes it. */
  postHeaderLength?: number;
}

/** Which servers write an event: both MySQL and MariaDB, one of them, or a vendor's fork (Percona, Aurora). */
export type EventServer = CoverServer | 'both' | 'vendor';

/** What an event changes for the events after it (the catalogue's `effect:`; language.schema.json describes each). */
export type EventEffect = 'sets-format' | 'sets-v3-format' | 'starts-encryption' | 'maps-table' | 'rotates';

/** The kinds of value an extern takes and gives (language.schema.json `externType`). */
export type ExternType =
  | 'number'
  | 'boolean'
  | 'string'
  | 'bigint'
  | 'integer'
  | 'value'
  | 'texts'
  | 'numbers'
  | 'indexes'
  | 'bytes'
  | 'column'
  | 'textCodec'
  | 'json';

/** A function the generated code is given by the runtime (the `externs` section). */
export interface IrExtern {
  name: string;
  /** The schema module that declares it: its helpers interface lists it. */
  module: string;
  doc: string;
  args: [string, ExternType][];
  returns: ExternType;
  /** The helper that writes its result's JSON from the same arguments, after the JSON writer. */
  json?: string;
}

/** Where a cell parameter comes from. */
export interface IrCellParam {
  name: string;
  from: 'meta' | 'layout' | 'unsigned' | 'signKnown' | 'members' | 'binary';
  key: string;
  default?: number;
}

/** A bit field of a cell part: `shift` bits above the part's lowest. */
export interface IrBitField {
  name: string;
  bits: number;
  shift: number;
  constValue?: number;
  error?: string;
}

/** A stored part of a cell: a fixed integer (maybe split into bit fields), or one sized per column. */
export type IrCellPart = { name: string } & (
  | { kind: 'fixed'; int: IntType; bits: IrBitField[] }
  | { kind: 'uint' | 'bigint'; bytes: Expr; be: boolean }
  | { kind: 'int'; bytes: Expr; signed: Expr }
  | { kind: 'float'; bytes: Expr }
  /** A little-endian length of `prefix` bytes, then that many bytes. */
  | { kind: 'bytes'; prefix: Expr }
  /** Exactly `size` bytes, reckoned per value: it may read the parts before it. */
  | { kind: 'sized'; size: Expr }
  /** A value and its length before it, as the column's text codec reads and writes them. */
  | { kind: 'text'; codec: Expr }
);

export interface IrCheck {
  cond: Expr;
  /** The problem, each `{…}` standing for the value of an expression: those of `values`, in order. */
  error: string;
  values: Expr[];
}

export interface IrCell {
  name: string;
  doc: string;
  module: string;
  params: IrCellParam[];
  lets: [string, Expr][];
  parts: IrCellPart[];
  /**
   * `json`: where the value is the result of an extern with a JSON writer, that writer's call (same
   * arguments); `with`: the numeric parts the value carries (a WithCell), which encode takes from it.
   */
  decode: {
    lets: [string, Expr][];
    checks: IrCheck[];
    value: Expr;
    with: string[];
    memo: boolean;
    json?: Extract<Expr, { kind: 'call' }>;
  };
  encode: { fields: Expr; gives: string[]; lets: [string, Expr][]; checks: IrCheck[]; memo: boolean };
  /** Every extern its code calls, for the factory to take from the helpers. */
  calls: string[];
}

/** A width in bytes, or `format`: the width of the container form it is read in. */
export type JsonbWidth = number | 'format';

/** A type's value in binary JSON (the `values` of the `binaryJson` section), with the type's code. */
export type IrJsonbValue = { name: string; code: number } & (
  | { kind: 'object' | 'array'; format: number }
  | { kind: 'literal'; values: [code: number, json: null | boolean][]; inlined: number[] }
  /** A little-endian integer of `width` bytes, or a double (`float`); `inlined`: the formats that inline it. */
  | { kind: 'number'; width: number; signed: boolean; float: boolean; inlined: number[] }
  | { kind: 'string' }
  /** custom-data: the custom types shown as values, by their key, with their codes in `enumName`. */
  | { kind: 'custom'; enumName: string; as: [tag: string, code: number, name: string][] }
);

/** MySQL's binary JSON (sql-common/json_binary.h's grammar); formats are referred to by their index. */
export interface IrBinaryJson {
  module: string;
  doc?: string;
  typeEnum: string;
  /** The container forms, in the order the serializer tries them. */
  formats: { name: string; width: number }[];
  values: IrJsonbValue[];
  containers: {
    elementCount: JsonbWidth;
    size: JsonbWidth;
    keyOffset: JsonbWidth;
    keyLength: JsonbWidth;
    valueOffset: JsonbWidth;
    keyOrder: 'length-then-bytes';
  };
  dataLength: { bitsPerByte: number; maxBytes: number };
}

/** The row images of a v1/v2 rows event (the `rowImages` section). */
export interface IrRowImages {
  module: string;
  doc?: string;
  /** The flags of the event's images. */
  images: string;
  /** A change's parts in the order they are stored, each with the images bit it is present under. */
  parts: { part: 'before' | 'options' | 'after'; flag: string; bit: number }[];
  /**
   * The value options' struct, its field of bits, the bits the reader knows (`known` flags), and the column types it
   * has a bit for.
   */
  options: {
    struct: string;
    field: string;
    known: string;
    mask: number;
    covers: { enum: string; codes: [name: string, code: number][] };
  };
  nulls: { msb: boolean; spareSet: boolean };
}

/** A fact of the table or of a column that the old row images' layout reads. */
export interface IrOldFact {
  name: string;
  type: 'boolean' | 'number' | 'string';
  optional: boolean;
  doc?: string;
}

/** Bits of the null bytes given out when `cond` holds, `count` of them. */
export interface IrOldBits {
  cond: Expr;
  count: Expr;
}

/** The row images of a rows v0 event (the `oldRowImages` section): where the null bytes keep each bit. */
export interface IrOldRowImages {
  module: string;
  doc?: string;
  table: IrOldFact[];
  column: IrOldFact[];
  msb: boolean;
  spareSet: boolean;
  /** The record's own bits, set in every record, before any column's. */
  record: (IrOldBits & { name: string })[];
  /** Each column's bits, in this order: its null bit, or the bits holding its packed form's first byte. */
  columns: (IrOldBits & { holds: 'isNull' | 'firstPackedByte' })[];
  /** The most bytes a column's packed form has, for the columns `cond` holds of. */
  longest: { cond: Expr; bytes: Expr };
}

/** A server the builder imitates (`servers`): its FORMAT_DESCRIPTION and its QUERY events' session state. */
export interface IrServer {
  name: string;
  doc: string;
  flavor: 'mysql' | 'mariadb';
  version: string;
  /** The event types its FORMAT_DESCRIPTION lists post-header lengths for: codes 1 to this one. */
  eventTypes: number;
  /** The lengths it lists otherwise than the catalogue's, or where the catalogue has none, by code. */
  postHeaderLengths: { code: number; event: string; length: number }[];
  flags2: number;
  sqlMode: bigint;
  catalog: string;
  charset: { characterSetClient: number; collationConnection: number; collationServer: number };
}

export interface IrServers {
  module: string;
  servers: IrServer[];
}

export const SERVED_VARIABLE_SOURCES = [
  'serverId',
  'version',
  'checksum',
  'uuid',
  'gtidPosition',
  'rowMetadata',
  'rowImage',
  'characterSetServer',
  'collationServer',
  'maxAllowedPacket',
  'waitTimeout',
] as const;
export type ServedVariableSource = (typeof SERVED_VARIABLE_SOURCES)[number];
/** The sources that may not say (no QUERY event carries the server's collation): a `value` beside them is answered. */
export const SOURCES_THAT_MAY_NOT_SAY: readonly ServedVariableSource[] = ['characterSetServer', 'collationServer'];
export type ServedVariableServer = 'both' | 'mysql' | 'mariadb';

/**
 * A variable `binlog serve` reports (the `servedVariables` section): a fixed value, or where it comes from and the
 * value answered when that does not say.
 */
export type IrServedVariable = { name: string; server: ServedVariableServer; doc?: string } & (
  { value: string } | { from: ServedVariableSource; value?: string }
);

export interface IrServedVariables {
  module: string;
  doc?: string;
  variables: IrServedVariable[];
}

export interface Ir {
  structs: Map<string, IrStruct>;
  enums: Map<string, IrEnum>;
  flags: Map<string, IrEnum>;
  context: IrParam[];
  constants: IrConstant[];
  lookups: IrLookup[];
  events: IrEvent[];
  /** The module whose schema lists the event catalogue. */
  eventsModule?: string;
  modules: string[];
  externs: IrExtern[];
  cells: IrCell[];
  binaryJson?: IrBinaryJson;
  rowImages?: IrRowImages;
  oldRowImages?: IrOldRowImages;
  servers?: IrServers;
  servedVariables?: IrServedVariables;
  /** Names used by an event body may not be any of these: the event object keeps them for itself. */
  reservedEventKeys: string[];
}

export const RESERVED_EVENT_KEYS = ['pos', 'header', 'type', 'checksum', 'raw', 'events'];
