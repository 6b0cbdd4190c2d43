/**
 * The types and data of a module: constants, lookup tables, enums and flags, each struct's interfaces
 * (decoded value and encoder input), entry unions, offsets, and the event catalogue's names and types.
 */
import type { SourceFile } from 'ts-morph';
import { fixedSize } from '../ir/sizes.js';
import { COVER_SERVERS, type Ir, type IrConstant, type IrEntryList, type IrEnum, type IrStruct } from '../ir/types.js';
import { eventsWithBody } from './events.js';
import { companions, fieldType, hasDistinctInput, inputFields, keptFields, mayBeAbsent } from './fields.js';
import type { Module } from './module.js';
import { addConst, docs, objectLiteral } from './print.js';

/** How many values of a table a line holds, by its type: a value of 0x and six hex digits takes ten columns. */
const ROW_VALUES = { Uint8Array: 16, Uint16Array: 12, Uint32Array: 10 } as const;
const INLINE_VALUES = 8;

/**
 * An array constant as the narrowest typed array that holds its largest value, in hex, laid out as a table
 * of rows of equal length (the formatter would put each value on a line of its own).
 */
function typedArray(values: number[]): string {
  const max = values.reduce((m, v) => Math.max(m, v), 0);
  const type = max > 0xffff ? 'Uint32Array' : max > 0xff ? 'Uint16Array' : 'Uint8Array';
  const digits = type === 'Uint8Array' ? 2 : 4;
  const hex = values.map((b) => `0x${b.toString(16).toUpperCase().padStart(digits, '0')}`);
  const perRow = ROW_VALUES[type];
  // A few values stay on the constant's own line, which a long name then still leaves under the print width.
  if (hex.length <= INLINE_VALUES) return `${type}.of(${hex.join(', ')})`;
  const rows = Array.from({ length: Math.ceil(hex.length / perRow) }, (_, i) =>
    hex.slice(i * perRow, (i + 1) * perRow),
  );
  return `${type}.of(\n${rows.map((r) => `  ${r.join(', ')},`).join('\n')}\n)`;
}

/** A table's layout is its own: the formatter is told to leave it. */
const KEEP_LAYOUT = '// prettier-ignore';

/** The most values an array constant holds as a value; a larger one is a table built on its first use. */
const EAGER_VALUES = 1024;

/**
 * Whether a constant is emitted as a function that builds it on its first call (and gives that same array
 * after): the multi-byte charsets' code tables, whose literals would otherwise run at every import.
 */
export function builtOnFirstUse(c: IrConstant): boolean {
  return Array.isArray(c.value) && c.value.length > EAGER_VALUES;
}

/** A constant's name as an expression of its value: a table built on first use is called. */
export function constantValue(c: IrConstant, name: string): string {
  return builtOnFirstUse(c) ? `${name}()` : name;
}

export function emitConstants(sf: SourceFile, m: Module, constants: Ir['constants']): void {
  for (const c of constants) {
    if (!Array.isArray(c.value)) addConst(sf, c.name, JSON.stringify(c.value), docs(c.doc));
    else if (builtOnFirstUse(c)) {
      addConst(
        sf,
        c.name,
        `${m.rt('builtOnFirstUse')}(() => ${typedArray(c.value)})`,
        docs(c.doc),
        undefined,
        KEEP_LAYOUT,
      );
    } else addConst(sf, c.name, typedArray(c.value), docs(c.doc), undefined, KEEP_LAYOUT);
  }
}

export function emitLookup(sf: SourceFile, m: Module, l: Ir['lookups'][number]): void {
  const literal = (v: unknown) =>
    JSON.stringify(v)
      .replace(/"([A-Za-z_][A-Za-z0-9_]*)":/g, '$1: ')
      .replace(/,/g, ', ');
  if (l.key) {
    // Keyed by an enum: a constant object by code, each entry marked with its name.
    const body = l.entries.map(([code, , name, v]) => `/* ${name} */ ${code}: ${literal(v)},`);
    addConst(
      sf,
      l.name,
      `${objectLiteral(body)} as const`,
      docs(l.doc ? `${l.doc.trim()}\n\nKeyed by ${l.key} code.` : `Keyed by ${l.key} code.`),
    );
    sf.addTypeAlias({ isExported: true, name: `${l.name}Entry`, type: `(typeof ${l.name})[keyof typeof ${l.name}]` });
    return;
  }
  // Keyed by numbers, some in ranges: a map built once, when the module loads.
  const rows = l.entries.map(([lo, hi, , v]) => `[${lo}, ${hi}, ${literal(v)}],`).join('\n');
  addConst(sf, l.name, `${m.rt('rangeMap')}([\n${rows}\n])`, docs(l.doc));
}

/** Enums, with their names by value; flags (`named` false), as hex masks. */
export function emitEnums(sf: SourceFile, enums: IrEnum[], named: boolean): void {
  for (const e of enums) {
    addConst(
      sf,
      e.name,
      `${objectLiteral(e.values.map(([n, v]) => `${n}: ${named ? v : `0x${v.toString(16)}`},`))} as const`,
      e.doc ? [e.doc] : [],
    );
    if (!named) continue;
    sf.addTypeAlias({ isExported: true, name: `${e.name}Name`, type: `keyof typeof ${e.name}` });
    addConst(
      sf,
      `${e.name}Names`,
      objectLiteral(e.values.map(([n, v]) => `${v}: '${n}',`)),
      [`Names of ${e.name} by value.`],
      `Readonly<Record<number, ${e.name}Name>>`,
    );
  }
}

/** The decoded value's interface, and what the encoder takes: the same type unless something is derived. */
export function emitInterfaces(sf: SourceFile, m: Module, s: IrStruct): void {
  const codeProp = s.entryCode ? [{ name: 'code', type: `'${s.entryCode}'` }] : [];
  if (s.keys?.list) m.rtType('KeyedEntry');
  sf.addInterface({
    isExported: true,
    name: s.name,
    docs: docs(s.doc),
    properties: [
      ...codeProp,
      ...keptFields(s).flatMap((f) => [
        { name: f.name, type: fieldType(m, f, false), hasQuestionToken: mayBeAbsent(f), docs: docs(f.doc) },
        ...companions(f, s),
      ]),
    ],
  });
  if (!hasDistinctInput(m.ir, s)) {
    sf.addTypeAlias({
      isExported: true,
      name: `${s.name}Input`,
      docs: [`What \`encode${s.name}\` takes: the decoded value.`],
      type: s.name,
    });
    return;
  }
  sf.addInterface({
    isExported: true,
    name: `${s.name}Input`,
    docs: [`What \`encode${s.name}\` takes: derived fields may be left out, they are computed.`],
    properties: [
      ...codeProp,
      ...inputFields(s).flatMap((f) => [
        { name: f.name, type: fieldType(m, f, true), hasQuestionToken: mayBeAbsent(f) || !!f.derive },
        ...companions(f, s),
      ]),
    ],
  });
}

export function emitEntryUnion(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
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

/** What each entry of a list covers, by name: every column, or the column type codes each server counts. */
export function emitCovers(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  const server = (codes: number[]) => `new Set([${[...codes].sort((a, b) => a - b).join(', ')}])`;
  const props = t.entries.flatMap(({ name, covers }) => {
    if (!covers) return [];
    if (covers === 'all') return [`${name}: 'all',`];
    return [`${name}: { ${COVER_SERVERS.map((s) => `${s}: ${server(covers[s])}`).join(', ')} },`];
  });
  const names = t.entries.filter((e) => e.covers).map((e) => `'${e.name}'`);
  addConst(
    sf,
    t.covers!,
    objectLiteral(props),
    [
      `The columns each entry of ${owner.name}'s list covers (its \`covers:\`): its values are theirs, ` +
        `in column order.`,
    ],
    `Readonly<Record<${names.join(' | ')}, ${m.rtType('ColumnCover')}>>`,
  );
}

export function emitOffsets(sf: SourceFile, s: IrStruct): void {
  const props: string[] = [];
  let at = 0;
  for (const f of s.fields) {
    const size =
      fixedSize(f.type) ??
      (f.type.kind === 'text' && f.type.span.kind === 'padded' && f.type.span.size.kind === 'num'
        ? f.type.span.size.value
        : undefined);
    // A conditional field keeps its offset: it holds wherever the field is present.
    if (size === undefined || f.repeat) break;
    props.push(`${f.name}: ${at},`);
    at += size;
  }
  props.push(`end: ${at},`);
  addConst(sf, `${s.name}Offsets`, `${objectLiteral(props)} as const`, [
    `Byte offsets of ${s.name}'s leading fixed-size fields, and where they end.`,
  ]);
}

/** The catalogue's codes and names, and the union of the event bodies the schemas describe. */
export function emitEventTypes(sf: SourceFile, m: Module, ir: Ir): void {
  addConst(sf, 'EventTypes', `${objectLiteral(ir.events.map((e) => `${e.name}: ${e.code},`))} as const`, [
    "Every event type code a server may write, by its server's constant name.",
  ]);
  addConst(
    sf,
    'EventTypeNames',
    objectLiteral(ir.events.map((e) => `${e.code}: '${e.name}',`)),
    ['Constant names by event type code.'],
    'Readonly<Record<number, string>>',
  );
  addConst(
    sf,
    'EventPostHeaderLengths',
    objectLiteral(
      ir.events.flatMap((e) =>
        e.postHeaderLength === undefined ? [] : [`/* ${e.name} */ ${e.code}: ${e.postHeaderLength},`],
      ),
    ),
    [
      'Post-header lengths by event type code, as a v4 FORMAT_DESCRIPTION lists them, ' +
        "where the body's schema fixes one (its `postHeader`): the bytes of its fields through that one, " +
        "under the event's arguments. A code not here has a post-header that its fields do not fix.",
    ],
    'Readonly<Record<number, number>>',
  );
  for (const input of [false, true]) {
    sf.addTypeAlias({
      isExported: true,
      name: input ? 'EventBodyInput' : 'EventBody',
      docs: [input ? 'What `encodeEventBody` takes.' : 'A decoded event body, tagged with its type name.'],
      type: eventsWithBody(ir)
        .map((e) => `({ type: '${e.name}' } & ${m.structType(e.body!, input)})`)
        .join('\n  | '),
    });
  }
  addConst(
    sf,
    'EventBodyStructs',
    objectLiteral(eventsWithBody(ir).map((e) => `${e.name}: '${e.body}',`)),
    [
      "The struct of each described event type's body: the first part of the schema paths its encoder's errors name, " +
        "whose fields are the event's own keys in JSON.",
    ],
    'Readonly<Record<string, string>>',
  );
  const undescribed = ir.events.filter((e) => !e.body).map((e) => `'${e.name}'`);
  sf.addTypeAlias({
    isExported: true,
    name: 'UndescribedEventType',
    docs: [
      "The catalogue's names of the event types whose body no schema describes: their events are read as raw bytes.",
    ],
    type: undescribed.length ? undescribed.join(' | ') : 'never',
  });
}

/** The codes of the event types with a body; each type's servers, effect and place in a transaction. */
export function emitEventSets(sf: SourceFile, ir: Ir): void {
  addConst(
    sf,
    'EventCodesWithBody',
    `new Set<number>([${eventsWithBody(ir)
      .map((e) => e.code)
      .join(', ')}])`,
    ['Codes whose body a schema describes.'],
  );
  emitByName(
    sf,
    ir,
    'server',
    'EventServer',
    'EventServers',
    "Which servers write events of each type (the catalogue's `server:`): both, mysql, mariadb, or vendor " +
      '(only a fork).',
  );
  emitByName(
    sf,
    ir,
    'effect',
    'EventEffect',
    'EventEffects',
    "What events of each type change for the events after them (the catalogue's `effect:`); absent: nothing.",
  );
  emitByName(
    sf,
    ir,
    'transaction',
    'EventTransaction',
    'EventTransactions',
    "Where events of each type stand to a transaction (the catalogue's `transaction:`); absent: " +
      'they may be part of one.',
  );
}

/** A catalogue key by type name, and the union of the values the catalogue gives it. */
function emitByName(
  sf: SourceFile,
  ir: Ir,
  key: 'server' | 'effect' | 'transaction',
  type: string,
  name: string,
  doc: string,
): void {
  const given = ir.events.filter((e) => e[key] !== undefined);
  const values = [...new Set(given.map((e) => `'${e[key]}'`))].sort();
  sf.addTypeAlias({ isExported: true, name: type, type: values.join(' | ') });
  addConst(
    sf,
    name,
    objectLiteral(given.map((e) => `${e.name}: '${e[key]}',`)),
    [doc],
    `Readonly<Partial<Record<string, ${type}>>>`,
  );
}
