/**
 * What a struct's fields and parameters become in generated code, as every emitter must agree: their
 * TypeScript types, which are kept in the value and which asked for by the encoder, and the companions
 * kept beside them so that encoding gives back the stored bytes.
 */
import { identifiers } from '../expr.js';
import type { Ir, IrField, IrStruct, IrType } from '../ir/types.js';
import type { Module } from './module.js';
import { q } from './print.js';
import { rowsType } from './rows.js';

/** The TypeScript type of one value of `t`, as decoded or (`input`) as the encoder takes it. */
export function valueType(m: Module, t: IrType, input: boolean): string {
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
    case 'switch':
      return [...new Set(nested(t))].map((n) => m.structType(n, input)).join(' | ');
    case 'tlv':
    case 'tagged':
      return `${input ? `${t.entryType}Input` : t.entryType}[]`;
  }
}

/** A field's type: its value's, or an array of them. */
export function fieldType(m: Module, f: IrField, input: boolean): string {
  const base = valueType(m, f.type, input);
  if (!f.repeat) return base;
  return base.includes(' ') ? `(${base})[]` : `${base}[]`;
}

/** What a decoded value holds: every field but the constants. */
export function keptFields(s: IrStruct): IrField[] {
  return s.fields.filter((f) => f.constValue === undefined);
}

/**
 * The members of a decoded value, in the order the decoder writes them: an entry's code, then each kept field and its
 * companions.
 */
export function decodedProps(s: IrStruct): { name: string; field?: IrField }[] {
  const props = keptFields(s).flatMap((f) => [
    { name: f.name, field: f },
    ...companions(f, s).map((c) => ({ name: c.name })),
  ]);
  return s.entryCode ? [{ name: 'code' }, ...props] : props;
}

const KEY_ORDER_DOC =
  'The keyed fields as stored, when not in declared order or not only the declared fields once each (ids; {id, ' +
  'bytes} for fields kept as stored).';

/**
 * What a field keeps beside its value so that encoding gives back the stored bytes: a compressed field's
 * stored form, a bitmap's set spare bits, rows' images kept as bytes (and why); beside a sized list's first
 * field, the list's stored order.
 */
export function companions(
  f: IrField,
  s: IrStruct,
): { name: string; type: string; hasQuestionToken: true; docs: string[] }[] {
  const order =
    s.keys?.list?.first === f.name
      ? [{ name: 'keyOrder', type: 'KeyedEntry[]', hasQuestionToken: true as const, docs: [KEY_ORDER_DOC] }]
      : [];
  if (f.type.kind === 'rows' && f.type.undecoded)
    return [
      ...order,
      ...undecodedCompanions(f.type.undecoded),
      ...inferredCompanion(f.type.inferred),
      ...compressed(f),
    ];
  if (f.compression) return [...order, ...compressed(f)];
  if (f.type.kind === 'bitmap' && f.type.keepSpare)
    return [
      ...order,
      {
        name: `${f.name}Spare`,
        type: 'number',
        hasQuestionToken: true,
        docs: [`The set unused bits of ${f.name}'s last byte, when there are any.`],
      },
    ];
  return order;
}

function compressed(f: IrField): { name: string; type: string; hasQuestionToken: true; docs: string[] }[] {
  if (!f.compression) return [];
  return [
    {
      name: `${f.name}Compressed`,
      type: 'Uint8Array',
      hasQuestionToken: true,
      docs: [`${f.name} as stored, compressed (${f.compression.codec}).`],
    },
  ];
}

/** Row images that cannot be split: the reason (informational, never read back) and the images' bytes. */
function undecodedCompanions(name: string): { name: string; type: string; hasQuestionToken: true; docs: string[] }[] {
  return [
    {
      name: `${name}Undecoded`,
      type: 'string',
      hasQuestionToken: true,
      docs: [`Why ${name} is not split into rows (informational).`],
    },
    {
      name,
      type: 'Uint8Array',
      hasQuestionToken: true,
      docs: ['The row images as stored, when they cannot be split into rows (the rows are then absent).'],
    },
  ];
}

/** The fraction digits inferred for columns the binlog does not size, which the encoder reads back. */
function inferredCompanion(
  name: string | undefined,
): { name: string; type: string; hasQuestionToken: true; docs: string[] }[] {
  if (!name) return [];
  return [
    {
      name,
      type: 'Record<string, number>',
      hasQuestionToken: true,
      docs: [
        'The fraction digits inferred, by column, for the columns whose size the binlog does not say ' +
          '(the rows are read and written with them).',
      ],
    },
  ];
}

/** Whether a field may be absent from a value: it has a condition, or it is rows that may be kept as bytes. */
export function mayBeAbsent(f: IrField): boolean {
  return !!f.cond || (f.type.kind === 'rows' && f.type.undecoded !== undefined);
}

/**
 * What an encoder takes: computed fields are not written, so they are not asked for, but for those stored fields derive
 * from.
 */
export function inputFields(s: IrStruct): IrField[] {
  return keptFields(s).filter((f) => f.type.kind !== 'computed' || isGiven(f));
}

/** A computed field the encoder is given: a derived value names it (the decoder computes it, as any). */
export function isGiven(f: IrField): boolean {
  return f.type.kind === 'computed' && f.type.input === true;
}

/** Whether a derived value names a field after its own, which the decoder has yet to read when it reads it. */
export function derivedFromLater(s: IrStruct, f: IrField): boolean {
  if (f.derive?.kind !== 'value') return false;
  const at = s.fields.indexOf(f);
  return identifiers(f.derive.expr).some((id) => s.fields.findIndex((x) => x.name === id) > at);
}

/** Whether encoding takes something other than the decoded value: a derived field, anywhere inside. */
export function hasDistinctInput(ir: Ir, s: IrStruct): boolean {
  return s.fields.some(
    (f) =>
      f.derive !== undefined ||
      f.type.kind === 'computed' ||
      f.type.kind === 'rows' ||
      companions(f, s).length > 0 ||
      nested(f.type).some((n) => hasDistinctInput(ir, ir.structs.get(n)!)),
  );
}

/** The structs a value of `t` may hold directly. */
function nested(t: IrType): string[] {
  if (t.kind === 'struct') return [t.name];
  if (t.kind === 'switch') return [...t.cases.map((c) => c.struct), ...(t.default ? [t.default] : [])];
  if (t.kind === 'tlv' || t.kind === 'tagged') return t.entries.map((e) => e.struct);
  return [];
}

/** Whether values of `t` are an enum's names: the code is kept beside them, as NAME$code, for expressions. */
export function isEnum(t: IrType): boolean {
  return (t.kind === 'int' || t.kind === 'packed' || t.kind === 'computed') && t.enum !== undefined;
}

/** An expression giving the code of `value` (a name or a number) of enum field `f`: what is written. */
export function enumCode(m: Module, f: IrField, value: string): string {
  return `${m.rt('enumCode')}(${m.enumRef(enumOf(f), '', false)}, ${value}, ${q(f.path)})`;
}

/** An expression giving the name (or, if it has none, the number) of code `code` of enum field `f`: what is decoded. */
export function enumName(m: Module, f: IrField, code: string): string {
  return `${m.rt('enumName')}(${m.enumRef(enumOf(f), 'Names', false)}, ${code})`;
}

function enumOf(f: IrField): string {
  return (f.type as { enum: string }).enum;
}

/** The struct's parameters, as its decoder's and encoder's last parameters. */
export function structParams(s: IrStruct): { name: string; type: string }[] {
  return s.params.map((p) => ({ name: p.name, type: p.type }));
}
