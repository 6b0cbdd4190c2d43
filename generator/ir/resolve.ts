/**
 * Structs resolved from their YAML: each field's type, window, repetition, condition, derivation and
 * compression, every name checked against what the field can see. The entries of a TLV or tagged list
 * become structs of their own, resolved where the list is.
 */
import { identifiers, type Expr } from '../expr.js';
import { columnTypes, resolveCovers } from './covers.js';
import { exprReader, isNumeric, type ReadExpr, type Scope } from './expressions.js';
import { below, type Origin, type Pass } from './pass.js';
import type { RawField, RawStruct } from './raw.js';
import type {
  IntType,
  IrEntry,
  IrEnum,
  IrField,
  IrStruct,
  IrType,
  LengthType,
  PackedType,
  Span,
  Derive,
} from './types.js';

/**
 * What build.ts runs as resolution goes: on each field once it is resolved, and on each struct once its
 * fields are (an entry's struct is finished before its list's owner goes on), so that errors come in
 * schema order.
 */
export interface Hooks {
  field(field: IrField, raw: RawField, o: Origin, s: IrStruct): void;
  struct(s: IrStruct, o: Origin): void;
}

/** Names the emitted code uses for itself. */
const RESERVED_NAMES = new Set([
  'r',
  'w',
  'v',
  'i',
  'ctx',
  'remaining',
  'index',
  'code',
  'default',
  'new',
  'delete',
  'function',
  'var',
  'let',
  'const',
  'class',
  'return',
  'this',
  'switch',
  'case',
  'if',
  'else',
  'for',
  'while',
  'do',
  'in',
  'of',
  'typeof',
  'void',
  'with',
  'yield',
  'await',
  'enum',
  'export',
  'import',
  'super',
  'throw',
  'try',
  'catch',
  'finally',
  'break',
  'continue',
  'debugger',
  'instanceof',
  'null',
  'true',
  'false',
]);

/** One field being resolved: its struct, its YAML and where it is, what it can see. */
interface FieldAt {
  pass: Pass;
  hooks: Hooks;
  owner: string;
  f: RawField;
  o: Origin;
  scope: Scope;
  expr: ReadExpr;
}

export function resolveStruct(
  pass: Pass,
  hooks: Hooks,
  name: string,
  raw: RawStruct,
  o: Origin,
  entryCode?: string,
): IrStruct {
  const params = Object.entries(raw.params ?? {}).map(([n, p]) => ({ name: n, ...p }));
  const keys = raw.keys && { serial: raw.keys.type === 'varint', sized: raw.keys.sized === true };
  const s: IrStruct = {
    name,
    doc: raw.doc,
    module: o.file.module,
    params,
    fields: [],
    entryCode,
    offsets: raw.offsets,
    keys,
    postHeader: raw.postHeader,
  };
  pass.ir.structs.set(name, s);
  const scope: Scope = new Map();
  for (const p of params) {
    if (RESERVED_NAMES.has(p.name)) pass.fail(o, ['params', p.name], `'${p.name}' is a reserved name`);
    scope.set(p.name, p);
  }
  const values: (() => void)[] = [];
  raw.fields.forEach((f, i) => {
    const at = below(o, 'fields', i);
    if (scope.has(f.name)) pass.fail(at, ['name'], `duplicate name '${f.name}'`);
    if (RESERVED_NAMES.has(f.name)) pass.fail(at, ['name'], `'${f.name}' is a reserved name`);
    const expr = exprReader(pass, at, scope, f.repeat !== undefined);
    const field = resolveField({ pass, hooks, owner: name, f, o: at, scope, expr });
    if (!field) return;
    hooks.field(field, f, at, s);
    s.fields.push(field);
    scope.set(f.name, field);
    if (f.derive?.value !== undefined) values.push(() => derivedValue(pass, s, field, f.derive!.value!, at, expr));
  });
  // A derived value may name computed fields after it, so it is read once every field is known.
  for (const resolve of values) resolve();
  if (typeof raw.postHeader === 'string' && !s.fields.some((f) => f.name === raw.postHeader)) {
    pass.fail(o, ['postHeader'], `no field '${raw.postHeader}' in '${name}'`);
  }
  hooks.struct(s, o);
  return s;
}

/**
 * A stored field the encoder computes. Its expression names earlier fields, or computed fields after it:
 * those the encoder takes as given (it cannot compute them from what it has yet to write), and the
 * decoder computes from the stored fields, as before.
 */
function derivedValue(pass: Pass, s: IrStruct, field: IrField, src: string | number, o: Origin, expr: ReadExpr): void {
  const e = expr('derive', src, ['derive', 'value']);
  if (!e) return;
  const at = s.fields.indexOf(field);
  for (const id of identifiers(e)) {
    const later = s.fields.findIndex((f) => f.name === id);
    if (later < at) continue;
    const f = s.fields[later]!;
    if (f.type.kind !== 'computed') {
      pass.fail(
        o,
        ['derive', 'value'],
        `'${id}' is not before '${field.name}': a derived value names earlier fields, or computed fields after it`,
      );
    } else if (f.type.value !== 'number') {
      pass.fail(o, ['derive', 'value'], `'${id}' would be given to the encoder, so it must be a number`);
    } else {
      f.type.input = true;
    }
  }
  field.derive = { kind: 'value', expr: e };
}

function resolveField(c: FieldAt): IrField | undefined {
  const { pass, f, o, scope, expr } = c;
  const type = resolveType(c);
  if (!type) return undefined;
  const field: IrField = { name: f.name, doc: f.doc, path: `${c.owner}.${f.name}`, type };
  if (f.size !== undefined && ['struct', 'switch', 'tlv', 'tagged'].includes(type.kind)) {
    field.size = f.size === 'rest' ? 'rest' : expr('size', f.size);
  }
  if (f.repeat === 'count') field.repeat = { kind: 'count', count: expr('count', f.count)! };
  if (f.repeat === 'rest') field.repeat = { kind: 'rest' };
  if (f.repeat === undefined && f.count !== undefined) pass.fail(o, ['count'], `'count' needs 'repeat: count'`);
  field.cond = expr('if', f.if);
  if (f.const !== undefined) {
    if (type.kind !== 'int' && !(type.kind === 'packed' && !type.big))
      pass.fail(o, ['const'], `only integers can be constant`);
    field.constValue = f.const;
  }
  if (f.derive) field.derive = resolveDerive(f.derive);
  if (f.compression) {
    field.compression = {
      codec: f.compression.codec,
      cond: expr('compression', f.compression.if, ['compression', 'if']),
    };
    if (scope.has(`${f.name}Compressed`)) pass.fail(o, ['name'], `'${f.name}Compressed' would be taken twice`);
  }
  return field;
}

const INT = /^(u|i)(8|16|24|32|40|48|56|64)(be)?$/;

function intType(name: string): IntType | undefined {
  const m = INT.exec(name);
  if (!m) return undefined;
  const width = Number(m[2]) / 8;
  return { kind: 'int', width, signed: m[1] === 'i', be: m[3] === 'be', big: width > 6 };
}

function resolveType(c: FieldAt): IrType | undefined {
  const { pass, f, o, expr } = c;
  if (intType(f.type) || ['packed', 'packed64', 'varint', 'varint64', 'zigzag64'].includes(f.type))
    return integerType(c);
  if (f.computed !== undefined) {
    if (!['number', 'string', 'boolean'].includes(f.type))
      pass.fail(o, ['type'], `a computed field is a number, string or boolean`);
    const e = expr('computed', f.computed);
    return e && { kind: 'computed', expr: e, value: f.type as 'number' | 'string' | 'boolean', enum: f.enum };
  }
  switch (f.type) {
    case 'uint':
      return { kind: 'uint', size: expr('size', f.size)! };
    case 'rows':
      return rowsType(c);
    case 'number':
    case 'boolean':
      pass.fail(o, ['type'], `'${f.type}' is the type of a computed field: give 'computed'`);
      return undefined;
    case 'f32':
    case 'f64':
      return { kind: 'float', width: f.type === 'f32' ? 4 : 8 };
    case 'string':
    case 'bytes':
    case 'cstring':
    case 'padded':
      return stringType(c);
    case 'bitmap':
      return { kind: 'bitmap', bits: expr('bits', f.bits)!, msb: f.order === 'msb', keepSpare: f.spare === 'keep' };
    case 'switch':
      return switchType(c);
    case 'tlv':
    case 'tagged':
      return entryList(c);
    default:
      return structRef(c);
  }
}

/** A fixed-width integer, a packed integer or a serialization varint, maybe named by an enum. */
function integerType({ pass, f, o }: FieldAt): IrType | undefined {
  const serial = f.type.startsWith('varint') || f.type === 'zigzag64';
  const big = f.type.endsWith('64');
  const base: IntType | PackedType = intType(f.type) ?? {
    kind: 'packed',
    big,
    serial,
    ...(f.type === 'zigzag64' ? { signed: true } : {}),
  };
  if (f.enum !== undefined && !pass.ir.enums.has(f.enum)) {
    pass.fail(o, ['enum'], `unknown enum '${f.enum}'`);
    return undefined;
  }
  return f.enum ? { ...base, enum: f.enum } : base;
}

/** Row images: they name the earlier fields that give their table and its columns. */
function rowsType({ pass, f, o, scope, expr }: FieldAt): IrType {
  const table = f.table === undefined ? undefined : scope.get(f.table);
  if (!(table && 'path' in table && isNumeric(table.type)))
    pass.fail(o, ['table'], `'${f.table}' is not an earlier number field`);
  for (const key of ['columns', 'columnsAfter'] as const) {
    const ref = f[key] === undefined ? undefined : scope.get(f[key]!);
    if (f[key] !== undefined && !(ref && 'path' in ref && ref.type.kind === 'bitmap')) {
      pass.fail(o, [key], `'${f[key]}' is not an earlier bitmap field`);
    }
  }
  // v1/v2 images split or are kept whole; v0's are bytes or rows by whether the table is defined, which the schema
  // says.
  if ((f.layout === 'v0') === (f.undecoded !== undefined))
    pass.fail(
      o,
      ['undecoded'],
      'v1/v2 rows name where images that do not split are kept (`undecoded`); v0 rows do not',
    );
  if (f.inferred !== undefined && f.undecoded === undefined)
    pass.fail(
      o,
      ['inferred'],
      'only rows whose images may be kept (`undecoded`) name where inferred fraction digits are said (`inferred`)',
    );
  return {
    kind: 'rows',
    table: f.table!,
    columns: f.columns!,
    columnsAfter: f.columnsAfter,
    images: expr('images', f.images)!,
    layout: f.layout,
    undecoded: f.undecoded,
    inferred: f.inferred,
  };
}

function stringType(c: FieldAt): IrType | undefined {
  const { pass, f, o } = c;
  const span = resolveSpan(c);
  if (!span) return undefined;
  if (f.each !== undefined) {
    if (f.type !== 'bytes' || span.kind !== 'size') pass.fail(o, ['each'], `'each' is for bytes of a given 'size'`);
    return { kind: 'bytes', span, each: f.each };
  }
  return { kind: f.type === 'bytes' ? 'bytes' : 'text', span };
}

function resolveSpan({ pass, f, o, expr }: FieldAt): Span | undefined {
  if (f.type === 'cstring') return { kind: 'nul' };
  if (f.type === 'padded') return { kind: 'padded', size: expr('size', f.size)! };
  if (f.prefix !== undefined) {
    if (f.size !== undefined) pass.fail(o, ['size'], `give either 'size' or 'prefix', not both`);
    return {
      kind: 'prefix',
      prefix: intType(f.prefix) ?? { kind: 'packed', big: false, serial: f.prefix === 'varint' },
    };
  }
  if (f.size === 'rest') return { kind: 'rest' };
  if (f.size === undefined) {
    pass.fail(o, [], `a ${f.type} field needs 'size' or 'prefix'`);
    return undefined;
  }
  return { kind: 'size', size: expr('size', f.size)! };
}

function switchType({ pass, f, o, scope, expr }: FieldAt): IrType | undefined {
  const on = expr('on', f.on);
  const onEnum = on?.kind === 'id' || on?.kind === 'index' ? enumOf(pass, on.name, scope) : undefined;
  const cases: { match: number; struct: string }[] = [];
  for (const [key, struct] of Object.entries(f.cases ?? {})) {
    const match = /^-?\d+$/.test(key) ? Number(key) : onEnum?.values.find(([n]) => n === key)?.[1];
    if (match === undefined)
      pass.fail(o, ['cases', key], `'${key}' is neither a number nor a name of the switched-on enum`);
    else if (!pass.origins.has(struct)) pass.fail(o, ['cases', key], `unknown struct '${struct}'`);
    else cases.push({ match, struct });
  }
  if (f.default !== undefined && !pass.origins.has(f.default))
    pass.fail(o, ['default'], `unknown struct '${f.default}'`);
  return on ? { kind: 'switch', on, cases, default: f.default } : undefined;
}

/** The enum of the earlier field an identifier names. */
function enumOf(pass: Pass, name: string, scope: Scope): IrEnum | undefined {
  const ref = scope.get(name);
  const e = ref && 'path' in ref && (ref.type.kind === 'int' || ref.type.kind === 'packed') ? ref.type.enum : undefined;
  return e ? pass.ir.enums.get(e) : undefined;
}

/** A TLV or tagged list: each entry a struct named after the owner, the field and the entry. */
function entryList({ pass, hooks, owner, f, o, scope }: FieldAt): IrType | undefined {
  const code = intType(f.code ?? '');
  if (!code) {
    pass.fail(o, ['code'], `an entry code must be an integer type`);
    return undefined;
  }
  const entries: IrEntry[] = [];
  const base = `${owner}${pascal(f.name)}`;
  const types = columnTypes(pass, scope);
  for (const [key, e] of Object.entries(f.entries ?? {})) {
    const struct = `${base}${pascal(e.name.toLowerCase())}`;
    if (pass.origins.has(struct)) pass.fail(o, ['entries', key], `entry struct name '${struct}' is taken`);
    const at = below(o, 'entries', Number(key));
    pass.origins.set(struct, at);
    resolveStruct(pass, hooks, struct, { doc: e.doc, fields: e.fields }, at, e.name);
    const covers = e.covers === undefined ? undefined : resolveCovers(pass, at, e.covers, types, owner);
    entries.push({ code: Number(key), name: e.name, struct, ...(covers ? { covers } : {}) });
  }
  const entryType = `${base}Entry`;
  const covers = entries.some((e) => e.covers) ? { covers: `${base}Covers` } : {};
  if (f.type === 'tlv') {
    const length: LengthType = intType(f.length ?? '') ?? { kind: 'packed', big: false };
    return { kind: 'tlv', code, length, entries, entryType, ...covers };
  }
  return { kind: 'tagged', code, entries, entryType, ...covers };
}

/** A reference to a struct, with the arguments for its parameters. */
function structRef({ pass, f, o, expr }: FieldAt): IrType | undefined {
  if (!pass.origins.has(f.type)) {
    pass.fail(o, ['type'], `unknown type '${f.type}'`);
    return undefined;
  }
  return {
    kind: 'struct',
    name: f.type,
    args: Object.entries(f.args ?? {}).map(([k, src]) => [k, expr('args', src, ['args', k])!] as [string, Expr]),
  };
}

/** A derivation by size, length, count or frame; a derived value is read apart (derivedValue). */
function resolveDerive(raw: Record<string, string | number>): Derive | undefined {
  const [kind, arg] = Object.entries(raw).find(([k]) => k !== 'plus')!;
  if (kind === 'value') return undefined;
  if (kind === 'frame') return { kind: 'frame', what: 'eventSize' };
  if (kind === 'totalSize') return { kind: 'totalSize' };
  if (kind === 'sizeOf') return { kind, target: String(arg), plus: Number(raw.plus ?? 0) };
  return { kind: kind as 'lengthOf' | 'countOf', target: String(arg) };
}

function pascal(s: string): string {
  return s.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}
