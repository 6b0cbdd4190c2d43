/**
 * Decoders: for each struct, straight-line code over the runtime's Reader, one bounds check per run of
 * fixed-size fields; for each entry list, a loop by code; for the catalogue, a switch by event type.
 */
import type { SourceFile } from 'ts-morph';
import { compileExpr, type Expr } from '../expr.js';
import { fixedSize, minSize } from '../ir/sizes.js';
import type { Ir, IrEntryList, IrField, IrStruct, IrType, Span } from '../ir/types.js';
import { eventArgs, eventsWithBody } from './events.js';
import { decodeName, structArgs } from './expressions.js';
import { companions, decodedProps, derivedFromLater, enumName, fieldType, isEnum, structParams } from './fields.js';
import type { Module } from './module.js';
import { Lines, q, used } from './print.js';
import { decodeRows, splitRowsInto } from './rows.js';
import { bitmapOptions, intMethod, lengthRead, packedMethod } from './wire.js';

export function emitDecoder(sf: SourceFile, m: Module, s: IrStruct): void {
  const body = decodeBody(m, s);
  sf.addFunction({
    isExported: true,
    name: `decode${s.name}`,
    docs: [`Reads ${s.name}.`],
    parameters: used(body, [
      { name: 'r', type: m.rtType('Reader') },
      { name: 'ctx', type: m.context() },
      ...structParams(s),
    ]),
    returnType: s.name,
    statements: body,
  });
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
  // A value derived from fields after it is checked once they are read.
  for (const f of s.fields.filter((x) => derivedFromLater(s, x))) {
    if (f.cond) L.open(`if (${f.name} !== undefined) {`);
    checkValue(L, m, s, f);
    if (f.cond) L.close();
  }
  // A present size, length or count whose field is absent could not be written back: refuse it.
  for (const f of s.fields) {
    const d = f.derive;
    const target = d && 'target' in d ? s.fields.find((t) => t.name === d.target) : undefined;
    if (f.cond && target?.cond) {
      L.line(
        `if (${f.name} !== undefined && ${target.name} === undefined) throw ${m.rt('absentTarget')}(r, ${q(f.path)}, ` +
          `'${target.name}');`,
      );
    }
  }
  if (total) L.line(`${m.rt('checkDerived')}(${total.name}, r.pos - ${total.name}$start, r, ${q(total.path)});`);
  const props = decodedProps(s).map((p) => (p.field || p.name !== 'code' ? p.name : `code: '${s.entryCode}'`));
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
  if (list.first === f.name)
    L.line(`const keyed$ = ${m.rt('readKeyed')}(r, ${s.keys!.serial}, ${list.end}, '${s.name}.keyOrder');`);
  L.line(`const ${f.name}$r = ${m.rt('lastKeyed')}(keyed$, ${f.key});`);
  return `${f.name}$r`;
}

/** Statements that read field `f` into a local of its name (declared here when `declare`). */
function decodeField(L: Lines, m: Module, s: IrStruct, f: IrField, declare: boolean, checked = false): void {
  const bind = (local: string, value: string) =>
    L.line(declare ? `const ${local} = ${value};` : `${local} = ${value};`);
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
  if (f.type.kind === 'rows' && f.type.undecoded) {
    L.line(`const ${f.name}$split = ${value};`);
    splitRowsInto(f.type, f.name, `${f.name}$split`, bind);
  } else if (f.constValue !== undefined) {
    L.line(`${m.rt('checkConst')}(${value}, ${f.constValue}, r, ${q(f.path)});`);
  } else if (isEnum(f.type)) {
    bind(`${f.name}$code`, value);
    bind(f.name, enumName(m, f, `${f.name}$code`));
  } else {
    bind(f.name, value);
  }
  if (f.type.kind === 'bitmap' && f.type.keepSpare) bind(`${f.name}Spare`, `${reader}.spare || undefined`);
  if (reader !== 'r') L.line(`${reader}.done(${q(f.path)});`);
  if (f.derive?.kind === 'value' && !derivedFromLater(s, f)) checkValue(L, m, s, f);
}

/** A derived value must be what its expression gives, or encoding would not give back the stored bytes. */
function checkValue(L: Lines, m: Module, s: IrStruct, f: IrField): void {
  const name = decodeName(m, s);
  L.line(
    `${m.rt('checkDerived')}(${name(f.name)}, ${compileExpr((f.derive as { expr: Expr }).expr, name)}, r, ` +
      `${q(f.path)});`,
  );
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
      return t.span.kind === 'padded'
        ? spanRead(t.span, reader, f.path, name)
        : `${m.rt('bytesToText')}(${spanRead(t.span, reader, f.path, name)})`;
    case 'bytes':
      if (t.each && t.span.kind === 'size')
        return `${reader}.varintBytes(${compileExpr(t.span.size, name)}, ${q(f.path)})`;
      return spanRead(t.span, reader, f.path, name);
    case 'bitmap':
      return `${reader}.bitmap(${compileExpr(t.bits, name)}, ${q(f.path)}${bitmapOptions(t, 'true')})`;
    case 'struct':
      return `${m.structFn('decode', t.name)}(${[reader, 'ctx', ...structArgs(m, t, name)].join(', ')})`;
    case 'tlv':
    case 'tagged':
      return `decode${t.entryType}List(${reader}, ctx)`;
    case 'switch':
      throw new Error('switch values are decoded by statements');
  }
}

/**
 * A compressed field: its stored bytes are kept as NAMECompressed and it is read from their
 * decompressed form (when the compression's condition holds; else as it is).
 */
function inflatedReader(L: Lines, m: Module, s: IrStruct, f: IrField): string {
  const reader = `${f.name}$r`;
  const stored = `${f.name}Compressed`;
  const size =
    f.size === undefined || f.size === 'rest'
      ? 'r.rest()'
      : `r.bytes(${compileExpr(f.size, decodeName(m, s))}, ${q(f.path)})`;
  L.line(`let ${reader} = r;`);
  L.line(`let ${stored}: Uint8Array | undefined;`);
  L.open(`if (${f.compression!.cond ? compileExpr(f.compression!.cond, decodeName(m, s)) : 'true'}) {`);
  L.line(`${stored} = ${size};`);
  L.line(
    `${reader} = ${m.rt('inflate')}('${f.compression!.codec}', ${stored}, r.offset - ${stored}.length, ${q(f.path)});`,
  );
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
  const decl = (local: string, type: string, init: string) =>
    L.line(declare ? `const ${local}: ${type} = ${init};` : `${local} = ${init};`);
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
    L.line(`${f.name}[i] = ${enumName(m, elem, 'code')};`);
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
  for (const c of t.cases)
    L.line(`case ${c.match}: ${target} = ${m.structFn('decode', c.struct)}(${reader}, ctx); break;`);
  if (t.default) L.line(`default: ${target} = ${m.structFn('decode', t.default)}(${reader}, ctx);`);
  else L.line(`default: throw ${m.rt('noCase')}(${on}, ${reader}, ${q(f.path)});`);
  L.close();
}

/** An entry list's decoder: entries to the end of `r`; an unknown code's bytes are kept raw. */
export function emitEntryListDecoder(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  const L = new Lines();
  L.line(`const out: ${t.entryType}[] = [];`);
  L.open('while (r.pos < r.end) {');
  L.line(`r.need(${t.code.width}, '${owner.name}.${t.entryType}.code');`);
  L.line(`const code = r.${intMethod(t.code)}();`);
  if (t.kind === 'tlv') {
    L.line(
      `const body = r.sub(${lengthRead(t.length, 'r', `${owner.name}.${t.entryType}.length`)}, ` +
        `'${owner.name}.${t.entryType}');`,
    );
    L.open('switch (code) {');
    for (const e of t.entries)
      L.line(
        `case ${e.code}: out.push(${m.structFn('decode', e.struct)}(body, ctx)); body.done('${e.struct}'); break;`,
      );
    L.line('default: out.push({ code, raw: body.rest() });');
    L.close();
  } else {
    L.open('switch (code) {');
    for (const e of t.entries) L.line(`case ${e.code}: out.push(${m.structFn('decode', e.struct)}(r, ctx)); break;`);
    L.line('// An unknown code has an unknown length: what follows it cannot be read, so it is kept whole.');
    L.line('default: out.push({ code, raw: r.rest() });');
    L.close();
  }
  L.close();
  L.line('return out;');
  sf.addFunction({
    isExported: true,
    name: `decode${t.entryType}List`,
    docs: [
      `Reads ${owner.name}'s ${t.kind === 'tlv' ? 'type-length-value entries' : 'code-tagged entries'} to the end of ` +
        `\`r\`, in stored order.`,
    ],
    parameters: [
      { name: 'r', type: m.rtType('Reader') },
      { name: 'ctx', type: m.context() },
    ],
    returnType: `${t.entryType}[]`,
    statements: L.text(),
  });
}

export function emitEventBodyDecoder(sf: SourceFile, m: Module, ir: Ir): void {
  const L = new Lines();
  L.open('switch (code) {');
  for (const e of eventsWithBody(ir))
    L.line(
      `case ${e.code}: return Object.assign(into, { type: '${e.name}' as const }, ` +
        `${m.structFn('decode', e.body!)}(${['r', 'ctx', ...eventArgs(m, e)].join(', ')}));`,
    );
  L.line('default: return undefined;');
  L.close();
  sf.addFunction({
    isExported: true,
    name: 'decodeEventBody',
    docs: [
      'Decodes the body of an event of a type the schemas describe into `into` (after what it holds); ' +
        'undefined for any other type.',
    ],
    typeParameters: [{ name: 'T', constraint: 'object' }],
    parameters: [
      { name: 'code', type: 'number' },
      { name: 'r', type: m.rtType('Reader') },
      { name: 'ctx', type: m.context() },
      { name: 'into', type: 'T' },
    ],
    returnType: '(T & EventBody) | undefined',
    statements: L.text(),
  });
}
