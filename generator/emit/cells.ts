/**
 * The cells as TypeScript: per cell a factory that takes the runtime's helpers (the externs) and gives
 * the cell's codec, whose reader, skipper and writer are made once per column of a row layout, its params
 * and lets reckoned then; and `cellCodecs`, every cell by name.
 */
import type { SourceFile } from 'ts-morph';
import { compileExpr, identifiers, type Expr } from '../expr.js';
import type { ExternType, IrBitField, IrCell, IrCellPart, IrCheck, IrExtern } from '../ir/types.js';
import type { Module } from './module.js';
import { docs, Lines, q } from './print.js';
import { constantValue } from './types.js';

const TS_TYPE: Record<ExternType, string> = {
  number: 'number',
  boolean: 'boolean',
  string: 'string',
  bigint: 'bigint',
  integer: 'number | bigint',
  value: 'CellValue',
  texts: 'Text[]',
  numbers: 'number[]',
  indexes: 'ReadonlyMap<string, number>',
  bytes: 'Uint8Array',
  column: 'CellColumn',
  textCodec: 'TextCodec',
  json: 'JsonTree',
};

/** The runtime types the extern kinds name. */
const KIND_TYPES: Partial<Record<ExternType, 'CellValue' | 'Text' | 'CellColumn' | 'TextCodec' | 'JsonTree'>> = {
  value: 'CellValue',
  texts: 'Text',
  column: 'CellColumn',
  textCodec: 'TextCodec',
  json: 'JsonTree',
};

export function emitCells(sf: SourceFile, m: Module, cells: IrCell[], externs: IrExtern[]): void {
  if (!cells.length) return;
  m.rtType('CellCodec');
  emitHelpers(
    sf,
    m,
    'CellHelpers',
    "What the cells take from the runtime (the schema's `externs`): text and values to fields and back, " +
      'no fact of the format.',
    externs,
  );
  for (const cell of cells) emitCell(sf, m, cell);
  sf.addTypeAlias({ name: 'CellName', isExported: true, type: cells.map((c) => q(c.name)).join(' | ') });
  sf.addFunction({
    name: 'cellCodecs',
    isExported: true,
    docs: ['Every cell, by the `codec` name the CellLayouts table gives it.'],
    parameters: [{ name: 'h', type: 'CellHelpers' }],
    returnType: 'Record<CellName, CellCodec>',
    statements: `return {\n${cells.map((c) => `${c.name}: ${factoryName(c)}(h),`).join('\n')}\n};`,
  });
}

/** The interface of the helpers a module's generated code takes from the runtime: its file's externs. */
export function emitHelpers(sf: SourceFile, m: Module, name: string, doc: string, externs: IrExtern[]): void {
  for (const kind of new Set(externs.flatMap((x) => [...x.args.map(([, t]) => t), x.returns]))) {
    const type = KIND_TYPES[kind];
    if (type) m.rtType(type);
  }
  sf.addInterface({
    name,
    isExported: true,
    docs: [doc],
    methods: externs.flatMap((x) => {
      const parameters = x.args.map(([arg, t]) => ({ name: arg, type: TS_TYPE[t] }));
      const made = { name: x.name, docs: docs(x.doc), parameters, returnType: TS_TYPE[x.returns] };
      if (!x.json) return [made];
      m.rtType('JsonBytes');
      const json = {
        name: x.json,
        docs: [`Writes what ${x.name} gives as the dump's JSON, into \`w\`.`],
        parameters: [{ name: 'w', type: 'JsonBytes' }, ...parameters],
        returnType: 'void',
      };
      return [made, json];
    }),
  });
}

const factoryName = (c: IrCell) => `${c.name}Cell`;

function emitCell(sf: SourceFile, m: Module, c: IrCell): void {
  const name = (id: string) => {
    if (id === 'column') return 'c';
    const bare = id.replace(/\[\]$/, '');
    const constant = m.ir.constants.find((k) => k.name === bare);
    return constant ? constantValue(constant, m.use(bare, constant.module, false)) : bare;
  };
  const x = (e: Expr) => compileExpr(e, name);
  const uses = c.calls.length ? `const { ${c.calls.join(', ')} } = h;\n` : '';
  sf.addFunction({
    name: factoryName(c),
    isExported: true,
    docs: docs(c.doc),
    // Each factory takes just the helpers it calls, so that a codec outside the row cells (binary JSON's) can make one.
    parameters: [
      {
        name: c.calls.length ? 'h' : '_h',
        type: c.calls.length
          ? `Pick<CellHelpers, ${c.calls.map((n) => `'${n}'`).join(' | ')}>`
          : 'Partial<CellHelpers>',
      },
    ],
    returnType: 'CellCodec',
    statements: `${uses}return {\n${[
      method('reader', withFactory(c, readerBody(m, c, x), x)),
      method('skipper', withFactory(c, skipperBody(c, x), x)),
      method('writer', withFactory(c, writerBody(m, c, x), x)),
      jsonMethod(m, c, x),
      ...widthMethod(c, x),
    ].join(',\n')},\n};`,
  });
}

/** The body preceded by the params and lets it reads (directly or through another of them). */
function withFactory(c: IrCell, body: string, x: (e: Expr) => string): string {
  const decls: [string, string][] = [
    ...c.params.map((p): [string, string] => [p.name, `const ${p.name} = ${paramSource(p)};`]),
    ...c.lets.map(([n, e]): [string, string] => [n, `const ${n} = ${x(e)};`]),
  ];
  const kept: string[] = [];
  let reads = body;
  for (const [n, decl] of decls.reverse()) {
    if (!new RegExp(`\\b${n}\\b`).test(reads)) continue;
    kept.unshift(decl);
    reads += decl;
  }
  return [...kept, body].join('\n');
}

/** A codec method over the column `c`, named `_c` where its body never reads it. */
function method(name: 'reader' | 'skipper' | 'writer' | 'json', body: string): string {
  return `${name}(${/\bc\./.test(body) ? 'c' : '_c'}, path) {\n${body}\n}`;
}

function paramSource(p: IrCell['params'][number]): string {
  switch (p.from) {
    case 'meta':
      return p.default === undefined
        ? `c.meta.${p.key} as number`
        : `(c.meta.${p.key} as number | undefined) ?? ${p.default}`;
    case 'layout':
      return `(c.layout as { ${p.key}: number }).${p.key}`;
    case 'unsigned':
      return 'c.unsigned === true';
    case 'signKnown':
      return 'c.unsigned !== undefined';
    case 'members':
      return 'c.members ?? []';
    case 'binary':
      return "c.charset === 'binary'";
  }
}

/**
 * The bytes a part spans, as code over the factory's names; a bytes or text part checks its own (`r.uint`, `r.bytes`).
 */
function partSize(p: IrCellPart, x: (e: Expr) => string): string {
  if (p.kind === 'fixed') return String(p.int.width);
  return p.kind === 'bytes' || p.kind === 'sized' || p.kind === 'text' ? '0' : x(p.bytes);
}

/**
 * The text codec of a cell that is its text part's value and nothing more, whose reader and writer are
 * then the cell's own: a row's call of each column's cell stays at a call site of its own (one shared
 * inside the generated cell would see every column's codec and be slower).
 */
function plainText(c: IrCell): Extract<IrCellPart, { kind: 'text' }> | undefined {
  const [p] = c.parts;
  if (c.parts.length !== 1 || p!.kind !== 'text') return undefined;
  const { decode: d, encode: e } = c;
  const reads = d.value.kind === 'id' && d.value.name === p!.name && !d.lets.length && !d.checks.length;
  const writes = e.fields.kind === 'id' && e.gives[0] === p!.name && !e.lets.length && !e.checks.length;
  return reads && writes ? p : undefined;
}

/**
 * The cell's JSON writer: a cell that is its text and nothing more writes it from the bytes, as its text
 * codec does; any other reads as its reader does, then writes the value through its extern's JSON writer
 * where it has one (no value made), else as the dump writes values.
 */
function jsonMethod(m: Module, c: IrCell, x: (e: Expr) => string): string {
  const text = plainText(c);
  return method('json', withFactory(c, text ? `return ${x(text.codec)}.json;` : readingBody(m, c, x, 'json'), x));
}

/** The value's JSON written into `w`: by its extern's JSON writer, which takes the writer first, or as a value. */
function jsonWrite(c: IrCell, x: (e: Expr) => string): string {
  const call = c.decode.json;
  return call ? x({ ...call, args: [{ kind: 'id', name: 'w' }, ...call.args] }) : `w.value(${decodedValue(c, x)})`;
}

/** The decoded value, with the numbers it carries where it carries any (a WithCell). */
function decodedValue(c: IrCell, x: (e: Expr) => string): string {
  const value = x(c.decode.value);
  return c.decode.with.length ? `{ value: ${value}, with: { ${c.decode.with.join(', ')} } }` : value;
}

function readerBody(m: Module, c: IrCell, x: (e: Expr) => string): string {
  const text = plainText(c);
  return text ? `return ${x(text.codec)}.read;` : readingBody(m, c, x, 'value');
}

/** What a reading body ends in: the value returned, or its JSON written. */
type Gives = 'value' | 'json';

/**
 * The parts read and checked, then the value returned, or its JSON written (which keeps no last value: it makes none).
 */
function readingBody(m: Module, c: IrCell, x: (e: Expr) => string, gives: Gives): string {
  const out = new Lines();
  const sizes = c.parts.map((p) => partSize(p, x));
  const fixed = sizes.every((s) => /^\d+$/.test(s));
  const size = fixed ? String(sizes.reduce((n, s) => n + Number(s), 0)) : 'size$';
  if (!fixed) out.line(`const size$ = ${sizes.map((s) => (/^[\w$.]+$/.test(s) ? s : `(${s})`)).join(' + ')};`);
  const memo = c.decode.memo && gives === 'value';
  if (memo) {
    const memos = [...c.parts.map((p) => `${p.name}$memo: number | bigint = -1`), 'value$memo: CellValue = null'];
    out.line(`let ${memos.join(', ')};`);
    m.rtType('CellValue');
  }
  out.open(gives === 'json' ? 'return (r, w) => {' : 'return (r) => {');
  if (usesName(c.decode, 'cellOffset')) out.line('const cellOffset = r.offset;');
  if (size !== '0') out.line(`r.need(${size}, path);`);
  const checks = [...c.decode.checks];
  c.parts.forEach((p, i) => {
    // A part sized by the parts before it is read once the checks of those alone have passed.
    if (p.kind === 'sized')
      for (const check of takeChecksBefore(c, i, checks))
        out.line(`if (${x(check.cond)}) throw ${invalid(m, message(check, x))};`);
    out.line(`const ${p.name} = ${readPart(p, x, gives)};`);
  });
  if (memo) out.line(`if (${c.parts.map((p) => `${p.name} === ${p.name}$memo`).join(' && ')}) return value$memo;`);
  for (const p of c.parts) {
    if (p.kind !== 'fixed') continue;
    const width = p.int.width * 8;
    if (width > 32 && p.bits.some((b) => b.shift + b.bits <= 32))
      out.line(`const ${p.name}$low = ${p.name} % 0x100000000;`);
    for (const b of p.bits) readBits(m, out, p.name, width, b);
  }
  for (const [n, e] of c.decode.lets) out.line(`const ${n} = ${x(e)};`);
  for (const check of checks) out.line(`if (${x(check.cond)}) throw ${invalid(m, message(check, x))};`);
  if (memo) {
    out.line(`const value = ${x(c.decode.value)};`);
    out.line(`${[...c.parts.map((p) => `${p.name}$memo = ${p.name}`), 'value$memo = value'].join(';\n')};`);
    out.line('return value;');
  } else if (gives === 'json') out.line(`${jsonWrite(c, x)};`);
  else out.line(`return ${decodedValue(c, x)};`);
  out.close('};');
  return out.text();
}

/**
 * The checks (taken out of `checks`) that read none of part `i`, the parts after it, the bit fields and the decode
 * lets.
 */
function takeChecksBefore(c: IrCell, i: number, checks: IrCheck[]): IrCheck[] {
  const later = new Set([
    ...c.parts.slice(i).map((p) => p.name),
    ...c.parts.flatMap((p) => (p.kind === 'fixed' ? p.bits.map((b) => b.name) : [])),
    ...c.decode.lets.map(([n]) => n),
  ]);
  const early = checks.filter((k) => [k.cond, ...k.values].every((e) => identifiers(e).every((id) => !later.has(id))));
  early.forEach((k) => checks.splice(checks.indexOf(k), 1));
  return early;
}

/**
 * Steps over a value as the reader reads it, part by part, with the reader's checks of the bytes' length
 * (the same errors at the same offsets) but none of its value's: what lazy rows find their cells with.
 */
function skipperBody(c: IrCell, x: (e: Expr) => string): string {
  const text = plainText(c);
  if (text) return `return ${x(text.codec)}.skip;`;
  const out = new Lines();
  const sizes = c.parts.map((p) => partSize(p, x));
  const fixed = sizes.filter((s) => s !== '0');
  // The parts a later part's size reads are read, not stepped over.
  const sizing = new Set(c.parts.flatMap((p) => (p.kind === 'sized' ? identifiers(p.size) : [])));
  out.open('return (r) => {');
  if (fixed.length) out.line(`r.need(${fixed.map((s) => (/^[\w$.]+$/.test(s) ? s : `(${s})`)).join(' + ')}, path);`);
  c.parts.forEach((p, i) => {
    // The length first: `r.pos += …` would take r.pos before the length moved it.
    if (p.kind === 'bytes')
      out.line(`const ${p.name} = r.lengthBefore(${x(p.prefix)}, path);\nr.pos += r.length(${p.name}, path);`);
    else if (p.kind === 'sized') out.line(`r.pos += r.length(${x(p.size)}, path);`);
    else if (p.kind === 'text') out.line(`${x(p.codec)}.skip(r);`);
    else if (sizing.has(p.name)) out.line(`const ${p.name} = ${readPart(p, x, 'value')};`);
    else out.line(`r.pos += ${/^[\w$.]+$/.test(sizes[i]!) ? sizes[i] : `(${sizes[i]})`};`);
  });
  out.close('};');
  return out.text();
}

/**
 * The bytes of every value of a cell whose parts all have a size the column says, so that lazy rows step
 * over such a value without a call; none for a cell with a length, a sized part or text.
 */
function widthMethod(c: IrCell, x: (e: Expr) => string): string[] {
  if (c.parts.some((p) => p.kind === 'bytes' || p.kind === 'sized' || p.kind === 'text')) return [];
  const sizes = c.parts.map((p) => partSize(p, x)).map((s) => (/^[\w$.]+$/.test(s) ? s : `(${s})`));
  const body = withFactory(c, `return ${sizes.join(' + ')};`, x);
  return [`width(${/\bc\./.test(body) ? 'c' : '_c'}) {\n${body}\n}`];
}

/** Whether a name is read by any of the decode steps. */
function usesName(decode: IrCell['decode'], name: string): boolean {
  const exprs = [
    ...decode.lets.map(([, e]) => e),
    ...decode.checks.flatMap((k) => [k.cond, ...k.values]),
    decode.value,
  ];
  return exprs.some((e) => identifiers(e).includes(name));
}

function readPart(p: IrCellPart, x: (e: Expr) => string, gives: Gives): string {
  switch (p.kind) {
    case 'fixed':
      return `r.${fixedMethod(p)}()`;
    case 'uint':
      return `r.${p.be ? 'uintBe' : 'uintLe'}(${x(p.bytes)})`;
    case 'bigint':
      return `r.${p.be ? 'bigBe' : 'bigLe'}(${x(p.bytes)})`;
    case 'int':
      // JSON writes a safe integer alike as a number or a bigint: its writer makes no bigint for one.
      return `r.${gives === 'json' ? 'intLeSafe' : 'intLe'}(${x(p.bytes)}, ${x(p.signed)})`;
    case 'float':
      return `${x(p.bytes)} === 4 ? r.f32() : r.f64()`;
    case 'bytes':
      return `r.bytes(r.lengthBefore(${x(p.prefix)}, path), path)`;
    case 'sized':
      return `r.bytes(${x(p.size)}, path)`;
    case 'text':
      return `${x(p.codec)}.read(r)`;
  }
}

/**
 * A bit field of a part `width` bits wide: by shifts within 32 bits. Beyond, a field in the low 32 bits
 * is shifted out of the part's low word (`${part}$low`, taken once), one above by division.
 */
function readBits(m: Module, out: Lines, part: string, width: number, b: IrBitField): void {
  const top = b.shift + b.bits === width;
  const mask = `0x${(2 ** b.bits - 1).toString(16)}`;
  const shifted = (v: string, all: boolean) =>
    b.shift === 0 ? `${v} & ${mask}` : all ? `${v} >>> ${b.shift}` : `(${v} >>> ${b.shift}) & ${mask}`;
  let code: string;
  if (width <= 32) code = shifted(part, top);
  else if (b.shift + b.bits <= 32) code = shifted(`${part}$low`, false);
  else {
    const high = b.shift === 0 ? part : `Math.floor(${part} / ${2 ** b.shift})`;
    code = top ? high : `${high} % ${2 ** b.bits}`;
  }
  if (b.constValue === undefined) out.line(`const ${b.name} = ${code};`);
  else out.line(`if ((${code}) !== ${b.constValue}) throw ${invalid(m, q(b.error!))};`);
}

function invalid(m: Module, text: string): string {
  return `new ${m.rt('InvalidValueError')}(${text}, { offset: r.offset, schemaPath: path })`;
}

/** A check's message as a template literal, each `{…}` the value of its expression. */
function message(check: IrCheck, x: (e: Expr) => string): string {
  let i = 0;
  const escaped = check.error.replace(/[`\\]|\$\{/g, (s) => `\\${s}`);
  return `\`${escaped.replace(/\{[^{}]+\}/g, () => `\${${x(check.values[i++]!)}}`)}\``;
}

function writerBody(m: Module, c: IrCell, x: (e: Expr) => string): string {
  const text = plainText(c);
  if (text) return `return ${x(text.codec)}.write;`;
  const out = new Lines();
  const { memo } = c.encode;
  if (memo) {
    m.rtType('CellValue');
    out.line(`let value$memo: CellValue | undefined;`);
    out.line(`let ${c.parts.map((p) => `${p.name}$memo = ${p.kind === 'bigint' ? '0n' : '0'}`).join(', ')};`);
  }
  const carried = c.decode.with;
  out.open(carried.length ? 'return (w, given$) => {' : 'return (w, value) => {');
  if (carried.length) {
    out.line(`const with$ = ${m.rt('cellWith')}(given$, [${carried.map(q).join(', ')}], path);`);
    out.line('const value = with$.value;');
    carried.forEach((n) => out.line(`const ${n} = with$.with.${n}!;`));
  }
  if (memo) out.open('if (value !== value$memo) {');
  const gives = c.encode.gives;
  if (gives.length === 1) out.line(`const ${gives[0]} = ${x(c.encode.fields)};`);
  else {
    out.line(`const fields$ = ${x(c.encode.fields)};`);
    gives.forEach((g, i) => out.line(`const ${g} = fields$[${i}]!;`));
  }
  for (const [n, e] of c.encode.lets) out.line(`const ${n} = ${x(e)};`);
  for (const check of c.encode.checks)
    out.line(`if (${x(check.cond)}) throw new ${m.rt('EncodeError')}(${message(check, x)}, path);`);
  for (const p of c.parts) if (p.kind === 'fixed') composePart(m, out, p);
  if (memo) {
    out.line(`${[...c.parts.map((p) => `${p.name}$memo = ${p.name}`), 'value$memo = value'].join(';\n')};`);
    out.close();
  }
  for (const p of c.parts) out.line(writePart(p, x, memo ? `${p.name}$memo` : p.name));
  out.close('};');
  return unusedFieldsLeftOut(out.out, gives).join('\n');
}

/** The lines without the fields taken from `fields$` that nothing after reads (a TIMESTAMP has no use for micro). */
function unusedFieldsLeftOut(lines: string[], gives: string[]): string[] {
  return lines.filter((line, i) => {
    const g = gives.find((name) => line.trimStart().startsWith(`const ${name} = fields$[`));
    return g === undefined || new RegExp(`\\b${g}\\b`).test(lines.slice(i + 1).join('\n'));
  });
}

/** A fixed part from its bit fields (each checked to fit), or checked to fit the integer. */
function composePart(m: Module, out: Lines, p: Extract<IrCellPart, { kind: 'fixed' }>): void {
  const width = p.int.width * 8;
  const fail = (what: string, bits: string) =>
    `throw new ${m.rt('EncodeError')}(\`${what} \${${what}} does not fit ${bits}\`, path)`;
  if (!p.bits.length) {
    if (p.int.big) return;
    const [lo, hi] = p.int.signed ? [-(2 ** (width - 1)), 2 ** (width - 1) - 1] : [0, 2 ** width - 1];
    out.line(
      `if (!(${p.name} >= ${lo} && ${p.name} <= ${hi})) ${fail(p.name, p.int.signed ? `i${width}` : `u${width}`)};`,
    );
    return;
  }
  for (const b of p.bits) {
    if (b.constValue === undefined)
      out.line(`if (!(${b.name} >= 0 && ${b.name} <= ${2 ** b.bits - 1})) ${fail(b.name, `${b.bits} bits`)};`);
  }
  const term = (b: IrBitField) => {
    const v = b.constValue ?? b.name;
    if (width > 31) return b.shift ? `${v} * ${2 ** b.shift}` : String(v);
    return b.shift ? `(${v} << ${b.shift})` : String(v);
  };
  const sum = p.bits.map(term).join(width > 31 ? ' + ' : ' | ');
  out.line(`const ${p.name} = ${sum};`);
}

/** The write of part `p`, whose value is `v`. */
function writePart(p: IrCellPart, x: (e: Expr) => string, v: string): string {
  switch (p.kind) {
    case 'fixed':
      return `w.${fixedMethod(p)}(${v});`;
    case 'uint':
      return `w.${p.be ? 'uintBe' : 'uint'}(${v}, ${x(p.bytes)}, path);`;
    case 'bigint':
      return `w.${p.be ? 'bigBe' : 'bigLe'}(${v}, ${x(p.bytes)}, path);`;
    case 'int':
      return `w.intLe(${v}, ${x(p.bytes)}, ${x(p.signed)}, path);`;
    case 'float':
      return `if (${x(p.bytes)} === 4) w.f32(${v});\nelse w.f64(${v});`;
    case 'bytes':
      return `w.prefixed(${v}, ${x(p.prefix)}, path);`;
    case 'sized':
      return `w.fixed(${v}, ${x(p.size)}, path);`;
    case 'text':
      return `${x(p.codec)}.write(w, ${v});`;
  }
}

/** The Reader's and Writer's method of a fixed integer: u8, i24, u40be… */
function fixedMethod(p: Extract<IrCellPart, { kind: 'fixed' }>): string {
  const { width, signed, be } = p.int;
  return `${signed ? 'i' : 'u'}${width * 8}${be && width > 1 ? 'be' : ''}`;
}
