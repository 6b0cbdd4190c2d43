/**
 * Encoders: for each struct, straight-line code over the runtime's Writer that computes what is derived
 * (sizes, lengths, counts, values) and patches or writes aside what cannot be known up front; for each
 * entry list, a switch by entry name; for the catalogue, a switch by event type.
 */
import type { SourceFile } from 'ts-morph';
import { compileExpr, identifiers, type Expr } from '../expr.js';
import type { Derive, IntType, Ir, IrEntryList, IrField, IrStruct, IrType, Span } from '../ir/types.js';
import { eventArgs, eventsWithBody } from './events.js';
import { encodeName, structArgs, usedInExpressions } from './expressions.js';
import { enumCode, isEnum, isGiven, structParams } from './fields.js';
import type { Module } from './module.js';
import { Lines, q, used } from './print.js';
import { encodeRows } from './rows.js';
import { bitmapOptions, intMethod, lengthWidth, packedMethod } from './wire.js';

export function emitEncoder(sf: SourceFile, m: Module, s: IrStruct): void {
  const body = encodeBody(m, s);
  sf.addFunction({
    isExported: true,
    name: `encode${s.name}`,
    docs: [`Writes ${s.name}.`],
    parameters: used(body, [
      { name: 'w', type: m.rtType('Writer') },
      { name: 'v', type: `${s.name}Input` },
      { name: 'ctx', type: m.context() },
      ...structParams(s),
    ]),
    returnType: 'void',
    statements: body,
  });
}

/** How encodeBody arranges for a sizeOf field: a patch at a reserved slot, or a payload written aside. */
type SizePlan = { kind: 'patch'; at: string; field: IrField; plus: number } | { kind: 'aside'; writer: string };

function encodeBody(m: Module, s: IrStruct): string {
  const L = new Lines();
  const name = encodeName(m, s);
  const plans = new Map<string, SizePlan>();

  // The computed fields given to the encoder, which stored fields derive from.
  const given = s.fields.filter(isGiven);
  for (const f of given)
    L.line(
      `const ${isEnum(f.type) ? `${f.name}$code` : f.name} = ` +
        `${isEnum(f.type) ? enumCode(m, f, `v.${f.name}`) : `v.${f.name}`};`,
    );
  // Values other fields need before they are written.
  for (const f of s.fields) {
    if (isGiven(f)) continue;
    if (f.type.kind === 'computed') {
      if (usedInExpressions(s, f.name))
        L.line(`const ${isEnum(f.type) ? `${f.name}$code` : f.name} = ${compileExpr(f.type.expr, name)};`);
      continue;
    }
    if (isEnum(f.type) && usedInExpressions(s, f.name) && !f.derive) {
      const code = (x: string) => enumCode(m, f, x);
      if (f.repeat) L.line(`const ${f.name}$code = v.${f.name}.map((x) => ${code('x')});`);
      else
        L.line(
          `const ${f.name}$code = ${f.cond ? `v.${f.name} === undefined ? undefined : ` : ''}${code(`v.${f.name}`)};`,
        );
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

  for (const f of given) readBack(L, m, s, f);

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
      const present = identifiers(f.cond).includes('remaining')
        ? `v.${given} !== undefined`
        : compileExpr(f.cond, name);
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

/**
 * A given computed field must be what the decoder will compute from the fields derived from it, as they
 * are stored (cut to their width): else the bytes would not read back as the input.
 */
function readBack(L: Lines, m: Module, s: IrStruct, f: IrField): void {
  const name = encodeName(m, s);
  const stored = (id: string) => {
    const x = s.fields.find((d) => d.name === id);
    return x?.derive?.kind === 'value' && x.type.kind === 'int' ? asStored(x.type, id) : name(id);
  };
  const again = `${f.name}$again`;
  const local = name(f.name);
  L.line(`const ${again} = ${compileExpr((f.type as { expr: Expr }).expr, stored)};`);
  L.line(
    `if (${again} !== ${local}) throw new ${m.rt('EncodeError')}(\`${f.name} \${${local}} cannot be stored: ` +
      `it would read back as \${${again}}\`, ${q(f.path)});`,
  );
}

/** An integer as a field of type `t` stores it: cut to its width, as the Writer's typed stores do. */
function asStored(t: IntType, x: string): string {
  if (t.big || t.width > 4) return x;
  const shift = 32 - t.width * 8;
  if (t.signed) return t.width === 4 ? `(${x} | 0)` : `((${x} << ${shift}) >> ${shift})`;
  return t.width === 4 ? `(${x} >>> 0)` : `(${x} & 0x${(2 ** (t.width * 8) - 1).toString(16)})`;
}

/** Whether a size field can be reserved and patched in place (else its payload is written aside first). */
function patchable(f: IrField): boolean {
  return f.type.kind === 'int' && f.type.width <= 4 && !f.type.be;
}

function derivedBy(s: IrStruct, target: string): IrField | undefined {
  return s.fields.find((f) => f.derive && 'target' in f.derive && f.derive.target === target);
}

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
    L.line(
      `${m.rt('writeKeyed')}(${w}, keyed$, v.keyOrder, [${list.ids.join(', ')}], ${s.keys!.serial}, ${list.end}, ` +
        `'${s.name}');`,
    );
  }
}

function encodeField(
  L: Lines,
  m: Module,
  s: IrStruct,
  f: IrField,
  plans: Map<string, SizePlan>,
  optional: boolean,
  w = 'w',
): void {
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
  const value =
    optional && !identifiers(f.cond!).includes('remaining')
      ? `${m.rt('required')}(v.${f.name}, ${q(f.path)})`
      : `v.${f.name}`;
  if (plan) L.line(`const ${f.name}$start = ${w}.pos;`);
  if (f.compression) {
    const plain = `${f.name}$plain`;
    const cond = f.compression.cond ? compileExpr(f.compression.cond, encodeName(m, s)) : 'true';
    L.open(`if (${cond}) {`);
    L.line(`const ${plain} = new ${m.rt('Writer')}();`);
    writeField(L, m, s, f, value, plain);
    L.line(
      `${w}.bytes(${m.rt('deflate')}('${f.compression.codec}', ${plain}.view(), v.${f.name}Compressed, ${q(f.path)}));`,
    );
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
    return void L.line(
      `${spanWrite(f, (f.type as { span: Span }).span, `${f.name}$bytes`, writer, encodeName(m, s), true)};`,
    );
  }
  if (f.type.kind === 'switch' && !f.repeat) return encodeSwitch(L, m, s, f, value, writer);
  if (!f.repeat) return void L.line(writeValue(m, s, f, value, writer, !!lengthField));
  const elem = `${f.name}$e`;
  if (f.repeat.kind === 'count' && !lengthField && !identifiers(f.repeat.count).includes('remaining')) {
    L.line(
      `if (${value}.length !== (${compileExpr(f.repeat.count, encodeName(m, s))})) ` +
        `throw new ${m.rt('EncodeError')}('wrong number of elements', ${q(f.path)});`,
    );
  }
  const one: IrField = { ...f, repeat: undefined };
  L.open(`for (let i = 0; i < ${value}.length; i++) {`);
  if (isEnum(f.type) && usedInExpressions(s, f.name)) {
    // The codes were computed up front, for the expressions that read them.
    L.line(
      writeValue(
        m,
        s,
        { ...one, type: { ...(f.type as IntType), enum: undefined } },
        `${f.name}$code[i]!`,
        writer,
        false,
      ),
    );
  } else {
    L.line(`const ${elem} = ${value}[i]!;`);
    if (f.type.kind === 'switch') encodeSwitch(L, m, s, one, elem, writer);
    else L.line(writeValue(m, s, one, elem, writer, false));
  }
  L.close();
}

/** A statement that writes value `value` of field `f`'s type. */
function writeValue(
  m: Module,
  s: IrStruct,
  f: IrField,
  value: string,
  writer: string,
  sizedByDerived: boolean,
): string {
  const t = f.type;
  const name = encodeName(m, s);
  switch (t.kind) {
    case 'int':
      if (t.enum && usedInExpressions(s, f.name))
        return `${writer}.${intMethod(t)}(${f.name}$code${f.cond ? '!' : ''}, ${q(f.path)});`;
      return `${writer}.${intMethod(t)}(${t.enum ? enumCode(m, f, value) : value}, ${q(f.path)});`;
    case 'packed':
      return `${writer}.${packedMethod(t, true)}(${t.enum ? enumCode(m, f, value) : value}, ${q(f.path)});`;
    case 'float':
      return `${writer}.f${t.width * 8}(${value});`;
    case 'uint':
      return `${writer}.uint(${value}, ${compileExpr(t.size, name)}, ${q(f.path)});`;
    case 'computed':
      return '';
    case 'rows':
      return encodeRows(m, t, writer, value, name, f.path);
    case 'text':
      if (t.span.kind === 'padded' || t.span.kind === 'nul')
        return `${spanWrite(f, t.span, value, writer, name, sizedByDerived)};`;
      return `${spanWrite(f, t.span, `${m.rt('textToBytes')}(${value})`, writer, name, sizedByDerived)};`;
    case 'bytes':
      if (t.each && t.span.kind === 'size')
        return `${writer}.varintBytes(${value}, ${compileExpr(t.span.size, name)}, ${q(f.path)});`;
      return `${spanWrite(f, t.span, value, writer, name, sizedByDerived)};`;
    case 'bitmap': {
      // A bitmap that fills the rest of its structure is as long as the value says.
      const bits = identifiers(t.bits).includes('remaining') ? `${value}.length` : compileExpr(t.bits, name);
      return `${writer}.bitmap(${value}, ${bits}, ${q(f.path)}${bitmapOptions(t, `v.${f.name}Spare`)});`;
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

function spanWrite(
  f: IrField,
  span: Span,
  bytes: string,
  writer: string,
  name: (id: string) => string,
  derived: boolean,
): string {
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

function encodeSwitch(L: Lines, m: Module, s: IrStruct, f: IrField, value: string, writer: string): void {
  const t = f.type as Extract<IrType, { kind: 'switch' }>;
  const on = compileExpr(t.on, encodeName(m, s));
  L.open(`switch (${on}) {`);
  for (const c of t.cases) {
    L.line(
      `case ${c.match}: ${m.structFn('encode', c.struct)}(${writer}, ${value} as ${m.structType(c.struct, true)}, ` +
        `ctx); break;`,
    );
  }
  if (t.default)
    L.line(
      `default: ${m.structFn('encode', t.default)}(${writer}, ${value} as ${m.structType(t.default, true)}, ctx);`,
    );
  else L.line(`default: throw new ${m.rt('EncodeError')}(\`no case for \${${on}}\`, ${q(f.path)});`);
  L.close();
}

/** An entry list's encoder: the entries in the order given, an unknown code's bytes as they were kept. */
export function emitEntryListEncoder(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  const L = new Lines();
  L.open('for (const e of entries) {');
  L.open('switch (e.code) {');
  const write = (code: string) => `w.${intMethod(t.code)}(${code});`;
  for (const e of t.entries) {
    const call = (writer: string) =>
      `${m.structFn('encode', e.struct)}(${writer}, e as ${m.structType(e.struct, true)}, ctx);`;
    if (t.kind === 'tlv') {
      // The length precedes a value whose size is known only once written: write it aside first.
      L.line(
        `case '${e.name}': { ${write(String(e.code))} const sub = new ${m.rt('Writer')}(); ` +
          `${call('sub')} w.prefixed(sub.view(), ${lengthWidth(t.length)}, '${e.struct}'); break; }`,
      );
    } else {
      L.line(`case '${e.name}': ${write(String(e.code))} ${call('w')} break;`);
    }
  }
  const raw = `e as { code: number; raw: Uint8Array }`;
  if (t.kind === 'tlv') {
    L.line(
      `default: ${write(`(${raw}).code`)} w.prefixed((${raw}).raw, ${lengthWidth(t.length)}, ` +
        `'${owner.name}.${t.entryType}');`,
    );
  } else {
    L.line(`default: ${write(`(${raw}).code`)} w.bytes((${raw}).raw);`);
  }
  L.close();
  L.close();
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
    statements: L.text(),
  });
}

export function emitEventBodyEncoder(sf: SourceFile, m: Module, ir: Ir): void {
  const L = new Lines();
  L.open('switch (body.type) {');
  for (const e of eventsWithBody(ir)) {
    const args = ['w', 'body', 'ctx', ...eventArgs(m, e)].join(', ');
    L.line(`case '${e.name}': return ${m.structFn('encode', e.body!)}(${args});`);
  }
  L.close();
  sf.addFunction({
    isExported: true,
    name: 'encodeEventBody',
    docs: ['Encodes an event body by its type name.'],
    parameters: [
      { name: 'w', type: m.rtType('Writer') },
      { name: 'body', type: 'EventBodyInput' },
      { name: 'ctx', type: m.context() },
    ],
    returnType: 'void',
    statements: L.text(),
  });
}
