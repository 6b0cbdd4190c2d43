/**
 * The intermediate representation: schemas resolved into typed structures, with every name and expression
 * checked. Emission reads only this, never the YAML.
 */
import { callArguments, contextNames, ExprError, identifiers, indexed, parseExpr, type Expr } from './expr.js';
import { schemaError, type SchemaError, type SchemaFile, type YamlPath } from './load.js';

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
}

export type IrType =
  | (IntType & { enum?: string })
  | (PackedType & { enum?: string })
  | { kind: 'float'; width: 4 | 8 }
  | { kind: 'text'; span: Span }
  | { kind: 'bytes'; span: Span; each?: 'varint' }
  | { kind: 'uint'; size: Expr }
  | { kind: 'bitmap'; bits: Expr; msb: boolean; keepSpare: boolean }
  | { kind: 'computed'; expr: Expr; value: 'number' | 'string' | 'boolean'; enum?: string }
  | { kind: 'rows'; table: string; columns: string; columnsAfter?: string; images: Expr; layout?: 'v0' }
  | { kind: 'struct'; name: string; args: [string, Expr][] }
  | { kind: 'switch'; on: Expr; cases: { match: number; struct: string }[]; default?: string }
  | { kind: 'tlv'; code: IntType; length: LengthType; entries: IrEntry[]; entryType: string }
  | { kind: 'tagged'; code: IntType; entries: IrEntry[]; entryType: string };

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
  server?: string;
  doc?: string;
  transaction?: 'starts' | 'outside';
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
  /** Names used by an event body may not be any of these: the event object keeps them for itself. */
  reservedEventKeys: string[];
}

export const RESERVED_EVENT_KEYS = ['pos', 'header', 'type', 'checksum', 'raw', 'events'];
/** Names the emitted code uses for itself. */
const RESERVED_NAMES = new Set(['r', 'w', 'v', 'i', 'ctx', 'remaining', 'index', 'code', 'default', 'new', 'delete', 'function', 'var', 'let', 'const', 'class', 'return', 'this', 'switch', 'case', 'if', 'else', 'for', 'while', 'do', 'in', 'of', 'typeof', 'void', 'with', 'yield', 'await', 'enum', 'export', 'import', 'super', 'throw', 'try', 'catch', 'finally', 'break', 'continue', 'debugger', 'instanceof', 'null', 'true', 'false']);
/** Functions an expression may call: implemented in runtime/builtins.ts. */
const BUILTINS = new Set(['versionAtLeast', 'tableName', 'hasTableDefinition', 'bit']);

interface RawField {
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
  images?: string | number;
  compression?: { codec: string; if?: string | number };
  cases?: Record<string, string>;
  default?: string;
  code?: string;
  length?: string;
  entries?: Record<string, { name: string; doc?: string; fields: RawField[] }>;
  key?: number;
  each?: 'varint';
}

interface RawStruct {
  doc?: string;
  offsets?: boolean;
  keys?: { type: 'packed' | 'varint'; sized?: boolean };
  params?: Record<string, { type: ParamType; doc?: string }>;
  fields: RawField[];
}

interface RawFile {
  doc?: string;
  context?: Record<string, { type: ParamType; doc?: string }>;
  constants?: Record<string, { value: number | string | number[]; doc?: string }>;
  lookups?: Record<string, { doc?: string; key: string; values: Record<string, unknown> }>;
  enums?: Record<string, { doc?: string; values: Record<string, number> }>;
  flags?: Record<string, { doc?: string; values: Record<string, number> }>;
  structs?: Record<string, RawStruct>;
  events?: IrEvent[];
}

const INT = /^(u|i)(8|16|24|32|40|48|56|64)(be)?$/;

export function intType(name: string): IntType | undefined {
  const m = INT.exec(name);
  if (!m) return undefined;
  const width = Number(m[2]) / 8;
  return { kind: 'int', width, signed: m[1] === 'i', be: m[3] === 'be', big: width > 6 };
}

type Scope = Map<string, IrField | IrParam>;

/** Where a struct or field came from, for errors. */
interface Origin {
  file: SchemaFile;
  path: YamlPath;
}

export function buildIr(files: SchemaFile[]): { ir: Ir; errors: SchemaError[] } {
  const errors: SchemaError[] = [];
  const ir: Ir = {
    structs: new Map(),
    enums: new Map(),
    flags: new Map(),
    context: [],
    constants: [],
    lookups: [],
    events: [],
    modules: files.map((f) => f.module),
    reservedEventKeys: RESERVED_EVENT_KEYS,
  };
  const origins = new Map<string, Origin>();
  const fail = (o: Origin, path: YamlPath, problem: string) => errors.push(schemaError(o.file, [...o.path, ...path], problem));

  // Names first, so references may point forwards and across files.
  for (const file of files) {
    const raw = file.data as RawFile;
    const top: Origin = { file, path: [] };
    for (const [kind, map] of [['enums', ir.enums], ['flags', ir.flags]] as const) {
      for (const [name, e] of Object.entries(raw[kind] ?? {})) {
        if (ir.enums.has(name) || ir.flags.has(name) || origins.has(name)) fail(top, [kind, name], `'${name}' is defined twice`);
        map.set(name, { name, doc: e.doc, values: Object.entries(e.values), module: file.module });
      }
    }
    for (const [name, p] of Object.entries(raw.context ?? {})) ir.context.push({ name, ...p });
    for (const [name, c] of Object.entries(raw.constants ?? {})) ir.constants.push({ name, ...c, module: file.module });
    for (const name of Object.keys(raw.structs ?? {})) {
      if (origins.has(name) || ir.enums.has(name) || ir.flags.has(name)) fail(top, ['structs', name], `'${name}' is defined twice`);
      origins.set(name, { file, path: ['structs', name] });
    }
  }

  for (const file of files) {
    const raw = file.data as RawFile;
    for (const [name, l] of Object.entries(raw.lookups ?? {})) {
      const o: Origin = { file, path: ['lookups', name] };
      const keyEnum = l.key === 'number' ? undefined : ir.enums.get(l.key);
      if (l.key !== 'number' && !keyEnum) fail(o, ['key'], `unknown enum '${l.key}'`);
      const entries: IrLookup['entries'] = [];
      for (const [k, v] of Object.entries(l.values)) {
        const range = /^(\d+)(?:-(\d+))?$/.exec(k);
        const code = keyEnum ? keyEnum.values.find(([n]) => n === k)?.[1] : range ? Number(range[1]) : undefined;
        if (code === undefined) fail(o, ['values', k], keyEnum ? `'${k}' is not a name of '${l.key}'` : `'${k}' is not a number or a range a-b`);
        else entries.push([code, range?.[2] ? Number(range[2]) : code, keyEnum ? k : undefined, v]);
      }
      ir.lookups.push({ name, doc: l.doc, key: keyEnum?.name, entries, module: file.module });
    }
  }

  const builder = new StructBuilder(ir, origins, fail);
  for (const file of files) {
    const raw = file.data as RawFile;
    for (const [name, s] of Object.entries(raw.structs ?? {})) builder.struct(name, s, { file, path: ['structs', name] });
  }
  // Once every structure exists, sizes can be reckoned across references.
  for (const s of ir.structs.values()) builder.checkElements(s, origins.get(s.name)!);

  const codes = new Set<number>();
  for (const file of files) {
    const raw = file.data as RawFile;
    (raw.events ?? []).forEach((e, i) => {
      const o: Origin = { file, path: ['events', i] };
      if (codes.has(e.code)) fail(o, ['code'], `event code ${e.code} is listed twice`);
      codes.add(e.code);
      if (e.body !== undefined) {
        const body = ir.structs.get(e.body);
        if (!body) fail(o, ['body'], `unknown struct '${e.body}'`);
        else builder.checkEventBody(body, o, e.args ?? {});
      }
      ir.events.push(e);
      ir.eventsModule = file.module;
    });
  }
  ir.events.sort((a, b) => a.code - b.code);
  return { ir, errors };
}

class StructBuilder {
  constructor(
    private ir: Ir,
    private origins: Map<string, Origin>,
    private fail: (o: Origin, path: YamlPath, problem: string) => void,
  ) {}

  struct(name: string, raw: RawStruct, o: Origin, entryCode?: string): IrStruct {
    const params = Object.entries(raw.params ?? {}).map(([n, p]) => ({ name: n, ...p }));
    const keys = raw.keys && { serial: raw.keys.type === 'varint', sized: raw.keys.sized === true };
    const s: IrStruct = { name, doc: raw.doc, module: o.file.module, params, fields: [], entryCode, offsets: raw.offsets, keys };
    this.ir.structs.set(name, s);
    const scope: Scope = new Map();
    for (const p of params) {
      if (RESERVED_NAMES.has(p.name)) this.fail(o, ['params', p.name], `'${p.name}' is a reserved name`);
      scope.set(p.name, p);
    }
    raw.fields.forEach((f, i) => {
      const at: Origin = { file: o.file, path: [...o.path, 'fields', i] };
      if (scope.has(f.name)) this.fail(at, ['name'], `duplicate name '${f.name}'`);
      if (RESERVED_NAMES.has(f.name)) this.fail(at, ['name'], `'${f.name}' is a reserved name`);
      const field = this.field(name, f, at, scope);
      if (field) this.keyed(field, f, at, s);
      if (field) {
        s.fields.push(field);
        scope.set(f.name, field);
      }
    });
    if (s.keys?.sized) this.sizedList(s, o);
    this.checkDerived(s, o);
    this.checkRest(s, o);
    return s;
  }

  /**
   * A keyed field is optional: present when its id comes next. It reads as a trailer does (while bytes
   * are left), so encoders write it when it is given.
   */
  private keyed(field: IrField, f: RawField, o: Origin, s: IrStruct): void {
    if (f.key === undefined) return;
    if (!s.keys) return this.fail(o, ['key'], `a keyed field needs 'keys' on its struct`);
    if (f.if !== undefined) return this.fail(o, ['if'], `a keyed field is present when its key is: give no 'if'`);
    if (s.fields.some((k) => k.key === f.key)) return this.fail(o, ['key'], `key ${f.key} is used twice`);
    field.key = f.key;
    field.cond = parseExpr('remaining > 0');
  }

  /** A sized list's keyed fields are read in one loop, so they follow each other. */
  private sizedList(s: IrStruct, o: Origin): void {
    const keyed = s.fields.filter((f) => f.key !== undefined);
    if (keyed.length === 0) return;
    if (s.fields.some((f) => f.name === 'keyOrder')) return this.fail(o, ['fields'], `'keyOrder' holds a sized list's stored order: name the field otherwise`);
    const from = s.fields.indexOf(keyed[0]!);
    const gap = keyed.findIndex((f, i) => s.fields[from + i] !== f);
    if (gap >= 0) {
      const between = s.fields[from + gap]!.name;
      return this.fail(o, ['fields'], `'${between}' comes between keyed fields: a sized list's are read in one loop, so they follow each other`);
    }
    const next = s.fields[from + keyed.length];
    const end = next?.constValue !== undefined && next.type.kind === 'packed' && next.type.serial === s.keys!.serial ? next.constValue : undefined;
    s.keys!.list = { ids: keyed.map((f) => f.key!), first: keyed[0]!.name, last: keyed.at(-1)!.name, end };
  }

  checkEventBody(body: IrStruct, o: Origin, args: Record<string, string | number>): void {
    for (const p of body.params) if (!(p.name in args)) this.fail(o, ['args'], `'${body.name}' needs the argument '${p.name}'`);
    for (const a of Object.keys(args)) if (!body.params.some((p) => p.name === a)) this.fail(o, ['args', a], `'${body.name}' has no parameter '${a}'`);
    for (const f of body.fields) {
      if (RESERVED_EVENT_KEYS.includes(f.name)) {
        this.fail(o, ['body'], `field '${f.name}' of '${body.name}' is a key the event object reserves`);
      }
    }
  }

  private field(owner: string, f: RawField, o: Origin, scope: Scope): IrField | undefined {
    const path = `${owner}.${f.name}`;
    const expr = (key: string, src: string | number | undefined, where: YamlPath = [key]): Expr | undefined => {
      if (src === undefined) return undefined;
      try {
        const e = parseExpr(src);
        this.checkExpr(e, o, where, scope, f.repeat !== undefined);
        return e;
      } catch (err) {
        if (err instanceof ExprError) this.fail(o, where, `bad expression: ${err.message}`);
        else throw err;
        return undefined;
      }
    };
    const type = this.type(owner, f, o, scope, expr);
    if (!type) return undefined;
    const field: IrField = { name: f.name, doc: f.doc, path, type };
    if (f.size !== undefined && ['struct', 'switch', 'tlv', 'tagged'].includes(type.kind)) {
      field.size = f.size === 'rest' ? 'rest' : expr('size', f.size);
    }
    if (f.repeat === 'count') field.repeat = { kind: 'count', count: expr('count', f.count)! };
    if (f.repeat === 'rest') field.repeat = { kind: 'rest' };
    if (f.repeat === undefined && f.count !== undefined) this.fail(o, ['count'], `'count' needs 'repeat: count'`);
    field.cond = expr('if', f.if);
    if (f.const !== undefined) {
      if (type.kind !== 'int' && !(type.kind === 'packed' && !type.big)) this.fail(o, ['const'], `only integers can be constant`);
      field.constValue = f.const;
    }
    if (f.derive) field.derive = this.derive(f.derive, expr);
    if (f.compression) {
      field.compression = { codec: f.compression.codec, cond: expr('compression', f.compression.if, ['compression', 'if']) };
      if (scope.has(`${f.name}Compressed`)) this.fail(o, ['name'], `'${f.name}Compressed' would be taken twice`);
    }
    return field;
  }

  private type(
    owner: string,
    f: RawField,
    o: Origin,
    scope: Scope,
    expr: (key: string, src: string | number | undefined, where?: YamlPath) => Expr | undefined,
  ): IrType | undefined {
    const int = intType(f.type);
    if (int || ['packed', 'packed64', 'varint', 'varint64', 'zigzag64'].includes(f.type)) {
      const serial = f.type.startsWith('varint') || f.type === 'zigzag64';
      const big = f.type.endsWith('64');
      const base: IntType | PackedType = int ?? { kind: 'packed', big, serial, ...(f.type === 'zigzag64' ? { signed: true } : {}) };
      if (f.enum !== undefined && !this.ir.enums.has(f.enum)) {
        this.fail(o, ['enum'], `unknown enum '${f.enum}'`);
        return undefined;
      }
      return f.enum ? { ...base, enum: f.enum } : base;
    }
    if (f.computed !== undefined) {
      if (!['number', 'string', 'boolean'].includes(f.type)) this.fail(o, ['type'], `a computed field is a number, string or boolean`);
      const e = expr('computed', f.computed);
      return e && { kind: 'computed', expr: e, value: f.type as 'number' | 'string' | 'boolean', enum: f.enum };
    }
    switch (f.type) {
      case 'uint':
        return { kind: 'uint', size: expr('size', f.size)! };
      case 'rows': {
        const table = f.table === undefined ? undefined : scope.get(f.table);
        if (!(table && 'path' in table && isNumeric(table.type))) this.fail(o, ['table'], `'${f.table}' is not an earlier number field`);
        for (const key of ['columns', 'columnsAfter'] as const) {
          const ref = f[key] === undefined ? undefined : scope.get(f[key]!);
          if (f[key] !== undefined && !(ref && 'path' in ref && ref.type.kind === 'bitmap')) {
            this.fail(o, [key], `'${f[key]}' is not an earlier bitmap field`);
          }
        }
        return { kind: 'rows', table: f.table!, columns: f.columns!, columnsAfter: f.columnsAfter, images: expr('images', f.images)!, layout: f.layout };
      }
      case 'number':
      case 'boolean':
        this.fail(o, ['type'], `'${f.type}' is the type of a computed field: give 'computed'`);
        return undefined;
      case 'f32':
      case 'f64':
        return { kind: 'float', width: f.type === 'f32' ? 4 : 8 };
      case 'string':
      case 'bytes':
      case 'cstring':
      case 'padded': {
        const span = this.span(f, o, expr);
        if (!span) return undefined;
        if (f.each !== undefined) {
          if (f.type !== 'bytes' || span.kind !== 'size') this.fail(o, ['each'], `'each' is for bytes of a given 'size'`);
          return { kind: 'bytes', span, each: f.each };
        }
        return { kind: f.type === 'bytes' ? 'bytes' : 'text', span };
      }
      case 'bitmap':
        return { kind: 'bitmap', bits: expr('bits', f.bits)!, msb: f.order === 'msb', keepSpare: f.spare === 'keep' };
      case 'switch':
        return this.switchType(f, o, scope, expr);
      case 'tlv':
      case 'tagged':
        return this.entryList(owner, f, o);
      default:
        if (!this.origins.has(f.type)) {
          this.fail(o, ['type'], `unknown type '${f.type}'`);
          return undefined;
        }
        return {
          kind: 'struct',
          name: f.type,
          args: Object.entries(f.args ?? {}).map(([k, src]) => [k, expr('args', src, ['args', k])!] as [string, Expr]),
        };
    }
  }

  private span(
    f: RawField,
    o: Origin,
    expr: (key: string, src: string | number | undefined) => Expr | undefined,
  ): Span | undefined {
    if (f.type === 'cstring') return { kind: 'nul' };
    if (f.type === 'padded') return { kind: 'padded', size: expr('size', f.size)! };
    if (f.prefix !== undefined) {
      if (f.size !== undefined) this.fail(o, ['size'], `give either 'size' or 'prefix', not both`);
      return { kind: 'prefix', prefix: intType(f.prefix) ?? { kind: 'packed', big: false, serial: f.prefix === 'varint' } };
    }
    if (f.size === 'rest') return { kind: 'rest' };
    if (f.size === undefined) {
      this.fail(o, [], `a ${f.type} field needs 'size' or 'prefix'`);
      return undefined;
    }
    return { kind: 'size', size: expr('size', f.size)! };
  }

  private switchType(
    f: RawField,
    o: Origin,
    scope: Scope,
    expr: (key: string, src: string | number | undefined) => Expr | undefined,
  ): IrType | undefined {
    const on = expr('on', f.on);
    const onEnum = on?.kind === 'id' || on?.kind === 'index' ? this.enumOf(on.name, scope) : undefined;
    const cases: { match: number; struct: string }[] = [];
    for (const [key, struct] of Object.entries(f.cases ?? {})) {
      const match = /^-?\d+$/.test(key) ? Number(key) : onEnum?.values.find(([n]) => n === key)?.[1];
      if (match === undefined) this.fail(o, ['cases', key], `'${key}' is neither a number nor a name of the switched-on enum`);
      else if (!this.origins.has(struct)) this.fail(o, ['cases', key], `unknown struct '${struct}'`);
      else cases.push({ match, struct });
    }
    if (f.default !== undefined && !this.origins.has(f.default)) this.fail(o, ['default'], `unknown struct '${f.default}'`);
    return on ? { kind: 'switch', on, cases, default: f.default } : undefined;
  }

  /** The enum of the earlier field an identifier names. */
  private enumOf(name: string, scope: Scope): IrEnum | undefined {
    const ref = scope.get(name);
    const e = ref && 'path' in ref && (ref.type.kind === 'int' || ref.type.kind === 'packed') ? ref.type.enum : undefined;
    return e ? this.ir.enums.get(e) : undefined;
  }

  private entryList(owner: string, f: RawField, o: Origin): IrType | undefined {
    const code = intType(f.code ?? '');
    if (!code) {
      this.fail(o, ['code'], `an entry code must be an integer type`);
      return undefined;
    }
    const entries: IrEntry[] = [];
    const base = `${owner}${pascal(f.name)}`;
    for (const [key, e] of Object.entries(f.entries ?? {})) {
      const struct = `${base}${pascal(e.name.toLowerCase())}`;
      if (this.origins.has(struct)) this.fail(o, ['entries', key], `entry struct name '${struct}' is taken`);
      const at: Origin = { file: o.file, path: [...o.path, 'entries', key] };
      this.origins.set(struct, at);
      this.struct(struct, { doc: e.doc, fields: e.fields }, at, e.name);
      entries.push({ code: Number(key), name: e.name, struct });
    }
    const entryType = `${base}Entry`;
    if (f.type === 'tlv') {
      const length: LengthType = intType(f.length ?? '') ?? { kind: 'packed', big: false };
      return { kind: 'tlv', code, length, entries, entryType };
    }
    return { kind: 'tagged', code, entries, entryType };
  }

  private derive(
    raw: Record<string, string | number>,
    expr: (key: string, src: string | number | undefined, where?: YamlPath) => Expr | undefined,
  ): Derive | undefined {
    const [kind, arg] = Object.entries(raw).find(([k]) => k !== 'plus')!;
    if (kind === 'value') {
      const e = expr('derive', arg, ['derive', 'value']);
      return e && { kind: 'value', expr: e };
    }
    if (kind === 'frame') return { kind: 'frame', what: 'eventSize' };
    if (kind === 'totalSize') return { kind: 'totalSize' };
    if (kind === 'sizeOf') return { kind, target: String(arg), plus: Number(raw.plus ?? 0) };
    return { kind: kind as 'lengthOf' | 'countOf', target: String(arg) };
  }

  private checkExpr(e: Expr, o: Origin, where: YamlPath, scope: Scope, inRepeat: boolean): void {
    const arrays = indexed(e);
    const args = callArguments(e);
    for (const id of identifiers(e)) {
      if (id === 'remaining') continue;
      if (id === 'index') {
        if (!inRepeat) this.fail(o, where, `'index' names the element being read: only a repeated field may use it`);
        continue;
      }
      if (id.includes('.')) {
        const [group, value] = id.split('.') as [string, string];
        const table = this.ir.enums.get(group) ?? this.ir.flags.get(group);
        if (!table) this.fail(o, where, `unknown enum or flags '${group}'`);
        else if (!table.values.some(([n]) => n === value)) this.fail(o, where, `'${group}' has no value '${value}'`);
        continue;
      }
      const ref = scope.get(id);
      if (!ref) {
        this.fail(o, where, `unknown field or parameter '${id}'`);
        continue;
      }
      if ('path' in ref && !isNumeric(ref.type) && !args.includes(id)) {
        this.fail(o, where, `'${id}' is not a number-valued field and cannot be used in an expression`);
      } else if ('path' in ref && !ref.repeat !== !arrays.includes(id)) {
        this.fail(o, where, ref.repeat ? `'${id}' is an array: use ${id}[...]` : `'${id}' is not an array and cannot be indexed`);
      }
    }
    for (const name of contextNames(e)) {
      if (!this.ir.context.some((c) => c.name === name)) this.fail(o, where, `unknown context value 'ctx.${name}'`);
    }
    this.checkCalls(e, o, where);
  }

  private checkCalls(e: Expr, o: Origin, where: YamlPath): void {
    if (e.kind === 'call' && !BUILTINS.has(e.fn)) this.fail(o, where, `unknown function '${e.fn}'`);
  }

  /** A derived field must name a later field of the right kind, sized by it. */
  private checkDerived(s: IrStruct, o: Origin): void {
    s.fields.forEach((f, i) => {
      const d = f.derive;
      if (d?.kind === 'totalSize' && !(f.type.kind === 'packed' && f.type.serial && !f.type.big && !f.cond)) {
        return this.fail({ file: o.file, path: [...o.path, 'fields', i, 'derive'] }, [], `a totalSize field must be an unconditional varint`);
      }
      if (!d || d.kind === 'value' || d.kind === 'frame' || d.kind === 'totalSize') return;
      const at = [...o.path, 'fields', i, 'derive', d.kind];
      const targetIndex = s.fields.findIndex((t) => t.name === d.target);
      const target = s.fields[targetIndex];
      const failAt = (problem: string) => this.fail({ file: o.file, path: at }, [], problem);
      if (!target) return failAt(`no field '${d.target}' in '${s.name}'`);
      if (targetIndex < i) return failAt(`'${d.target}' comes before '${f.name}'; a derived field must precede what it derives from`);
      if (f.type.kind !== 'int' && f.type.kind !== 'packed') return failAt(`a ${d.kind} field must be an integer`);
      const sizedBy = d.kind === 'countOf' ? (target.repeat?.kind === 'count' ? target.repeat.count : undefined) : sizeExpr(target);
      const plus = d.kind === 'sizeOf' ? d.plus : 0;
      const wanted = plus ? `${f.name} - ${plus}` : f.name;
      if (!sizedBy || sizedBy.source !== wanted) {
        failAt(`'${d.target}' must have ${d.kind === 'countOf' ? 'count' : 'size'}: ${wanted}`);
      }
      if (d.kind === 'lengthOf' && target.type.kind !== 'text' && target.type.kind !== 'bytes') {
        failAt(`lengthOf needs a string or bytes field; use sizeOf for '${d.target}'`);
      }
    });
  }

  /** An element of a counted array must take at least a byte, so that a forged count fails on the bytes left. */
  checkElements(s: IrStruct, o: Origin): void {
    s.fields.forEach((f, i) => {
      // A count already bounded by an earlier array of non-empty elements (e.g. one per column) is safe.
      const bounded = (c: Expr) =>
        s.fields.slice(0, i).some((e) => e.repeat?.kind === 'count' && e.repeat.count.source === c.source && minSize(this.ir, e.type) > 0);
      if (f.repeat?.kind === 'count' && bounded(f.repeat.count)) return;
      if (f.repeat && minSize(this.ir, f.type) === 0) {
        this.fail(o, ['fields', i, 'repeat'], `an element of '${f.name}' can take no bytes, so its count cannot be bounded`);
      }
    });
  }

  /** `rest` must be the end of a structure (only a conditional trailer may follow). */
  private checkRest(s: IrStruct, o: Origin): void {
    s.fields.forEach((f, i) => {
      const rest = f.size === 'rest' || f.repeat?.kind === 'rest' || ((f.type.kind === 'text' || f.type.kind === 'bytes') && f.type.span.kind === 'rest');
      // A sized key's value reads to the end of its own length, not of the structure.
      const ownWindow = f.key !== undefined && s.keys?.sized;
      if (rest && !ownWindow && s.fields.slice(i + 1).some((later) => !later.cond)) {
        this.fail(o, ['fields', i], `'${f.name}' reads to the end, so it must be the last field`);
      }
    });
  }
}

/** The fewest bytes a value of `t` can take: what a forged element count is checked against. */
export function minSize(ir: Ir, t: IrType): number {
  switch (t.kind) {
    case 'int':
    case 'float':
      return t.width;
    case 'packed':
    case 'uint':
      return 1;
    case 'text':
    case 'bytes':
      return t.span.kind === 'prefix' ? minSize(ir, t.span.prefix) : t.span.kind === 'nul' ? 1 : 0;
    case 'struct':
      return ir.structs.get(t.name)!.fields.reduce((sum, f) => sum + (f.cond || f.repeat ? 0 : minSize(ir, f.type)), 0);
    default:
      return 0;
  }
}

function sizeExpr(f: IrField): Expr | undefined {
  if ((f.type.kind === 'text' || f.type.kind === 'bytes') && f.type.span.kind === 'size') return f.type.span.size;
  return f.size === 'rest' ? undefined : f.size;
}

function isNumeric(t: IrType): boolean {
  return ((t.kind === 'int' || t.kind === 'packed') && !t.big) || t.kind === 'uint' || (t.kind === 'computed' && t.value !== 'string');
}

export function pascal(s: string): string {
  return s.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}
