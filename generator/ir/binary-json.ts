/**
 * The `binaryJson` section: MySQL's binary JSON as json_binary.h's grammar gives it. Every type of the
 * type enum has its value, every format and custom type named is known, an inlined value fits the
 * entries it sits in, and the encoder finds the one type it writes for each kind of JSON value.
 */
import type { SchemaFile } from '../load.js';
import { type Origin, type Pass, resolveSection } from './pass.js';
import type { RawBinaryJson, RawJsonbValue, RawJsonbWidth } from './raw.js';
import type { IrBinaryJson, IrEnum, IrJsonbValue, JsonbWidth } from './types.js';

const WIDTHS: Record<string, number> = { u8: 1, u16: 2, u32: 4 };
const JSON_LITERALS = [null, true, false];

export function resolveBinaryJson(pass: Pass, files: SchemaFile[]): void {
  resolveSection(pass, files, 'binaryJson', 'binary JSON', (o, raw, module) => resolve(pass, o, raw, module));
}

function resolve(pass: Pass, o: Origin, raw: RawBinaryJson, module: string): IrBinaryJson | undefined {
  const types = pass.ir.enums.get(raw.type);
  if (!types) {
    pass.fail(o, ['type'], `unknown enum '${raw.type}'`);
    return undefined;
  }
  const formats = Object.entries(raw.formats).map(([name, w]) => ({ name, width: WIDTHS[w]! }));
  const format = (name: string, where: (string | number)[]): number => {
    const i = formats.findIndex((f) => f.name === name);
    if (i < 0) pass.fail(o, where, `unknown format '${name}' (the formats: ${formats.map((f) => f.name).join(', ')})`);
    return i;
  };
  const values: IrJsonbValue[] = [];
  for (const [name, v] of Object.entries(raw.values)) {
    const code = types.values.find(([n]) => n === name)?.[1];
    if (code === undefined) pass.fail(o, ['values', name], `'${name}' is not a ${raw.type} name`);
    else values.push({ name, code, ...valueOf(pass, o, name, v, format, formats) } as IrJsonbValue);
  }
  for (const [name] of types.values)
    if (!(name in raw.values)) pass.fail(o, ['values'], `${raw.type}.${name} has no value`);
  checkEncodable(pass, o, values, formats);
  const width = (w: RawJsonbWidth): JsonbWidth => (w === 'format' ? 'format' : WIDTHS[w]!);
  const c = raw.containers;
  return {
    module,
    doc: raw.doc,
    typeEnum: raw.type,
    formats,
    values,
    containers: {
      elementCount: width(c.elementCount),
      size: width(c.size),
      keyOffset: width(c.keyOffset),
      keyLength: width(c.keyLength),
      valueOffset: width(c.valueOffset),
      keyOrder: c.keyOrder,
    },
    dataLength: raw.dataLength,
  };
}

type FormatOf = (name: string, where: (string | number)[]) => number;

function valueOf(
  pass: Pass,
  o: Origin,
  name: string,
  v: RawJsonbValue,
  format: FormatOf,
  formats: { name: string; width: number }[],
): object {
  const at = ['values', name];
  const inlined = (bytes: number) =>
    (v.inlined ?? []).map((f, i) => {
      const k = format(f, [...at, 'inlined', i]);
      if (k >= 0 && bytes > formats[k]!.width)
        pass.fail(
          o,
          [...at, 'inlined', i],
          `${v.type} values (${bytes} bytes) do not fit the ${f} form's ${formats[k]!.width}-byte value-entries`,
        );
      return k;
    });
  switch (v.type) {
    case 'object':
    case 'array':
      if (v.format === undefined) pass.fail(o, at, `an ${v.type} names its format`);
      return { kind: v.type, format: format(v.format ?? '', [...at, 'format']) };
    case 'literal':
      return { kind: 'literal', values: literals(pass, o, at, v.values ?? {}), inlined: inlined(1) };
    case 'string':
      return { kind: 'string' };
    case 'custom':
      return { kind: 'custom', enumName: v.enum ?? '', as: customTypes(pass, o, at, v) };
    default: {
      const m = /^(i|u|f)(\d+)$/.exec(v.type)!;
      const width = Number(m[2]) / 8;
      return { kind: 'number', width, signed: m[1] !== 'u', float: m[1] === 'f', inlined: inlined(width) };
    }
  }
}

function literals(
  pass: Pass,
  o: Origin,
  at: (string | number)[],
  raw: Record<string, null | boolean>,
): [number, null | boolean][] {
  const out = Object.entries(raw).map(([code, json]): [number, null | boolean] => [Number(code), json]);
  for (const [code] of out)
    if (code > 255) pass.fail(o, [...at, 'values', String(code)], `a literal is one byte, not ${code}`);
  for (const json of JSON_LITERALS) {
    const n = out.filter(([, j]) => j === json).length;
    if (n !== 1)
      pass.fail(
        o,
        [...at, 'values'],
        `JSON ${json} is ${n ? 'given more than one byte' : 'given no byte'}: the encoder writes exactly one`,
      );
  }
  return out;
}

function customTypes(pass: Pass, o: Origin, at: (string | number)[], v: RawJsonbValue): [string, number, string][] {
  const e: IrEnum | undefined = pass.ir.enums.get(v.enum ?? '');
  if (!e) {
    pass.fail(
      o,
      [...at, 'enum'],
      v.enum === undefined ? 'custom data names the enum of its custom types' : `unknown enum '${v.enum}'`,
    );
    return [];
  }
  return Object.entries(v.as ?? {}).flatMap(([tag, name]): [string, number, string][] => {
    const code = e.values.find(([n]) => n === name)?.[1];
    if (code === undefined) pass.fail(o, [...at, 'as', tag], `'${name}' is not a ${e.name} name`);
    return code === undefined ? [] : [[tag, code, name]];
  });
}

/** The encoder writes each JSON value as exactly one type: say where a kind has none, or two. */
function checkEncodable(pass: Pass, o: Origin, values: IrJsonbValue[], formats: { name: string }[]): void {
  const one = (what: string, matches: IrJsonbValue[], atLeast = false) => {
    if (matches.length === 0 || (!atLeast && matches.length > 1))
      pass.fail(
        o,
        ['values'],
        `${matches.length ? 'more than one type' : 'no type'} holds ${what}: ` +
          `the encoder needs ${atLeast ? 'one at least' : 'exactly one'}`,
      );
  };
  formats.forEach(({ name }, f) => {
    for (const kind of ['object', 'array'] as const)
      one(
        `an ${kind} in the ${name} form`,
        values.filter((v) => v.kind === kind && v.format === f),
      );
  });
  const numbers = values.filter((v) => v.kind === 'number');
  one(
    'a double (f64)',
    numbers.filter((v) => v.float && v.width === 8),
  );
  one(
    'a signed integer',
    numbers.filter((v) => !v.float && v.signed),
    true,
  );
  one(
    'an unsigned integer',
    numbers.filter((v) => !v.signed),
    true,
  );
  one(
    'the literals',
    values.filter((v) => v.kind === 'literal'),
  );
  one(
    'a string',
    values.filter((v) => v.kind === 'string'),
  );
  if (values.filter((v) => v.kind === 'custom').length > 1)
    pass.fail(o, ['values'], 'more than one type holds custom data: the encoder needs one at most');
}
