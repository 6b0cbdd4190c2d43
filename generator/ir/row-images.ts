/**
 * The `rowImages` section: a row change's parts, each under a flag of the event's images, the value
 * options' struct and the bits a reader knows, and the null bitmap's bit order and unused bits. A change
 * has each part once; the options struct takes the count of the columns it covers and has the field named.
 */
import type { SchemaFile } from '../load.js';
import { type Origin, type Pass, resolveSection } from './pass.js';
import type { RawRowImages } from './raw.js';
import type { IrRowImages } from './types.js';

const PARTS = ['before', 'options', 'after'] as const;

export function resolveRowImages(pass: Pass, files: SchemaFile[]): void {
  resolveSection(pass, files, 'rowImages', 'row image layout', (o, raw, module) => resolve(pass, o, raw, module));
}

function resolve(pass: Pass, o: Origin, raw: RawRowImages, module: string): IrRowImages | undefined {
  const images = flagsOf(pass, o, ['images'], raw.images);
  const known = flagsOf(pass, o, ['options', 'known'], raw.options.known);
  checkOptions(pass, o, raw.options);
  const parts = raw.change.map(({ part, if: flag }, i) => {
    const bit = images?.values.find(([name]) => name === flag)?.[1];
    if (images && bit === undefined) pass.fail(o, ['change', i, 'if'], `'${flag}' is not a ${raw.images} name`);
    return { part, flag, bit: bit ?? 0 };
  });
  for (const part of PARTS) {
    const n = parts.filter((p) => p.part === part).length;
    if (n !== 1)
      pass.fail(
        o,
        ['change'],
        `a change has its ${part} part ${n ? `${n} times` : 'nowhere'}: once, where it is stored`,
      );
  }
  const covers = coveredTypes(pass, o, raw.options.covers);
  if (!images || !known || !covers) return undefined;
  const mask = known.values.reduce((m, [, bit]) => m | bit, 0);
  return {
    module,
    doc: raw.doc,
    images: raw.images,
    parts,
    options: { ...raw.options, mask, covers },
    nulls: { msb: raw.nulls.order === 'msb', spareSet: raw.nulls.spare === 'set' },
  };
}

/** `[Enum.NAME, …]`: the column types the options have a bit for, all of one enum. */
function coveredTypes(pass: Pass, o: Origin, refs: string[]): IrRowImages['options']['covers'] | undefined {
  const name = refs[0]!.split('.')[0]!;
  const types = pass.ir.enums.get(name);
  if (!types) return void pass.fail(o, ['options', 'covers', 0], `unknown enum '${name}'`);
  const codes: [string, number][] = [];
  refs.forEach((ref, i) => {
    const [group, member] = ref.split('.') as [string, string];
    const code = types.values.find(([n]) => n === member)?.[1];
    if (group !== name)
      pass.fail(o, ['options', 'covers', i], `'${group}' is not '${name}': the covered types are of one enum`);
    else if (code === undefined) pass.fail(o, ['options', 'covers', i], `'${name}' has no value '${member}'`);
    else codes.push([member, code]);
  });
  return codes.length === refs.length ? { enum: name, codes } : undefined;
}

function flagsOf(pass: Pass, o: Origin, at: string[], name: string) {
  const flags = pass.ir.flags.get(name);
  if (!flags) pass.fail(o, at, `unknown flags '${name}'`);
  return flags;
}

/** The options struct is read with the table's count of JSON columns, and holds the bits in the field named. */
function checkOptions(pass: Pass, o: Origin, raw: RawRowImages['options']): void {
  const s = pass.ir.structs.get(raw.struct);
  if (!s) return pass.fail(o, ['options', 'struct'], `unknown struct '${raw.struct}'`);
  if (s.params.length !== 1 || s.params[0]!.type !== 'number')
    pass.fail(o, ['options', 'struct'], `${raw.struct} takes one number, the count of the columns it covers`);
  const f = s.fields.find((x) => x.name === raw.field);
  if (!f || f.cond || !(f.type.kind === 'int' || f.type.kind === 'packed') || f.type.big)
    pass.fail(o, ['options', 'field'], `${raw.struct} has no unconditional number field '${raw.field}'`);
}
