/**
 * The dump's JSON writers. Each struct's writer writes its JSON form straight into the runtime's
 * JsonBytes: the member names are bytes encoded once, in the order the decoder gives the fields, and the
 * numbers are written as digits. Rows go through JsonBytes.rows, which encodes the images' names once per
 * event. What has no writer of its own here (switches, enums, text) goes through JsonBytes.value, so the
 * runtime's JsonBytes stays the one definition of how each kind of value looks.
 */
import type { SourceFile } from 'ts-morph';
import type { Ir, IrEntryList, IrField, IrStruct } from '../ir/types.js';
import { eventsWithBody } from './events.js';
import { decodedProps } from './fields.js';
import type { Module } from './module.js';
import { addConst, Lines } from './print.js';

/**
 * Writers take the buffer, the value, and where the object's members start, since a comma goes before
 * every member but the first.
 */
const PARAMS = (m: Module, type: string, name = 'v') => [
  { name: 'w', type: m.rtType('JsonBytes') },
  { name, type },
  { name: 'start', type: 'number' },
];

const keysName = (s: IrStruct) => `${s.name}$jsonKeys`;

/** Emits `write<Struct>Json`, which writes the struct's members without braces, and the key bytes they use. */
export function emitJsonWriter(sf: SourceFile, m: Module, s: IrStruct): void {
  const props = decodedProps(s);
  const keys = `[${props.map((p) => `${m.rt('jsonKey')}('${p.name}')`).join(', ')}]`;
  addConst(sf, keysName(s), keys, [`${s.name}'s member names as JSON bytes, \`"name":\`.`]);
  const L = new Lines();
  props.forEach((p, i) => {
    const at = `v.${p.name}`;
    if (p.name === 'code' && !p.field) {
      L.line(`w.member(${keysName(s)}[${i}], start); w.string(${at});`);
      return;
    }
    L.open(`if (${at} !== undefined) {`);
    L.line(`w.member(${keysName(s)}[${i}], start);`);
    L.line(p.field ? writeField(m, p.field, at) : `w.value(${at});`);
    L.close();
  });
  sf.addFunction({
    isExported: true,
    name: `write${s.name}Json`,
    docs: [`Writes ${s.name}'s members in its JSON form.`],
    parameters: PARAMS(m, s.name),
    returnType: 'void',
    statements: L.text() || 'void w, v, start;',
  });
}

/** Gives a statement that writes field `f`'s value `at`. */
function writeField(m: Module, f: IrField, at: string): string {
  const t = f.type;
  if (f.repeat) {
    if (t.kind !== 'struct') return `w.value(${at});`;
    const each = struct(m, t.name, `${at}[i]`);
    return `w.byte(0x5b); for (let i = 0; i < ${at}.length; i++) { if (i) w.byte(0x2c); ${each} } w.byte(0x5d);`;
  }
  switch (t.kind) {
    case 'int':
    case 'packed':
      if (t.enum) return `w.value(${at});`;
      return t.big ? `w.bigint(${at});` : `w.number(${at});`;
    case 'uint':
    case 'float':
      return `w.number(${at});`;
    case 'bytes':
      return `w.hex(${at});`;
    case 'struct':
      return struct(m, t.name, at);
    case 'rows':
      return `w.rows(${at});`;
    case 'tlv':
    case 'tagged':
      return `${m.use(`write${t.entryType}ListJson`, m.struct(t.entries[0]!.struct).module, false)}(w, ${at});`;
    default:
      return `w.value(${at});`;
  }
}

function struct(m: Module, name: string, at: string): string {
  return `w.byte(0x7b); ${m.use(`write${name}Json`, m.struct(name).module, false)}(w, ${at}, w.pos); w.byte(0x7d);`;
}

/**
 * Emits an entry list's writer, which writes a known entry by its struct's writer and any other entry
 * ({code, raw}) as a value.
 */
export function emitEntryListJsonWriter(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  const L = new Lines();
  L.line('w.byte(0x5b);');
  L.open('for (let i = 0; i < list.length; i++) {');
  L.line('if (i) w.byte(0x2c);');
  L.line('const e = list[i]!;');
  L.open('switch (e.code) {');
  for (const e of t.entries) {
    L.line(`case '${e.name}': ${struct(m, e.struct, `e as ${m.structType(e.struct, false)}`)} break;`);
  }
  L.line('default: w.value(e);');
  L.close();
  L.close();
  L.line('w.byte(0x5d);');
  sf.addFunction({
    isExported: true,
    name: `write${t.entryType}ListJson`,
    docs: [`Writes ${owner.name}'s entries in their JSON form.`],
    parameters: [
      { name: 'w', type: m.rtType('JsonBytes') },
      { name: 'list', type: `readonly ${t.entryType}[]` },
    ],
    returnType: 'void',
    statements: L.text(),
  });
}

/**
 * `writeEventBodyJson` writes a decoded event's body members by its type, and `eventBodyMembers` says
 * beforehand how many members that body has (-1 for a type without a writer), so that the dump can tell
 * whether the writers cover all of an event before it writes any of it.
 */
export function emitEventBodyJsonWriter(sf: SourceFile, m: Module, ir: Ir): void {
  const write = new Lines();
  const count = new Lines();
  write.open('switch (e.type) {');
  count.open('switch (type) {');
  for (const e of eventsWithBody(ir)) {
    const body = m.struct(e.body!);
    const writer = m.use(`write${body.name}Json`, body.module, false);
    write.line(`case '${e.name}': return ${writer}(w, e as ${m.structType(body.name, false)}, start);`);
    count.line(`case '${e.name}': return ${decodedProps(body).length};`);
  }
  write.line("default: throw new Error('an event type without a JSON writer');");
  count.line('default: return -1;');
  write.close();
  count.close();
  sf.addFunction({
    isExported: true,
    name: 'eventBodyMembers',
    docs: [
      'Says how many members a decoded event of this type has in its body (those undefined included), ' +
        'or -1 for a type without a JSON writer.',
    ],
    parameters: [{ name: 'type', type: 'string' }],
    returnType: 'number',
    statements: count.text(),
  });
  sf.addFunction({
    isExported: true,
    name: 'writeEventBodyJson',
    docs: [
      "Writes a decoded event's body members in their JSON form after what `w` holds of the event. " +
        "The event's type has a writer: eventBodyMembers is not -1 for it.",
    ],
    parameters: PARAMS(m, 'EventBody', 'e'),
    returnType: 'void',
    statements: write.text(),
  });
}
