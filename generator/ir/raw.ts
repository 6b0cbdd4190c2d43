/**
 * A schema file's data as the language's JSON Schema admits it (validate.ts has checked that much):
 * what the passes read, never emission.
 */
import type { SchemaFile } from '../load.js';
import type { ExternType, IrEvent, ParamType, ServedVariableServer, ServedVariableSource } from './types.js';

export interface RawField {
  name: string;
  type: string;
  doc?: string;
  enum?: string;
  size?: string | number;
  prefix?: string;
  bits?: string | number;
  repeat?: 'count' | 'rest';
  count?: string | number;
  if?: string | number;
  const?: number;
  derive?: Record<string, string | number>;
  args?: Record<string, string | number>;
  on?: string | number;
  computed?: string | number;
  order?: 'lsb' | 'msb';
  spare?: 'keep';
  table?: string;
  columns?: string;
  columnsAfter?: string;
  layout?: 'v0';
  undecoded?: string;
  inferred?: string;
  images?: string | number;
  compression?: { codec: string; if?: string | number };
  cases?: Record<string, string>;
  default?: string;
  code?: string;
  length?: string;
  entries?: Record<string, { name: string; doc?: string; covers?: string | string[]; fields: RawField[] }>;
  key?: number;
  each?: 'varint';
}

export interface RawStruct {
  doc?: string;
  offsets?: boolean;
  postHeader?: string | false;
  keys?: { type: 'packed' | 'varint'; sized?: boolean };
  params?: Record<string, { type: ParamType; doc?: string }>;
  fields: RawField[];
}

export interface RawBitField {
  name: string;
  bits: number;
  const?: number;
  error?: string;
  doc?: string;
}

export interface RawCellPart {
  name: string;
  type: string;
  doc?: string;
  bits?: RawBitField[];
  bytes?: string | number;
  order?: 'big' | 'little';
  signed?: string | boolean;
  prefix?: string | number;
  size?: string | number;
  codec?: string;
}

export type RawLets = Record<string, string | number | boolean>;
export type RawChecks = { if: string | number | boolean; error: string }[];

export interface RawCell {
  doc: string;
  params?: Record<string, string | { from: string; default: number }>;
  let?: RawLets;
  layout: RawCellPart[];
  decode: { let?: RawLets; checks?: RawChecks; value: string | number | boolean; with?: string[]; memo?: boolean };
  encode: { fields: string; gives: string[]; let?: RawLets; checks?: RawChecks; memo?: boolean };
}

export interface RawExtern {
  doc: string;
  args: Record<string, ExternType>;
  returns: ExternType;
  json?: string;
}

export interface RawJsonbValue {
  type: string;
  doc?: string;
  format?: string;
  values?: Record<string, null | boolean>;
  inlined?: string[];
  enum?: string;
  as?: Record<string, string>;
}

export type RawJsonbWidth = 'format' | 'u8' | 'u16' | 'u32';

export interface RawBinaryJson {
  doc?: string;
  type: string;
  formats: Record<string, 'u8' | 'u16' | 'u32'>;
  values: Record<string, RawJsonbValue>;
  containers: Record<'elementCount' | 'size' | 'keyOffset' | 'keyLength' | 'valueOffset', RawJsonbWidth> & {
    keyOrder: 'length-then-bytes';
  };
  dataLength: { bitsPerByte: number; maxBytes: number };
}

export interface RawRowImages {
  doc?: string;
  images: string;
  change: { part: 'before' | 'options' | 'after'; if: string; doc?: string }[];
  options: { struct: string; field: string; known: string; covers: string[] };
  nulls: { order: 'lsb' | 'msb'; spare: 'set' | 'clear' };
}

/** A fact the old row images' layout reads: of the table, or of each column. */
export interface RawOldFact {
  type: 'boolean' | 'number' | 'string';
  optional?: boolean;
  doc?: string;
}

export interface RawOldRowImages {
  doc?: string;
  table: Record<string, RawOldFact>;
  column: Record<string, RawOldFact>;
  nullBytes: {
    order: 'lsb' | 'msb';
    record: { name: string; if: string | boolean; count: string | number; doc?: string }[];
    columns: { holds: 'isNull' | 'firstPackedByte'; if: string | boolean; count: string | number; doc?: string }[];
    spare: 'set' | 'clear';
  };
  longest: { if: string | boolean; bytes: string | number };
}

/** A server the builder imitates (an entry of the `servers` section). */
export interface RawServer {
  doc: string;
  flavor: 'mysql' | 'mariadb';
  version: string;
  lastEvent: { event: string; doc?: string };
  postHeaderLengths: Record<string, { length: number; doc: string }>;
  session: {
    doc?: string;
    flags2: { value: number; doc?: string };
    sqlMode: { flags: string; set: string[]; doc?: string };
    catalog: string;
    charset: { characterSetClient: number; collationConnection: number; collationServer: number; doc?: string };
  };
}

export type RawServedVariable = ({ value: string } | { from: ServedVariableSource; value?: string }) & {
  server?: ServedVariableServer;
  doc?: string;
};

export interface RawServedVariables {
  doc?: string;
  variables: Record<string, RawServedVariable>;
}

export interface RawFile {
  doc?: string;
  context?: Record<string, { type: ParamType; doc?: string }>;
  constants?: Record<string, { value: number | string | number[]; doc?: string }>;
  lookups?: Record<string, { doc?: string; key: string; values: Record<string, unknown> }>;
  enums?: Record<string, { doc?: string; values: Record<string, number> }>;
  flags?: Record<string, { doc?: string; values: Record<string, number> }>;
  structs?: Record<string, RawStruct>;
  events?: IrEvent[];
  externs?: Record<string, RawExtern>;
  cells?: Record<string, RawCell>;
  binaryJson?: RawBinaryJson;
  rowImages?: RawRowImages;
  oldRowImages?: RawOldRowImages;
  servers?: Record<string, RawServer>;
  servedVariables?: RawServedVariables;
}

export function rawFile(file: SchemaFile): RawFile {
  return file.data as RawFile;
}
