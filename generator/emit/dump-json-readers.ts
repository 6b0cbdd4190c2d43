/**
 * JSON converters: the dump's JSON form back to encoder input, for each struct, entry list and event
 * body, each problem named by its JSON path.
 */
import type { SourceFile } from 'ts-morph';
import { compileExpr, identifiers } from '../expr.js';
import type { Ir, IrEntryList, IrField, IrStruct, IrType } from '../ir/types.js';
import { eventsWithBody } from './events.js';
import { encodeName } from './expressions.js';
import { companions, enumCode, inputFields, isEnum, isGiven, mayBeAbsent } from './fields.js';
import type { Module } from './module.js';
import { Lines } from './print.js';
import { rowsFromJson } from './rows.js';

/** What every converter takes: the JSON value, and its path for errors. */
/** The converter of each companion type read back from JSON but bytes' (numbers by default). */
const COMPANION_JSON: Record<string, 'jBytes' | 'jNumbers'> = {
  Uint8Array: 'jBytes',
  'Record<string, number>': 'jNumbers',
};

const JSON_PARAMS = [
  { name: 'j', type: 'unknown' },
  { name: 'path', type: 'string' },
];

export function emitFromJson(sf: SourceFile, m: Module, s: IrStruct): void {
  const L = new Lines();
  const fields = inputFields(s);
  L.line(`${fields.length ? 'const o = ' : ''}${m.rt('jObject')}(j, path);`);
  L.line(`const v = {${s.entryCode ? ` code: '${s.entryCode}'` : ''} } as ${s.name}Input;`);
  // The codes a switch reads (a given computed field's are for the encoder alone); the JSON form is
  // read whatever the fields' conditions say, so nothing else reads them.
  const switches = s.fields.flatMap((g) => (g.type.kind === 'switch' ? [g.type.on] : []));
  const coded = (f: IrField) =>
    isEnum(f.type) && switches.some((on) => identifiers(on).includes(f.name)) && !isGiven(f);
  for (const f of fields) {
    if (coded(f)) L.line(`let ${f.name}$code: ${f.repeat ? 'number[] = []' : 'number | undefined'};`);
  }
  for (const f of fields) {
    const j = `o.${f.name}`;
    const p = `\`\${path}.${f.name}\``;
    const optional = mayBeAbsent(f) || f.derive !== undefined;
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
    if (coded(f)) {
      const code = (x: string) => enumCode(m, f, x);
      L.line(`${f.name}$code = ${f.repeat ? `v.${f.name}.map((x) => ${code('x')})` : code(`v.${f.name}`)};`);
    }
    if (optional) L.close();
    // A companion is there with its field or without it (images kept as bytes are there instead of their rows).
    for (const c of companions(f, s)) {
      // The order is the list's; a string says why something is kept as it is, and is not read back.
      if (c.name !== 'keyOrder' && c.type !== 'string')
        L.line(
          `if (o.${c.name} !== undefined) v.${c.name} = ${m.rt(COMPANION_JSON[c.type] ?? 'jNum')}(o.${c.name}, ` +
            `\`\${path}.${c.name}\`);`,
        );
    }
  }
  // The list's order belongs to no one field: it is read whichever fields are given.
  if (s.keys?.list)
    L.line(`if (o.keyOrder !== undefined) v.keyOrder = ${m.rt('jKeyOrder')}(o.keyOrder, \`\${path}.keyOrder\`);`);
  L.line('return v;');
  sf.addFunction({
    isExported: true,
    name: `${s.name}FromJson`,
    docs: [`${s.name}'s encoder input from its JSON form in the dump.`],
    parameters: JSON_PARAMS,
    returnType: `${s.name}Input`,
    statements: L.text(),
  });
}

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
      return `${m.structFromJson(t.name)}(${j}, ${p})`;
    case 'tlv':
    case 'tagged':
      return `${m.rt('jArray')}(${j}, ${p}).map((e, i) => ${t.entryType}FromJson(e, \`\${${p}}[\${i}]\`))`;
    case 'rows':
      return rowsFromJson(m, t, j, p);
    case 'computed':
      // Only a computed field the encoder is given has a JSON conversion: a number, maybe an enum's.
      if (t.input && t.enum) return `${m.rt('jEnum')}(${j}, ${p}) as ${m.enumRef(t.enum, 'Name', true)} | number`;
      if (t.input) return `${m.rt('jNum')}(${j}, ${p})`;
      throw new Error('a computed field has no JSON conversion');
    case 'switch':
      throw new Error(`${t.kind} has no JSON conversion of its own`);
  }
}

function fromJsonSwitch(
  L: Lines,
  m: Module,
  s: IrStruct,
  f: IrField,
  j: string,
  p: string,
  take: (x: string) => string,
): void {
  const t = f.type as Extract<IrType, { kind: 'switch' }>;
  const on = compileExpr(t.on, encodeName(m, s));
  const conv = (struct: string) => `${m.structFromJson(struct)}(${j}, ${p})`;
  L.open(`switch (${on}) {`);
  for (const c of t.cases)
    L.line(`case ${c.match}: ${take(conv(c.struct))}${take('').startsWith('return') ? '' : ' break;'}`);
  if (t.default) L.line(`default: ${take(conv(t.default))}`);
  else L.line(`default: throw new ${m.rt('EncodeError')}(\`no case for \${${on}}\`, ${p});`);
  L.close();
}

/** An entry from its JSON form: a known code by name, any other as {code, raw}. */
export function emitEntryFromJson(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  const L = new Lines();
  L.line(`const o = ${m.rt('jObject')}(j, path);`);
  L.open('switch (o.code) {');
  for (const e of t.entries) L.line(`case '${e.name}': return ${m.structFromJson(e.struct)}(o, path);`);
  L.line(
    `default: return { code: ${m.rt('jNum')}(o.code, \`\${path}.code\`), raw: ${m.rt('jBytes')}(o.raw, ` +
      `\`\${path}.raw\`) };`,
  );
  L.close();
  sf.addFunction({
    isExported: true,
    name: `${t.entryType}FromJson`,
    docs: [`An entry of ${owner.name} from its JSON form: a known code by name, any other as {code, raw}.`],
    parameters: JSON_PARAMS,
    returnType: `${t.entryType}Input`,
    statements: L.text(),
  });
}

export function emitEventBodyFromJson(sf: SourceFile, m: Module, ir: Ir): void {
  const L = new Lines();
  L.open('switch (type) {');
  for (const e of eventsWithBody(ir))
    L.line(
      `case '${e.name}': return Object.assign({ type: '${e.name}' as const }, ${m.structFromJson(e.body!)}(j, path));`,
    );
  L.line('default: return undefined;');
  L.close();
  sf.addFunction({
    isExported: true,
    name: 'eventBodyFromJson',
    docs: ['The body of an event of a type the schemas describe, from its JSON form; undefined for any other type.'],
    parameters: [{ name: 'type', type: 'string' }, ...JSON_PARAMS],
    returnType: 'EventBodyInput | undefined',
    statements: L.text(),
  });
}
