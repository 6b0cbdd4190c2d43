/**
 * Emission: the IR as TypeScript, through ts-morph. For each structure an interface of the decoded value,
 * an input interface for encoding (derived fields optional), and straight-line decode and encode functions
 * over the runtime's Reader and Writer.
 */
import { VariableDeclarationKind, type Project, type SourceFile } from 'ts-morph';
import { addImports, Module } from './emit/module.js';
import { docs, HEADER, Lines, newProject, q, type EmittedFile } from './emit/print.js';
import { decodeRows, encodeRows, rowsFromJson, rowsType } from './emit/rows.js';
import { isRuntimeType, runtimeModule, type RuntimeName } from './emit/runtime-names.js';
import { compileExpr, identifiers, parseExpr, type Expr } from './expr.js';
import { minSize } from './ir/sizes.js';
import type { Derive, IntType, Ir, IrEnum, IrField, IrStruct, IrType, LengthType, PackedType, Span } from './ir/types.js';

/**
 * Every generated module. `runtimeDir` is the runtime's path relative to the output folder (the
 * generated/ folder sits beside runtime/; the test features' output sits deeper).
 */
export function emit(ir: Ir, sourceOf: (module: string) => string, runtimeDir = '../runtime'): EmittedFile[] {
  const project = newProject();
  const out: EmittedFile[] = [];
  for (const module of ir.modules) {
    const m = new Module(module, ir);
    const sf = project.createSourceFile(`${module}.ts`, '', { overwrite: true });
    emitConstants(sf, ir.constants.filter((c) => c.module === module));
    for (const l of ir.lookups) if (l.module === module) emitLookup(sf, m, l);
    emitEnums(sf, [...ir.enums.values()].filter((e) => e.module === module), true);
    emitEnums(sf, [...ir.flags.values()].filter((e) => e.module === module), false);
    for (const s of ir.structs.values()) if (s.module === module) emitStruct(sf, m, s);
    if (module === ir.eventsModule) emitEvents(sf, m, ir);
    addImports(sf, m, runtimeDir);
    sf.formatText({ indentSize: 2, convertTabsToSpaces: true });
    out.push({ path: `${module}.ts`, text: HEADER(sourceOf(module)) + sf.getFullText() });
  }
  out.push(emitContext(project, ir, runtimeDir), emitIndex(project, ir));
  return out;
}

/** An array constant as the narrowest typed array that holds its largest value, in hex. */
function typedArray(values: number[]): string {
  const max = values.reduce((m, v) => Math.max(m, v), 0);
  const [type, digits] = max > 0xffff ? ['Uint32Array', 4] : max > 0xff ? ['Uint16Array', 4] : ['Uint8Array', 2];
  return `${type}.of(${values.map((b) => `0x${b.toString(16).toUpperCase().padStart(digits, '0')}`).join(', ')})`;
}

function emitConstants(sf: SourceFile, constants: Ir['constants']): void {
  for (const c of constants) {
    const value = Array.isArray(c.value) ? typedArray(c.value) : JSON.stringify(c.value);
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: docs(c.doc),
      declarations: [{ name: c.name, initializer: value }],
    });
  }
}

function emitLookup(sf: SourceFile, m: Module, l: Ir['lookups'][number]): void {
  const literal = (v: unknown) => JSON.stringify(v).replace(/"([A-Za-z_][A-Za-z0-9_]*)":/g, '$1: ').replace(/,/g, ', ');
  if (l.key) {
    // Keyed by an enum: a constant object by code, each entry marked with its name.
    const body = l.entries.map(([code, , name, v]) => `/* ${name} */ ${code}: ${literal(v)},`).join('\n');
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: docs(l.doc ? `${l.doc.trim()}\n\nKeyed by ${l.key} code.` : `Keyed by ${l.key} code.`),
      declarations: [{ name: l.name, initializer: `{\n${body}\n} as const` }],
    });
    sf.addTypeAlias({ isExported: true, name: `${l.name}Entry`, type: `(typeof ${l.name})[keyof typeof ${l.name}]` });
    return;
  }
  // Keyed by numbers, some in ranges: a map built once, when the module loads.
  const rows = l.entries.map(([lo, hi, , v]) => `[${lo}, ${hi}, ${literal(v)}],`).join('\n');
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: docs(l.doc),
    declarations: [{ name: l.name, initializer: `${m.rt('rangeMap')}([\n${rows}\n])` }],
  });
}

function emitEnums(sf: SourceFile, enums: IrEnum[], named: boolean): void {
  for (const e of enums) {
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: e.doc ? [e.doc] : [],
      declarations: [{ name: e.name, initializer: `{\n${e.values.map(([n, v]) => `${n}: ${named ? v : `0x${v.toString(16)}`},`).join('\n')}\n} as const` }],
    });
    if (!named) continue;
    sf.addTypeAlias({ isExported: true, name: `${e.name}Name`, type: `keyof typeof ${e.name}` });
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`Names of ${e.name} by value.`],
      declarations: [
        {
          name: `${e.name}Names`,
          type: `Readonly<Record<number, ${e.name}Name>>`,
          initializer: `{\n${e.values.map(([n, v]) => `${v}: '${n}',`).join('\n')}\n}`,
        },
      ],
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Types

function valueType(m: Module, t: IrType, input: boolean): string {
  switch (t.kind) {
    case 'int':
    case 'packed':
      if (t.enum) return `${m.enumRef(t.enum, 'Name', true)} | number`;
      return t.big ? 'bigint' : 'number';
    case 'float':
    case 'uint':
      return 'number';
    case 'computed':
      return t.enum ? `${m.enumRef(t.enum, 'Name', true)} | number` : t.value;
    case 'rows':
      return rowsType(m, t, input);
    case 'text':
      return m.rtType('Text');
    case 'bytes':
      return 'Uint8Array';
    case 'bitmap':
      return 'boolean[]';
    case 'struct':
      return m.structType(t.name, input);
    case 'switch': {
      const names = [...new Set([...t.cases.map((c) => c.struct), ...(t.default ? [t.default] : [])])];
      return names.map((n) => m.structType(n, input)).join(' | ');
    }
    case 'tlv':
    case 'tagged':
      return `${input ? `${t.entryType}Input` : t.entryType}[]`;
  }
}

function fieldType(m: Module, f: IrField, input: boolean): string {
  const base = valueType(m, f.type, input);
  if (!f.repeat) return base;
  return base.includes(' ') ? `(${base})[]` : `${base}[]`;
}

function keptFields(s: IrStruct): IrField[] {
  return s.fields.filter((f) => f.constValue === undefined);
}

/**
 * What a field keeps beside its value so that encoding gives back the stored bytes: a compressed field's
 * stored form, a bitmap's set spare bits; beside a sized list's first field, the list's stored order.
 */
function companions(f: IrField, s: IrStruct): { name: string; type: string; hasQuestionToken: true; docs: string[] }[] {
  const order = s.keys?.list?.first === f.name ? [{ name: 'keyOrder', type: 'KeyedEntry[]', hasQuestionToken: true as const, docs: [KEY_ORDER_DOC] }] : [];
  if (f.compression) return [...order, { name: `${f.name}Compressed`, type: 'Uint8Array', hasQuestionToken: true, docs: [`${f.name} as stored, compressed (${f.compression.codec}).`] }];
  if (f.type.kind === 'bitmap' && f.type.keepSpare) return [...order, { name: `${f.name}Spare`, type: 'number', hasQuestionToken: true, docs: [`The set unused bits of ${f.name}'s last byte, when there are any.`] }];
  return order;
}

const KEY_ORDER_DOC = 'The keyed fields as stored, when not in declared order or not only the declared fields once each (ids; {id, bytes} for fields kept as stored).';

/** What an encoder takes: computed fields are not written, so they are not asked for. */
function inputFields(s: IrStruct): IrField[] {
  return keptFields(s).filter((f) => f.type.kind !== 'computed');
}

/** Whether encoding takes something other than the decoded value: a derived field, anywhere inside. */
function hasDistinctInput(ir: Ir, s: IrStruct): boolean {
  return s.fields.some(
    (f) =>
      f.derive !== undefined ||
      f.type.kind === 'computed' ||
      f.type.kind === 'rows' ||
      companions(f, s).length > 0 ||
      nested(f.type).some((n) => hasDistinctInput(ir, ir.structs.get(n)!)),
  );
}

function nested(t: IrType): string[] {
  if (t.kind === 'struct') return [t.name];
  if (t.kind === 'switch') return [...t.cases.map((c) => c.struct), ...(t.default ? [t.default] : [])];
  if (t.kind === 'tlv' || t.kind === 'tagged') return t.entries.map((e) => e.struct);
  return [];
}

function emitInterfaces(sf: SourceFile, m: Module, s: IrStruct): void {
  const codeProp = s.entryCode ? [{ name: 'code', type: `'${s.entryCode}'` }] : [];
  if (s.keys?.list) m.rtType('KeyedEntry');
  sf.addInterface({
    isExported: true,
    name: s.name,
    docs: docs(s.doc),
    properties: [
      ...codeProp,
      ...keptFields(s).flatMap((f) => [
        { name: f.name, type: fieldType(m, f, false), hasQuestionToken: !!f.cond, docs: docs(f.doc) },
        ...companions(f, s),
      ]),
    ],
  });
  if (!hasDistinctInput(m.ir, s)) {
    sf.addTypeAlias({ isExported: true, name: `${s.name}Input`, docs: [`What \`encode${s.name}\` takes: the decoded value.`], type: s.name });
    return;
  }
  sf.addInterface({
    isExported: true,
    name: `${s.name}Input`,
    docs: [`What \`encode${s.name}\` takes: derived fields may be left out, they are computed.`],
    properties: [
      ...codeProp,
      ...inputFields(s).flatMap((f) => [
        { name: f.name, type: fieldType(m, f, true), hasQuestionToken: !!f.cond || !!f.derive },
        ...companions(f, s),
      ]),
    ],
  });
}

function emitEntryUnion(sf: SourceFile, m: Module, t: Extract<IrType, { kind: 'tlv' | 'tagged' }>, owner: IrStruct): void {
  const unknown = `{ code: number; raw: Uint8Array }`;
  for (const input of [false, true]) {
    sf.addTypeAlias({
      isExported: true,
      name: input ? `${t.entryType}Input` : t.entryType,
      docs: [`An entry of ${owner.name}: one per known code, and the raw bytes of any other code.`],
      type: [...t.entries.map((e) => m.structType(e.struct, input)), unknown].join(' | '),
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Decoding

/** Byte size of a value that needs no length from the input, or undefined. */
function fixedSize(t: IrType): number | undefined {
  if (t.kind === 'int') return t.width;
  if (t.kind === 'float') return t.width;
  return undefined;
}

function intMethod(t: IntType): string {
  return `${t.signed ? 'i' : 'u'}${t.width * 8}${t.be && t.width > 1 ? 'be' : ''}`;
}

/** How a struct's decoder refers to a name in an expression. */
function decodeName(m: Module, s: IrStruct): (id: string) => string {
  return (id) => {
    if (id === 'remaining') return 'r.remaining';
    if (id === 'index') return 'i';
    if (id.endsWith('[]')) {
      const array = s.fields.find((x) => x.name === id.slice(0, -2))!;
      return isEnum(array.type) ? `${array.name}$code` : array.name;
    }
    if (id.includes('.')) return constValue(m.ir, id);
    const f = s.fields.find((x) => x.name === id);
    const local = f && isEnum(f.type) ? `${id}$code` : id;
    // An absent field reads as 0, as in the servers' C.
    return f?.cond ? `(${local} ?? 0)` : local;
  };
}

/** `Enum.NAME` in an expression: its value, with the name kept beside it for the reader. */
function constValue(ir: Ir, id: string): string {
  const [group, name] = id.split('.') as [string, string];
  const table = ir.enums.get(group) ?? ir.flags.get(group)!;
  const value = table.values.find(([n]) => n === name)![1];
  return `${value} /* ${id} */`;
}

function isEnum(t: IrType): boolean {
  return (t.kind === 'int' || t.kind === 'packed' || t.kind === 'computed') && t.enum !== undefined;
}

/** The Reader method for a packed integer or serialization varint (Writer's are named alike). */
function packedMethod(t: PackedType, write = false): string {
  if (!t.serial) return t.big && !write ? 'packedBig' : 'packed';
  if (t.signed) return 'zigzag';
  return t.big && !write ? 'varintBig' : 'varint';
}

function lengthRead(t: LengthType, reader: string, path: string): string {
  if (t.kind === 'packed') return `${reader}.${packedMethod(t)}(${q(path)})`;
  return `(${reader}.need(${t.width}, ${q(path)}), ${reader}.${intMethod(t)}())`;
}

function spanRead(span: Span, reader: string, path: string, name: (id: string) => string): string {
  switch (span.kind) {
    case 'size':
      return `${reader}.bytes(${compileExpr(span.size, name)}, ${q(path)})`;
    case 'rest':
      return `${reader}.rest()`;
    case 'prefix':
      return `${reader}.bytes(${lengthRead(span.prefix, reader, path)}, ${q(path)})`;
    case 'nul':
      return `${reader}.cstring(${q(path)})`;
    case 'padded':
      return `${reader}.padded(${compileExpr(span.size, name)}, ${q(path)})`;
  }
}

/** An expression that reads one value of `t` (fixed-size reads assume their bytes were checked). */
function readValue(m: Module, s: IrStruct, f: IrField, reader: string): string {
  const t = f.type;
  const name = decodeName(m, s);
  switch (t.kind) {
    case 'int':
      return `${reader}.${intMethod(t)}()`;
    case 'packed':
      return `${reader}.${packedMethod(t)}(${q(f.path)})`;
    case 'uint':
      return `${reader}.uint(${compileExpr(t.size, name)}, ${q(f.path)})`;
    case 'computed':
      return compileExpr(t.expr, name);
    case 'rows':
      return decodeRows(t, reader, name, f.path);
    case 'float':
      return `${reader}.f${t.width * 8}()`;
    case 'text':
      return t.span.kind === 'padded' ? spanRead(t.span, reader, f.path, name) : `${m.rt('bytesToText')}(${spanRead(t.span, reader, f.path, name)})`;
    case 'bytes':
      if (t.each && t.span.kind === 'size') return `${reader}.varintBytes(${compileExpr(t.span.size, name)}, ${q(f.path)})`;
      return spanRead(t.span, reader, f.path, name);
    case 'bitmap':
      return `${reader}.bitmap(${compileExpr(t.bits, name)}, ${q(f.path)}${t.msb || t.keepSpare ? `, ${t.msb}` : ''}${t.keepSpare ? ', true' : ''})`;
    case 'struct':
      return `${m.structFn('decode', t.name)}(${[reader, 'ctx', ...structArgs(m, t, name)].join(', ')})`;
    case 'tlv':
    case 'tagged':
      return `decode${t.entryType}List(${reader}, ctx)`;
    case 'switch':
      throw new Error('switch values are decoded by statements');
  }
}

function structArgs(m: Module, t: Extract<IrType, { kind: 'struct' }>, name: (id: string) => string): string[] {
  const target = m.struct(t.name);
  return target.params.map((p) => {
    const arg = t.args.find(([k]) => k === p.name);
    return arg ? compileExpr(arg[1], name) : 'undefined';
  });
}

/** The width argument of `Writer.prefixed`: 0 for a packed integer, -1 for a serialization varint. */
function lengthWidth(t: LengthType): number {
  return t.kind === 'packed' ? (t.serial ? -1 : 0) : t.width;
}

/** Consecutive unconditional fixed-size fields: one bounds check covers them all. */
function fixedRun(fields: IrField[], from: number): number {
  let bytes = 0;
  for (let i = from; i < fields.length; i++) {
    const f = fields[i]!;
    const size = fixedSize(f.type);
    if (size === undefined || f.cond || f.repeat) break;
    bytes += size;
  }
  return bytes;
}

function decodeBody(m: Module, s: IrStruct): string {
  const L = new Lines();
  const total = s.fields.find((f) => f.derive?.kind === 'totalSize');
  if (total) L.line(`const ${total.name}$start = r.pos;`);
  const list = s.keys?.list;
  let covered = 0;
  s.fields.forEach((f, i) => {
    if (covered === 0 && !f.cond && !f.repeat) {
      const run = fixedRun(s.fields, i);
      if (run > 0) L.line(`r.need(${run}, ${q(f.path)});`);
      covered = run;
    }
    const fixed = fixedSize(f.type);
    const inRun = covered > 0 && fixed !== undefined && !f.cond && !f.repeat;
    if (inRun) covered -= fixed!;
    else covered = 0;
    if (f.cond) {
      L.line(`let ${f.name}: ${fieldType(m, f, false)} | undefined;`);
      if (isEnum(f.type)) L.line(`let ${f.name}$code: number | undefined;`);
      for (const c of companions(f, s)) L.line(`let ${c.name}: ${c.type} | undefined;`);
      L.open(`if (${presence(L, m, s, f)}) {`);
      decodeField(L, m, s, f, false);
      L.close();
      if (list?.last === f.name) L.line(`keyOrder = ${m.rt('keyedOrder')}(keyed$, [${list.ids.join(', ')}]);`);
    } else {
      decodeField(L, m, s, f, true, inRun);
    }
  });
  // A present size, length or count whose field is absent could not be written back: refuse it.
  for (const f of s.fields) {
    const d = f.derive;
    const target = d && 'target' in d ? s.fields.find((t) => t.name === d.target) : undefined;
    if (f.cond && target?.cond) {
      L.line(`if (${f.name} !== undefined && ${target.name} === undefined) throw ${m.rt('absentTarget')}(r, ${q(f.path)}, '${target.name}');`);
    }
  }
  if (total) L.line(`${m.rt('checkDerived')}(${total.name}, r.pos - ${total.name}$start, r, ${q(total.path)});`);
  const props = keptFields(s).flatMap((f) => [f.name, ...companions(f, s).map((c) => c.name)]);
  if (s.entryCode) props.unshift(`code: '${s.entryCode}'`);
  L.line(`return { ${props.join(', ')} };`);
  return L.text();
}

/**
 * The condition under which optional field `f` is read. A sized list's fields are all read first, in
 * one loop (as MySQL reads them, in any order); each then takes the last value stored under its id.
 */
function presence(L: Lines, m: Module, s: IrStruct, f: IrField): string {
  const list = s.keys?.list;
  if (f.key === undefined) return compileExpr(f.cond!, decodeName(m, s));
  if (!list) return `r.key(${f.key}, ${s.keys!.serial}, ${q(f.path)})`;
  if (list.first === f.name) L.line(`const keyed$ = ${m.rt('readKeyed')}(r, ${s.keys!.serial}, ${list.end}, '${s.name}.keyOrder');`);
  L.line(`const ${f.name}$r = ${m.rt('lastKeyed')}(keyed$, ${f.key});`);
  return `${f.name}$r`;
}

/** Statements that read field `f` into a local of its name (declared here when `declare`). */
function decodeField(L: Lines, m: Module, s: IrStruct, f: IrField, declare: boolean, checked = false): void {
  const name = decodeName(m, s);
  const bind = (local: string, value: string) => L.line(declare ? `const ${local} = ${value};` : `${local} = ${value};`);
  const fixed = fixedSize(f.type);
  if (f.repeat) return decodeRepeat(L, m, s, f, declare);
  const reader = f.compression ? inflatedReader(L, m, s, f) : fieldReader(L, m, s, f);
  if (!checked && fixed !== undefined) L.line(`${reader}.need(${fixed}, ${q(f.path)});`);
  if (f.type.kind === 'switch') {
    if (declare) L.line(`let ${f.name}: ${fieldType(m, f, false)};`);
    decodeSwitch(L, m, s, f, f.name, reader);
    if (reader !== 'r') L.line(`${reader}.done(${q(f.path)});`);
    return;
  }
  const value = readValue(m, s, f, reader);
  if (f.constValue !== undefined) {
    L.line(`${m.rt('checkConst')}(${value}, ${f.constValue}, r, ${q(f.path)});`);
  } else if (isEnum(f.type)) {
    bind(`${f.name}$code`, value);
    bind(f.name, `${m.rt('enumName')}(${m.enumRef((f.type as { enum: string }).enum, 'Names', false)}, ${f.name}$code)`);
  } else {
    bind(f.name, value);
  }
  if (f.type.kind === 'bitmap' && f.type.keepSpare) bind(`${f.name}Spare`, `${reader}.spare || undefined`);
  if (reader !== 'r') L.line(`${reader}.done(${q(f.path)});`);
  if (f.derive?.kind === 'value') {
    L.line(`${m.rt('checkDerived')}(${name(f.name)}, ${compileExpr(f.derive.expr, name)}, r, ${q(f.path)});`);
  }
}

/**
 * A compressed field: its stored bytes are kept as NAMECompressed and it is read from their
 * decompressed form (when the compression's condition holds; else as it is).
 */
function inflatedReader(L: Lines, m: Module, s: IrStruct, f: IrField): string {
  const reader = `${f.name}$r`;
  const stored = `${f.name}Compressed`;
  const size = f.size === undefined || f.size === 'rest' ? 'r.rest()' : `r.bytes(${compileExpr(f.size, decodeName(m, s))}, ${q(f.path)})`;
  L.line(`let ${reader} = r;`);
  L.line(`let ${stored}: Uint8Array | undefined;`);
  L.open(`if (${f.compression!.cond ? compileExpr(f.compression!.cond, decodeName(m, s)) : 'true'}) {`);
  L.line(`${stored} = ${size};`);
  L.line(`${reader} = ${m.rt('inflate')}('${f.compression!.codec}', ${stored}, r.offset - ${stored}.length, ${q(f.path)});`);
  L.close();
  return reader;
}

/** A reader over the field's own window when it has a `size`, else `r`. */
function fieldReader(L: Lines, m: Module, s: IrStruct, f: IrField): string {
  const reader = `${f.name}$r`;
  // A keyed field's value spans the length that follows its key (a reader the list's loop made).
  if (f.key !== undefined && s.keys!.sized) return reader;
  if (f.size === undefined || f.size === 'rest') return 'r';
  L.line(`const ${reader} = r.sub(${compileExpr(f.size, decodeName(m, s))}, ${q(f.path)});`);
  return reader;
}

function decodeRepeat(L: Lines, m: Module, s: IrStruct, f: IrField, declare: boolean): void {
  const name = decodeName(m, s);
  const elem: IrField = { ...f, repeat: undefined, size: undefined };
  const fixed = fixedSize(f.type);
  const min = minSize(m.ir, f.type);
  const reader = fieldReader(L, m, s, f);
  const decl = (local: string, type: string, init: string) => L.line(declare ? `const ${local}: ${type} = ${init};` : `${local} = ${init};`);
  let loop: string;
  if (f.repeat!.kind === 'count') {
    const n = `${f.name}$n`;
    L.line(`const ${n} = ${compileExpr(f.repeat!.count, name)};`);
    // Each element takes at least `min` bytes: a forged count fails here, before anything is allocated.
    // (An element that may be empty has a count the IR checked is bounded by an earlier array.)
    if (min > 0) L.line(`${reader}.length(${min > 1 ? `${n} * ${min}` : n}, ${q(f.path)});`);
    decl(f.name, fieldType(m, f, false), `new Array(${n})`);
    if (isEnum(f.type)) decl(`${f.name}$code`, 'number[]', `new Array(${n})`);
    loop = `for (let i = 0; i < ${n}; i++) {`;
  } else {
    decl(f.name, fieldType(m, f, false), '[]');
    if (isEnum(f.type)) decl(`${f.name}$code`, 'number[]', '[]');
    loop = `for (let i = 0; ${reader}.pos < ${reader}.end; i++) {`;
  }
  L.open(loop);
  if (fixed !== undefined && f.repeat!.kind === 'rest') L.line(`${reader}.need(${fixed}, ${q(f.path)});`);
  if (elem.type.kind === 'switch') {
    decodeSwitch(L, m, s, elem, `${f.name}[i]`, reader);
  } else if (isEnum(elem.type)) {
    L.line(`const code = ${readValue(m, s, elem, reader)};`);
    L.line(`${f.name}$code[i] = code;`);
    L.line(`${f.name}[i] = ${m.rt('enumName')}(${m.enumRef((elem.type as { enum: string }).enum, 'Names', false)}, code);`);
  } else {
    L.line(`${f.name}[i] = ${readValue(m, s, elem, reader)};`);
  }
  L.close();
  if (reader !== 'r') L.line(`${reader}.done(${q(f.path)});`);
}

/** A switch that decodes into `target` from `reader`. */
function decodeSwitch(L: Lines, m: Module, s: IrStruct, f: IrField, target: string, reader: string): void {
  const t = f.type as Extract<IrType, { kind: 'switch' }>;
  const on = compileExpr(t.on, decodeName(m, s));
  L.open(`switch (${on}) {`);
  for (const c of t.cases) L.line(`case ${c.match}: ${target} = ${m.structFn('decode', c.struct)}(${reader}, ctx); break;`);
  if (t.default) L.line(`default: ${target} = ${m.structFn('decode', t.default)}(${reader}, ctx);`);
  else L.line(`default: throw ${m.rt('noCase')}(${on}, ${reader}, ${q(f.path)});`);
  L.close();
}

// ---------------------------------------------------------------------------------------------------------
// Encoding

/** Names in encoder expressions: parameters as they are, derived values as locals, fields from the input. */
function encodeName(m: Module, s: IrStruct): (id: string) => string {
  return (id) => {
    if (id === 'index') return 'i';
    if (id.endsWith('[]')) {
      const array = s.fields.find((x) => x.name === id.slice(0, -2))!;
      return isEnum(array.type) ? `${array.name}$code` : `v.${array.name}`;
    }
    if (id.includes('.')) return constValue(m.ir, id);
    const f = s.fields.find((x) => x.name === id);
    if (!f) return id;
    if (f.derive) return id;
    if (f.type.kind === 'computed') return isEnum(f.type) ? `${id}$code` : id;
    const local = isEnum(f.type) ? `${id}$code` : `v.${id}`;
    return f.cond ? `(${local} ?? 0)` : local;
  };
}

function spanWrite(f: IrField, span: Span, bytes: string, writer: string, name: (id: string) => string, derived: boolean): string {
  const path = q(f.path);
  switch (span.kind) {
    case 'size': {
      const open = derived || identifiers(span.size).includes('remaining');
      return open ? `${writer}.bytes(${bytes})` : `${writer}.fixed(${bytes}, ${compileExpr(span.size, name)}, ${path})`;
    }
    case 'rest':
      return `${writer}.bytes(${bytes})`;
    case 'prefix':
      return `${writer}.prefixed(${bytes}, ${lengthWidth(span.prefix)}, ${path})`;
    case 'nul':
      return `${writer}.cstring(${bytes}, ${path})`;
    case 'padded':
      return `${writer}.padded(${bytes}, ${compileExpr(span.size, name)}, ${path})`;
  }
}

/** A statement that writes value `value` of field `f`'s type. */
function writeValue(m: Module, s: IrStruct, f: IrField, value: string, writer: string, sizedByDerived: boolean): string {
  const t = f.type;
  const name = encodeName(m, s);
  switch (t.kind) {
    case 'int':
      if (t.enum && usedInExpressions(s, f.name)) return `${writer}.${intMethod(t)}(${f.name}$code${f.cond ? '!' : ''});`;
      return `${writer}.${intMethod(t)}(${t.enum ? `${m.rt('enumCode')}(${m.enumRef(t.enum, '', false)}, ${value}, ${q(f.path)})` : value});`;
    case 'packed':
      return `${writer}.${packedMethod(t, true)}(${t.enum ? `${m.rt('enumCode')}(${m.enumRef(t.enum, '', false)}, ${value}, ${q(f.path)})` : value}, ${q(f.path)});`;
    case 'float':
      return `${writer}.f${t.width * 8}(${value});`;
    case 'uint':
      return `${writer}.uint(${value}, ${compileExpr(t.size, name)}, ${q(f.path)});`;
    case 'computed':
      return '';
    case 'rows':
      return encodeRows(t, writer, value, name, f.path);
    case 'text':
      if (t.span.kind === 'padded' || t.span.kind === 'nul') return `${spanWrite(f, t.span, value, writer, name, sizedByDerived)};`;
      return `${spanWrite(f, t.span, `${m.rt('textToBytes')}(${value})`, writer, name, sizedByDerived)};`;
    case 'bytes':
      if (t.each && t.span.kind === 'size') return `${writer}.varintBytes(${value}, ${compileExpr(t.span.size, name)}, ${q(f.path)});`;
      return `${spanWrite(f, t.span, value, writer, name, sizedByDerived)};`;
    case 'bitmap': {
      // A bitmap that fills the rest of its structure is as long as the value says.
      const bits = identifiers(t.bits).includes('remaining') ? `${value}.length` : compileExpr(t.bits, name);
      return `${writer}.bitmap(${value}, ${bits}, ${q(f.path)}${t.msb || t.keepSpare ? `, ${t.msb}` : ''}${t.keepSpare ? `, v.${f.name}Spare` : ''});`;
    }
    case 'struct':
      return `${m.structFn('encode', t.name)}(${[writer, value, 'ctx', ...structArgs(m, t, name)].join(', ')});`;
    case 'tlv':
    case 'tagged':
      return `encode${t.entryType}List(${writer}, ${value}, ctx);`;
    case 'switch':
      throw new Error('switch values are encoded by statements');
  }
}

function derivedBy(s: IrStruct, target: string): IrField | undefined {
  return s.fields.find((f) => f.derive && 'target' in f.derive && f.derive.target === target);
}

function encodeBody(m: Module, s: IrStruct): string {
  const L = new Lines();
  const name = encodeName(m, s);
  const plans = new Map<string, SizePlan>();

  // Values other fields need before they are written.
  for (const f of s.fields) {
    if (f.type.kind === 'computed') {
      if (usedInExpressions(s, f.name)) L.line(`const ${isEnum(f.type) ? `${f.name}$code` : f.name} = ${compileExpr(f.type.expr, name)};`);
      continue;
    }
    if (isEnum(f.type) && usedInExpressions(s, f.name) && !f.derive) {
      const codes = m.enumRef((f.type as { enum: string }).enum, '', false);
      const code = (x: string) => `${m.rt('enumCode')}(${codes}, ${x}, ${q(f.path)})`;
      if (f.repeat) L.line(`const ${f.name}$code = v.${f.name}.map((x) => ${code('x')});`);
      else L.line(`const ${f.name}$code = ${f.cond ? `v.${f.name} === undefined ? undefined : ${code(`v.${f.name}`)}` : code(`v.${f.name}`)};`);
    }
    const d = f.derive;
    if (!d) continue;
    if (d.kind === 'sizeOf') {
      if (patchable(f)) {
        // The size precedes its payload: leave room, write the payload, then patch.
        L.line(`let ${f.name}$at = 0;`);
        plans.set(d.target, { kind: 'patch', at: `${f.name}$at`, field: f, plus: d.plus });
      } else {
        // A size of variable width cannot be reserved: the payload is written aside first.
        const target = s.fields.find((t) => t.name === d.target)!;
        const writer = `${target.name}$w`;
        L.line(`const ${writer} = new ${m.rt('Writer')}();`);
        if (target.cond) L.open(`if (v.${target.name} !== undefined) {`);
        writeField(L, m, s, target, `v.${target.name}`, writer);
        if (target.cond) L.close();
        plans.set(d.target, { kind: 'aside', writer });
      }
    }
    const target = 'target' in d ? s.fields.find((t) => t.name === d.target)! : undefined;
    if (d.kind === 'lengthOf') {
      const bytes = target!.type.kind === 'text' ? `${m.rt('textToBytes')}(v.${target!.name})` : `v.${target!.name}`;
      L.line(`const ${target!.name}$bytes = ${bytes};`);
      L.line(`const ${f.name} = ${target!.name}$bytes.length;`);
    } else if (d.kind === 'countOf') {
      L.line(`const ${f.name} = v.${target!.name}.length;`);
    } else if (d.kind === 'value') {
      L.line(`const ${f.name} = ${compileExpr(d.expr, name)};`);
    }
  }

  // A size of the whole structure, itself included: what follows it is written aside, then measured.
  const total = s.fields.find((f) => f.derive?.kind === 'totalSize');
  if (total) {
    L.line(`const ${total.name}$start = w.pos;`);
    L.line(`const ${total.name}$tail = new ${m.rt('Writer')}();`);
  }
  let w = 'w';
  for (const f of s.fields) {
    if (f.type.kind === 'computed') continue;
    if (f === total) {
      w = `${f.name}$tail`;
      continue;
    }
    if (f.cond) {
      // A trailer whose presence the decoder tells by the bytes left is written when it is given.
      // (A derived trailer is there when what it derives from is.)
      const given = f.derive && 'target' in f.derive ? f.derive.target : f.name;
      const present = identifiers(f.cond).includes('remaining') ? `v.${given} !== undefined` : compileExpr(f.cond, name);
      encodeList(L, m, s, f, w, 'before');
      L.open(`if (${present}) {`);
      if (f.key !== undefined) encodeKeyed(L, m, s, f, plans, w);
      else encodeField(L, m, s, f, plans, true, w);
      L.close();
      encodeList(L, m, s, f, w, 'after');
    } else {
      encodeField(L, m, s, f, plans, false, w);
    }
  }
  if (total) {
    L.line(`w.varint(${m.rt('sizeWithItself')}(w.pos - ${total.name}$start + ${w}.pos), ${q(total.path)});`);
    L.line(`w.bytes(${w}.view());`);
  }
  return L.text();
}

function usedInExpressions(s: IrStruct, name: string): boolean {
  return s.fields.some((f) => exprsOf(f).some((e) => identifiers(e).includes(name)));
}

function exprsOf(f: IrField): Expr[] {
  const out: Expr[] = [];
  if (f.cond) out.push(f.cond);
  if (f.size && f.size !== 'rest') out.push(f.size);
  if (f.repeat?.kind === 'count') out.push(f.repeat.count);
  if (f.derive?.kind === 'value') out.push(f.derive.expr);
  const t = f.type;
  if (t.kind === 'switch') out.push(t.on);
  if (t.kind === 'bitmap') out.push(t.bits);
  if (t.kind === 'struct') t.args.forEach(([, e]) => out.push(e));
  if ((t.kind === 'text' || t.kind === 'bytes') && (t.span.kind === 'size' || t.span.kind === 'padded')) out.push(t.span.size);
  return out;
}

/** Whether a size field can be reserved and patched in place (else its payload is written aside first). */
function patchable(f: IrField): boolean {
  return f.type.kind === 'int' && f.type.width <= 4 && !f.type.be;
}

/** How encodeBody arranges for a sizeOf field: a patch at a reserved slot, or a payload written aside. */
type SizePlan = { kind: 'patch'; at: string; field: IrField; plus: number } | { kind: 'aside'; writer: string };

/**
 * A keyed field: its id, then its value. A sized list's values are gathered by id and written once
 * all are, each after its length, in the input's `keyOrder` or else in declared order.
 */
function encodeKeyed(L: Lines, m: Module, s: IrStruct, f: IrField, plans: Map<string, SizePlan>, w: string): void {
  if (!s.keys!.sized) {
    L.line(`${w}.${s.keys!.serial ? 'varint' : 'packed'}(${f.key}, ${q(f.path)});`);
    return encodeField(L, m, s, f, plans, true, w);
  }
  const value = `${f.name}$kw`;
  L.line(`const ${value} = new ${m.rt('Writer')}();`);
  encodeField(L, m, s, f, plans, true, value);
  L.line(`keyed$.set(${f.key}, ${value}.view());`);
}

/** Around a sized list's fields: the map that gathers their values, then the writing of them all. */
function encodeList(L: Lines, m: Module, s: IrStruct, f: IrField, w: string, at: 'before' | 'after'): void {
  const list = s.keys?.list;
  if (at === 'before' && list?.first === f.name) L.line('const keyed$ = new Map<number, Uint8Array>();');
  if (at === 'after' && list?.last === f.name) {
    L.line(`${m.rt('writeKeyed')}(${w}, keyed$, v.keyOrder, [${list.ids.join(', ')}], ${s.keys!.serial}, ${list.end}, '${s.name}');`);
  }
}

function encodeField(L: Lines, m: Module, s: IrStruct, f: IrField, plans: Map<string, SizePlan>, optional: boolean, w = 'w'): void {
  const d: Derive | undefined = f.derive;
  if (f.constValue !== undefined) return void L.line(writeValue(m, s, f, String(f.constValue), w, false));
  if (d?.kind === 'frame') return void L.line(writeValue(m, s, f, `v.${f.name} ?? 0`, w, false));
  if (d?.kind === 'sizeOf') {
    const plan = plans.get(d.target)!;
    if (plan.kind === 'patch') return void L.line(`${f.name}$at = ${w}.reserve(${(f.type as IntType).width});`);
    return void L.line(writeValue(m, s, f, `${plan.writer}.pos${d.plus ? ` + ${d.plus}` : ''}`, w, false));
  }
  if (d) return void L.line(writeValue(m, s, f, f.name, w, false));

  const plan = plans.get(f.name);
  if (plan?.kind === 'aside') return void L.line(`${w}.bytes(${plan.writer}.view());`);
  const value = optional && !identifiers(f.cond!).includes('remaining') ? `${m.rt('required')}(v.${f.name}, ${q(f.path)})` : `v.${f.name}`;
  if (plan) L.line(`const ${f.name}$start = ${w}.pos;`);
  if (f.compression) {
    const plain = `${f.name}$plain`;
    const cond = f.compression.cond ? compileExpr(f.compression.cond, encodeName(m, s)) : 'true';
    L.open(`if (${cond}) {`);
    L.line(`const ${plain} = new ${m.rt('Writer')}();`);
    writeField(L, m, s, f, value, plain);
    L.line(`${w}.bytes(${m.rt('deflate')}('${f.compression.codec}', ${plain}.view(), v.${f.name}Compressed, ${q(f.path)}));`);
    L.close('} else {');
    L.depthUp();
    writeField(L, m, s, f, value, w);
    L.close();
  } else {
    writeField(L, m, s, f, value, w);
  }
  if (plan) {
    const width = (plan.field.type as IntType).width * 8;
    L.line(`${w}.patchU${width}(${plan.at}, ${w}.pos - ${f.name}$start${plan.plus ? ` + ${plan.plus}` : ''});`);
  }
}

/** Statements that write field `f`'s value (`value`) to `writer`: one value, an array, or a switch. */
function writeField(L: Lines, m: Module, s: IrStruct, f: IrField, value: string, writer: string): void {
  const lengthField = derivedBy(s, f.name);
  if (lengthField?.derive?.kind === 'lengthOf') {
    return void L.line(`${spanWrite(f, (f.type as { span: Span }).span, `${f.name}$bytes`, writer, encodeName(m, s), true)};`);
  }
  if (f.type.kind === 'switch' && !f.repeat) return encodeSwitch(L, m, s, f, value, writer);
  if (!f.repeat) return void L.line(writeValue(m, s, f, value, writer, !!lengthField));
  const elem = `${f.name}$e`;
  if (f.repeat.kind === 'count' && !lengthField && !identifiers(f.repeat.count).includes('remaining')) {
    L.line(`if (${value}.length !== (${compileExpr(f.repeat.count, encodeName(m, s))})) throw new ${m.rt('EncodeError')}('wrong number of elements', ${q(f.path)});`);
  }
  const one: IrField = { ...f, repeat: undefined };
  L.open(`for (let i = 0; i < ${value}.length; i++) {`);
  if (isEnum(f.type) && usedInExpressions(s, f.name)) {
    // The codes were computed up front, for the expressions that read them.
    L.line(writeValue(m, s, { ...one, type: { ...(f.type as IntType), enum: undefined } }, `${f.name}$code[i]!`, writer, false));
  } else {
    L.line(`const ${elem} = ${value}[i]!;`);
    if (f.type.kind === 'switch') encodeSwitch(L, m, s, one, elem, writer);
    else L.line(writeValue(m, s, one, elem, writer, false));
  }
  L.close();
}

function encodeSwitch(L: Lines, m: Module, s: IrStruct, f: IrField, value: string, writer: string): void {
  const t = f.type as Extract<IrType, { kind: 'switch' }>;
  const on = compileExpr(t.on, encodeName(m, s));
  L.open(`switch (${on}) {`);
  for (const c of t.cases) {
    L.line(`case ${c.match}: ${m.structFn('encode', c.struct)}(${writer}, ${value} as ${m.structType(c.struct, true)}, ctx); break;`);
  }
  if (t.default) L.line(`default: ${m.structFn('encode', t.default)}(${writer}, ${value} as ${m.structType(t.default, true)}, ctx);`);
  else L.line(`default: throw new ${m.rt('EncodeError')}(\`no case for \${${on}}\`, ${q(f.path)});`);
  L.close();
}

// ---------------------------------------------------------------------------------------------------------
// Structures, entry lists, events

function params(s: IrStruct): { name: string; type: string }[] {
  return s.params.map((p) => ({ name: p.name, type: p.type }));
}

/** Parameters as a function's body uses them: an unused one gets a leading underscore, as TypeScript wants. */
function used<P extends { name: string }>(body: string, ps: P[]): P[] {
  return ps.map((p) => (new RegExp(`\\b${p.name.replace('$', '\\$')}\\b`).test(body) ? p : { ...p, name: `_${p.name}` }));
}

/** Functions the struct's expressions call: imported from the runtime. */
function importCalls(m: Module, s: IrStruct): void {
  const calls = (e: Expr): string[] => (e.kind === 'call' ? [e.fn, ...e.args.flatMap(calls)] : []);
  for (const f of s.fields) {
    const exprs = f.type.kind === 'computed' ? [...exprsOf(f), f.type.expr] : exprsOf(f);
    for (const fn of exprs.flatMap(calls)) m.rt(fn as RuntimeName);
  }
}

function emitStruct(sf: SourceFile, m: Module, s: IrStruct): void {
  importCalls(m, s);
  emitInterfaces(sf, m, s);
  if (s.offsets) emitOffsets(sf, s);
  const ctxParam = { name: 'ctx', type: m.context() };
  const decode = decodeBody(m, s);
  sf.addFunction({
    isExported: true,
    name: `decode${s.name}`,
    docs: [`Reads ${s.name}.`],
    parameters: used(decode, [{ name: 'r', type: m.rtType('Reader') }, ctxParam, ...params(s)]),
    returnType: s.name,
    statements: decode,
  });
  const encode = encodeBody(m, s);
  sf.addFunction({
    isExported: true,
    name: `encode${s.name}`,
    docs: [`Writes ${s.name}.`],
    parameters: used(encode, [{ name: 'w', type: m.rtType('Writer') }, { name: 'v', type: `${s.name}Input` }, ctxParam, ...params(s)]),
    returnType: 'void',
    statements: encode,
  });
  emitFromJson(sf, m, s);
  for (const f of s.fields) {
    if (f.type.kind === 'tlv' || f.type.kind === 'tagged') emitEntryList(sf, m, f.type, s);
  }
}

// ---------------------------------------------------------------------------------------------------------
// From JSON: the dump's form back to encoder input, each problem named by its JSON path

/** An expression converting JSON `j` at path `p` to a value of `t` (switches are statements). */
function fromJsonValue(m: Module, t: IrType, j: string, p: string): string {
  switch (t.kind) {
    case 'int':
    case 'packed':
      if (t.enum) return `${m.rt('jEnum')}(${j}, ${p}) as ${m.enumRef(t.enum, 'Name', true)} | number`;
      return t.big ? `${m.rt('jBig')}(${j}, ${p})` : `${m.rt('jNum')}(${j}, ${p})`;
    case 'uint':
      return `${m.rt('jNum')}(${j}, ${p})`;
    case 'float':
      return `${m.rt('jFloat')}(${j}, ${p})`;
    case 'text':
      return `${m.rt('jText')}(${j}, ${p})`;
    case 'bytes':
      return `${m.rt('jBytes')}(${j}, ${p})`;
    case 'bitmap':
      return `${m.rt('jBits')}(${j}, ${p})`;
    case 'struct':
      return `${m.use(`${t.name}FromJson`, m.struct(t.name).module, false)}(${j}, ${p})`;
    case 'tlv':
    case 'tagged':
      return `${m.rt('jArray')}(${j}, ${p}).map((e, i) => ${t.entryType}FromJson(e, \`\${${p}}[\${i}]\`))`;
    case 'rows':
      return rowsFromJson(m, t, j, p);
    case 'computed':
    case 'switch':
      throw new Error(`${t.kind} has no JSON conversion of its own`);
  }
}

function emitFromJson(sf: SourceFile, m: Module, s: IrStruct): void {
  const L = new Lines();
  const fields = inputFields(s);
  L.line(`${fields.length ? 'const o = ' : ''}${m.rt('jObject')}(j, path);`);
  L.line(`const v = {${s.entryCode ? ` code: '${s.entryCode}'` : ''} } as ${s.name}Input;`);
  for (const f of fields) {
    if (isEnum(f.type) && usedInExpressions(s, f.name)) L.line(`let ${f.name}$code: ${f.repeat ? 'number[] = []' : 'number | undefined'};`);
  }
  for (const f of fields) {
    const j = `o.${f.name}`;
    const p = `\`\${path}.${f.name}\``;
    const optional = f.cond !== undefined || f.derive !== undefined;
    if (optional) L.open(`if (${j} !== undefined) {`);
    if (f.repeat) {
      L.open(`v.${f.name} = ${m.rt('jArray')}(${j}, ${p}).map((e, i) => {`);
      const at = `\`\${path}.${f.name}[\${i}]\``;
      if (f.type.kind === 'switch') fromJsonSwitch(L, m, s, f, 'e', at, (x) => `return ${x};`);
      else L.line(`return ${fromJsonValue(m, f.type, 'e', at)};`);
      L.close('});');
    } else if (f.type.kind === 'switch') {
      fromJsonSwitch(L, m, s, f, j, p, (x) => `v.${f.name} = ${x};`);
    } else {
      L.line(`v.${f.name} = ${fromJsonValue(m, f.type, j, p)};`);
    }
    if (isEnum(f.type) && usedInExpressions(s, f.name)) {
      const codes = m.enumRef((f.type as { enum: string }).enum, '', false);
      const code = (x: string) => `${m.rt('enumCode')}(${codes}, ${x}, ${q(f.path)})`;
      L.line(`${f.name}$code = ${f.repeat ? `v.${f.name}.map((x) => ${code('x')})` : code(`v.${f.name}`)};`);
    }
    for (const c of companions(f, s)) {
      if (c.name !== 'keyOrder') L.line(`if (o.${c.name} !== undefined) v.${c.name} = ${c.type === 'Uint8Array' ? m.rt('jBytes') : m.rt('jNum')}(o.${c.name}, \`\${path}.${c.name}\`);`);
    }
    if (optional) L.close();
  }
  // The list's order belongs to no one field: it is read whichever fields are given.
  if (s.keys?.list) L.line(`if (o.keyOrder !== undefined) v.keyOrder = ${m.rt('jKeyOrder')}(o.keyOrder, \`\${path}.keyOrder\`);`);
  L.line('return v;');
  sf.addFunction({
    isExported: true,
    name: `${s.name}FromJson`,
    docs: [`${s.name}'s encoder input from its JSON form in the dump.`],
    parameters: [{ name: 'j', type: 'unknown' }, { name: 'path', type: 'string' }],
    returnType: `${s.name}Input`,
    statements: L.text(),
  });
}

function fromJsonSwitch(L: Lines, m: Module, s: IrStruct, f: IrField, j: string, p: string, take: (x: string) => string): void {
  const t = f.type as Extract<IrType, { kind: 'switch' }>;
  const on = compileExpr(t.on, encodeName(m, s));
  const conv = (struct: string) => `${m.use(`${struct}FromJson`, m.struct(struct).module, false)}(${j}, ${p})`;
  L.open(`switch (${on}) {`);
  for (const c of t.cases) L.line(`case ${c.match}: ${take(conv(c.struct))}${take('').startsWith('return') ? '' : ' break;'}`);
  if (t.default) L.line(`default: ${take(conv(t.default))}`);
  else L.line(`default: throw new ${m.rt('EncodeError')}(\`no case for \${${on}}\`, ${p});`);
  L.close();
}

function emitOffsets(sf: SourceFile, s: IrStruct): void {
  const props: string[] = [];
  let at = 0;
  for (const f of s.fields) {
    const size = fixedSize(f.type) ?? (f.type.kind === 'text' && f.type.span.kind === 'padded' && f.type.span.size.kind === 'num' ? f.type.span.size.value : undefined);
    // A conditional field keeps its offset: it holds wherever the field is present.
    if (size === undefined || f.repeat) break;
    props.push(`${f.name}: ${at},`);
    at += size;
  }
  props.push(`end: ${at},`);
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Byte offsets of ${s.name}'s leading fixed-size fields, and where they end.`],
    declarations: [{ name: `${s.name}Offsets`, initializer: `{\n${props.join('\n')}\n} as const` }],
  });
}

function emitEntryList(sf: SourceFile, m: Module, t: Extract<IrType, { kind: 'tlv' | 'tagged' }>, owner: IrStruct): void {
  emitEntryUnion(sf, m, t, owner);
  const codeRead = `r.${intMethod(t.code)}()`;
  const D = new Lines();
  D.line(`const out: ${t.entryType}[] = [];`);
  D.open('while (r.pos < r.end) {');
  D.line(`r.need(${t.code.width}, '${owner.name}.${t.entryType}.code');`);
  D.line(`const code = ${codeRead};`);
  if (t.kind === 'tlv') {
    D.line(`const body = r.sub(${lengthRead(t.length, 'r', `${owner.name}.${t.entryType}.length`)}, '${owner.name}.${t.entryType}');`);
    D.open('switch (code) {');
    for (const e of t.entries) D.line(`case ${e.code}: out.push(${m.structFn('decode', e.struct)}(body, ctx)); body.done('${e.struct}'); break;`);
    D.line('default: out.push({ code, raw: body.rest() });');
    D.close();
  } else {
    D.open('switch (code) {');
    for (const e of t.entries) D.line(`case ${e.code}: out.push(${m.structFn('decode', e.struct)}(r, ctx)); break;`);
    D.line('// An unknown code has an unknown length: what follows it cannot be read, so it is kept whole.');
    D.line('default: out.push({ code, raw: r.rest() });');
    D.close();
  }
  D.close();
  D.line('return out;');
  sf.addFunction({
    isExported: true,
    name: `decode${t.entryType}List`,
    docs: [`Reads ${owner.name}'s ${t.kind === 'tlv' ? 'type-length-value entries' : 'code-tagged entries'} to the end of \`r\`, in stored order.`],
    parameters: [{ name: 'r', type: m.rtType('Reader') }, { name: 'ctx', type: m.context() }],
    returnType: `${t.entryType}[]`,
    statements: D.text(),
  });

  const E = new Lines();
  E.open('for (const e of entries) {');
  E.open('switch (e.code) {');
  const write = (code: string) => `w.${intMethod(t.code)}(${code});`;
  for (const e of t.entries) {
    const call = (writer: string) => `${m.structFn('encode', e.struct)}(${writer}, e as ${m.structType(e.struct, true)}, ctx);`;
    if (t.kind === 'tlv') {
      // The length precedes a value whose size is known only once written: write it aside first.
      E.line(`case '${e.name}': { ${write(String(e.code))} const sub = new ${m.rt('Writer')}(); ${call('sub')} w.prefixed(sub.view(), ${lengthWidth(t.length)}, '${e.struct}'); break; }`);
    } else {
      E.line(`case '${e.name}': ${write(String(e.code))} ${call('w')} break;`);
    }
  }
  const raw = `e as { code: number; raw: Uint8Array }`;
  if (t.kind === 'tlv') {
    E.line(`default: ${write(`(${raw}).code`)} w.prefixed((${raw}).raw, ${lengthWidth(t.length)}, '${owner.name}.${t.entryType}');`);
  } else {
    E.line(`default: ${write(`(${raw}).code`)} w.bytes((${raw}).raw);`);
  }
  E.close();
  E.close();
  const J = new Lines();
  J.line(`const o = ${m.rt('jObject')}(j, path);`);
  J.open('switch (o.code) {');
  for (const e of t.entries) J.line(`case '${e.name}': return ${m.use(`${e.struct}FromJson`, m.struct(e.struct).module, false)}(o, path);`);
  J.line(`default: return { code: ${m.rt('jNum')}(o.code, \`\${path}.code\`), raw: ${m.rt('jBytes')}(o.raw, \`\${path}.raw\`) };`);
  J.close();
  sf.addFunction({
    isExported: true,
    name: `${t.entryType}FromJson`,
    docs: [`An entry of ${owner.name} from its JSON form: a known code by name, any other as {code, raw}.`],
    parameters: [{ name: 'j', type: 'unknown' }, { name: 'path', type: 'string' }],
    returnType: `${t.entryType}Input`,
    statements: J.text(),
  });
  sf.addFunction({
    isExported: true,
    name: `encode${t.entryType}List`,
    docs: [`Writes ${owner.name}'s entries in the order given.`],
    parameters: [
      { name: 'w', type: m.rtType('Writer') },
      { name: 'entries', type: `${t.entryType}Input[]` },
      { name: 'ctx', type: m.context() },
    ],
    returnType: 'void',
    statements: E.text(),
  });
}

/** The catalogue's arguments for an event's body struct, in the order of its params. */
function eventArgs(m: Module, e: Ir['events'][number]): string[] {
  const body = m.struct(e.body!);
  const noNames = (id: string): string => {
    throw new Error(`event ${e.name}: arguments are constants, '${id}' is not`);
  };
  return body.params.map((p) => compileExpr(parseExpr(e.args![p.name]!), (id) => (id.includes('.') ? constValue(m.ir, id) : noNames(id))));
}

function emitEvents(sf: SourceFile, m: Module, ir: Ir): void {
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ["Every event type code a server may write, by its server's constant name."],
    declarations: [{ name: 'EventTypes', initializer: `{\n${ir.events.map((e) => `${e.name}: ${e.code},`).join('\n')}\n} as const` }],
  });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Constant names by event type code.'],
    declarations: [{ name: 'EventTypeNames', type: 'Readonly<Record<number, string>>', initializer: `{\n${ir.events.map((e) => `${e.code}: '${e.name}',`).join('\n')}\n}` }],
  });
  const withBody = ir.events.filter((e) => e.body);
  for (const input of [false, true]) {
    sf.addTypeAlias({
      isExported: true,
      name: input ? 'EventBodyInput' : 'EventBody',
      docs: [input ? 'What `encodeEventBody` takes.' : 'A decoded event body, tagged with its type name.'],
      type: withBody.map((e) => `({ type: '${e.name}' } & ${m.structType(e.body!, input)})`).join('\n  | '),
    });
  }
  const D = new Lines();
  D.open('switch (code) {');
  for (const e of withBody) D.line(`case ${e.code}: return Object.assign(into, { type: '${e.name}' as const }, ${m.structFn('decode', e.body!)}(${['r', 'ctx', ...eventArgs(m, e)].join(', ')}));`);
  D.line('default: return undefined;');
  D.close();
  sf.addFunction({
    isExported: true,
    name: 'decodeEventBody',
    docs: ['Decodes the body of an event of a type the schemas describe into `into` (after what it holds); undefined for any other type.'],
    typeParameters: [{ name: 'T', constraint: 'object' }],
    parameters: [{ name: 'code', type: 'number' }, { name: 'r', type: m.rtType('Reader') }, { name: 'ctx', type: m.context() }, { name: 'into', type: 'T' }],
    returnType: '(T & EventBody) | undefined',
    statements: D.text(),
  });
  const E = new Lines();
  E.open('switch (body.type) {');
  for (const e of withBody) E.line(`case '${e.name}': return ${m.structFn('encode', e.body!)}(${['w', 'body', 'ctx', ...eventArgs(m, e)].join(', ')});`);
  E.close();
  sf.addFunction({
    isExported: true,
    name: 'encodeEventBody',
    docs: ['Encodes an event body by its type name.'],
    parameters: [{ name: 'w', type: m.rtType('Writer') }, { name: 'body', type: 'EventBodyInput' }, { name: 'ctx', type: m.context() }],
    returnType: 'void',
    statements: E.text(),
  });
  const J = new Lines();
  J.open('switch (type) {');
  for (const e of withBody) J.line(`case '${e.name}': return Object.assign({ type: '${e.name}' as const }, ${m.use(`${e.body!}FromJson`, m.struct(e.body!).module, false)}(j, path));`);
  J.line('default: return undefined;');
  J.close();
  sf.addFunction({
    isExported: true,
    name: 'eventBodyFromJson',
    docs: ['The body of an event of a type the schemas describe, from its JSON form; undefined for any other type.'],
    parameters: [{ name: 'type', type: 'string' }, { name: 'j', type: 'unknown' }, { name: 'path', type: 'string' }],
    returnType: 'EventBodyInput | undefined',
    statements: J.text(),
  });
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Codes whose body a schema describes.'],
    declarations: [{ name: 'EventCodesWithBody', initializer: `new Set<number>([${withBody.map((e) => e.code).join(', ')}])` }],
  });
  emitTransactionSet(sf, ir, 'starts', 'TransactionStartEvents', 'Event types that start a MySQL transaction group, whose transaction_length the encoder computes.');
  emitTransactionSet(sf, ir, 'outside', 'NonTransactionEvents', 'Event types that are never part of a MySQL transaction group: they end one without being counted in it.');
}

/** The names of the catalogue's events with one `transaction:` value, as a set of type names. */
function emitTransactionSet(sf: SourceFile, ir: Ir, role: NonNullable<Ir['events'][number]['transaction']>, name: string, doc: string): void {
  const names = ir.events.filter((e) => e.transaction === role).map((e) => `'${e.name}'`);
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [doc],
    declarations: [{ name, type: 'ReadonlySet<string>', initializer: `new Set<keyof typeof EventTypes>([${names.join(', ')}])` }],
  });
}

function emitContext(project: Project, ir: Ir, runtimeDir: string): EmittedFile {
  const sf = project.createSourceFile('context.ts', '', { overwrite: true });
  for (const type of new Set(ir.context.map((c) => c.type))) {
    if (isRuntimeType(type)) sf.addImportDeclaration({ moduleSpecifier: runtimeModule(runtimeDir, type), namedImports: [type], isTypeOnly: true });
  }
  sf.addInterface({
    isExported: true,
    name: 'Context',
    docs: ['What the event stream knows when it decodes or encodes a structure: `ctx.NAME` in the schemas.'],
    properties: ir.context.map((c) => ({ name: c.name, type: c.type, docs: docs(c.doc) })),
  });
  return { path: 'context.ts', text: HEADER('the `context` sections of schemas/') + sf.getFullText() };
}

function emitIndex(project: Project, ir: Ir): EmittedFile {
  const sf = project.createSourceFile('index.ts', '', { overwrite: true });
  for (const module of ['context', ...ir.modules]) sf.addExportDeclaration({ moduleSpecifier: `./${module}.js` });
  return { path: 'index.ts', text: HEADER('schemas/') + sf.getFullText() };
}

