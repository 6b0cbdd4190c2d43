/**
 * The `externs` and `cells` sections: each cell's parameters, parts and bit fields, and its decode and
 * encode steps, with every name an expression reads checked against what is defined before it.
 */
import { calls, ExprError, identifiers, parseExpr, type Expr } from '../expr.js';
import type { SchemaFile, YamlPath } from '../load.js';
import { below, type Origin, type Pass } from './pass.js';
import { rawFile, type RawCell, type RawCellPart, type RawChecks, type RawLets } from './raw.js';
import type { IntType, IrBitField, IrCell, IrCellParam, IrCellPart, IrCheck } from './types.js';

/** Names a cell's lets may read beside its params: the column it is made for and its schema path. */
const FACTORY_INPUTS = ['column', 'path'];
/** Names its decode steps may read beside its own: the offset of the cell's first byte. */
const DECODE_INPUTS = ['cellOffset'];
/** Names its encode steps may read beside its own: the value being written. */
const ENCODE_INPUTS = ['value'];

export function resolveExterns(pass: Pass, files: SchemaFile[]): void {
  for (const file of files) {
    for (const [name, x] of Object.entries(rawFile(file).externs ?? {})) {
      if (pass.ir.externs.some((e) => e.name === name))
        pass.fail({ file, path: ['externs', name] }, [], `extern '${name}' is defined twice`);
      // Each cell's factory is named `<cell>Cell`, and takes the externs into its own scope.
      if (name.endsWith('Cell'))
        pass.fail(
          { file, path: ['externs', name] },
          [],
          `an extern's name may not end in 'Cell', as the cells' factories do`,
        );
      pass.ir.externs.push({
        name,
        module: file.module,
        doc: x.doc,
        args: Object.entries(x.args),
        returns: x.returns,
        json: x.json,
      });
    }
  }
  pass.ir.externs.forEach((x, i) => {
    // A JSON writer is a helper of the same interface: its name is no extern's, no earlier writer's and no factory's.
    const taken = pass.ir.externs.some((e, k) => e.name === x.json || (k < i && e.json === x.json));
    if (x.json && (x.json.endsWith('Cell') || taken)) {
      const file = files.find((f) => f.module === x.module)!;
      pass.fail(
        { file, path: ['externs', x.name, 'json'] },
        [],
        `'${x.json}' names an extern or another's JSON writer, or ends in 'Cell': a JSON writer's name is its own`,
      );
    }
  });
}

/** The call of the JSON writer of the extern whose result the value is, where it has one. */
function jsonWriterCall(pass: Pass, value: Expr): Extract<Expr, { kind: 'call' }> | undefined {
  if (value.kind !== 'call') return undefined;
  const json = pass.ir.externs.find((e) => e.name === value.fn)?.json;
  return json ? { kind: 'call', fn: json, args: value.args } : undefined;
}

export function resolveCells(pass: Pass, files: SchemaFile[]): void {
  const codecs = codecNames(pass);
  for (const file of files) {
    for (const [name, raw] of Object.entries(rawFile(file).cells ?? {})) {
      const o: Origin = { file, path: ['cells', name] };
      if (codecs && !codecs.has(name)) pass.fail(o, [], `no ${LAYOUT_TABLES.join(', ')} entry has codec '${name}'`);
      if (pass.ir.cells.some((c) => c.name === name)) pass.fail(o, [], `cell '${name}' is defined twice`);
      pass.ir.cells.push(resolveCell(pass, o, name, raw, file.module));
    }
  }
}

/**
 * The tables that name cells by column type: the layouts, MariaDB's own fractional temporals', and binary JSON's
 * temporals'.
 */
const LAYOUT_TABLES = ['CellLayouts', 'FractionLayouts', 'JsonbCustomData'];

/** The codec names the layout tables use, where the schemas have them. */
function codecNames(pass: Pass): Set<string> | undefined {
  const tables = pass.ir.lookups.filter((l) => LAYOUT_TABLES.includes(l.name));
  return tables.length
    ? new Set(tables.flatMap((t) => t.entries.map(([, , , v]) => (v as { codec: string }).codec)))
    : undefined;
}

/** What a cell's expressions are read against: the names defined so far, the calls they make. */
class CellScope {
  readonly names = new Set<string>();
  readonly calls = new Set<string>();

  constructor(
    private readonly pass: Pass,
    private readonly o: Origin,
  ) {}

  define(name: string, where: YamlPath): void {
    if (this.names.has(name)) this.pass.fail(this.o, where, `'${name}' is defined twice in this cell`);
    this.names.add(name);
  }

  /** The expression at `where`, every name it reads known and every function it calls an extern. */
  expr(src: string | number | boolean, where: YamlPath): Expr {
    try {
      const e = parseExpr(src);
      for (const id of identifiers(e))
        if (!this.names.has(id) && !this.constant(id)) this.pass.fail(this.o, where, `unknown name '${id}'`);
      for (const call of calls(e)) this.call(call.fn, call.args.length, where);
      return e;
    } catch (err) {
      if (!(err instanceof ExprError)) throw err;
      this.pass.fail(this.o, where, `bad expression: ${err.message}`);
      return { kind: 'num', value: 0 };
    }
  }

  private constant(id: string): boolean {
    return this.pass.ir.constants.some((c) => c.name === id);
  }

  private call(fn: string, count: number, where: YamlPath): void {
    const x = this.pass.ir.externs.find((e) => e.name === fn);
    if (!x) this.pass.fail(this.o, where, `unknown extern '${fn}'`);
    // A cell's factory takes the helpers of its own file's externs (CellHelpers lists those).
    else if (x.module !== this.o.file.module)
      this.pass.fail(
        this.o,
        where,
        `'${fn}' is an extern of another file (${x.module}): a cell calls those of its own`,
      );
    else if (x.args.length !== count)
      this.pass.fail(
        this.o,
        where,
        `'${fn}' takes ${x.args.length} argument${x.args.length === 1 ? '' : 's'}, not ${count}`,
      );
    this.calls.add(fn);
  }

  lets(raw: RawLets | undefined, where: YamlPath): [string, Expr][] {
    return Object.entries(raw ?? {}).map(([name, src]) => {
      const e = this.expr(src, [...where, name]);
      this.define(name, [...where, name]);
      return [name, e];
    });
  }

  checks(raw: RawChecks | undefined, where: YamlPath): IrCheck[] {
    return (raw ?? []).map((c, i) => ({
      cond: this.expr(c.if, [...where, i, 'if']),
      error: c.error,
      values: placeholders(c.error).map((src) => this.expr(src, [...where, i, 'error'])),
    }));
  }
}

/** The expressions a message's `{…}` stand for. */
export function placeholders(message: string): string[] {
  return [...message.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

function resolveCell(pass: Pass, o: Origin, name: string, raw: RawCell, module: string): IrCell {
  const factory = new CellScope(pass, o);
  FACTORY_INPUTS.forEach((n) => factory.names.add(n));
  const params = Object.entries(raw.params ?? {}).map(([n, p]) => {
    factory.define(n, ['params', n]);
    return cellParam(n, p);
  });
  const lets = factory.lets(raw.let, ['let']);
  // A bytes part's `size` is reckoned per value, so it may read the parts before it too.
  const layout = new CellScope(pass, o);
  factory.names.forEach((n) => layout.names.add(n));
  const parts = raw.layout.map((p, i) => {
    const part = cellPart(pass, o, i, p, factory, layout);
    layout.names.add(part.name);
    return part;
  });
  const sized = parts.findIndex((p) => p.kind === 'bytes' || p.kind === 'sized' || p.kind === 'text');
  if (sized >= 0 && sized < parts.length - 1)
    pass.fail(
      o,
      ['layout', sized],
      'a bytes or text part is the last of its cell: what follows it would have no fixed place',
    );

  const decoding = new CellScope(pass, o);
  const encoding = new CellScope(pass, o);
  for (const scope of [decoding, encoding]) factory.names.forEach((n) => scope.names.add(n));
  DECODE_INPUTS.forEach((n) => decoding.define(n, ['decode']));
  for (const p of parts) {
    decoding.define(p.name, ['layout']);
    if (p.kind === 'fixed') p.bits.forEach((b) => decoding.define(b.name, ['layout']));
  }
  const decodeLets = decoding.lets(raw.decode.let, ['decode', 'let']);
  const value = decoding.expr(raw.decode.value, ['decode', 'value']);
  const carried = carriedParts(pass, o, raw, parts);
  // A value carried with numbers is written as a whole, not by its extern's JSON writer.
  const json = carried.length ? undefined : jsonWriterCall(pass, value);
  if (json) decoding.calls.add(json.fn);
  const decode = {
    lets: decodeLets,
    checks: decoding.checks(raw.decode.checks, ['decode', 'checks']),
    value,
    with: carried,
    memo: raw.decode.memo === true,
    json,
  };

  ENCODE_INPUTS.forEach((n) => encoding.names.add(n));
  carried.forEach((n, i) => encoding.define(n, ['decode', 'with', i]));
  const fields = encoding.expr(raw.encode.fields, ['encode', 'fields']);
  const asItIs = fields.kind === 'id' && fields.name === 'value' && raw.encode.gives.length === 1;
  if (fields.kind !== 'call' && !asItIs)
    pass.fail(o, ['encode', 'fields'], 'is not a call of an extern, nor `value` given as one name');
  raw.encode.gives.forEach((g, i) => encoding.define(g, ['encode', 'gives', i]));
  const encode = {
    fields,
    gives: raw.encode.gives,
    lets: encoding.lets(raw.encode.let, ['encode', 'let']),
    checks: [] as IrCheck[],
    memo: raw.encode.memo === true,
  };
  encode.checks = encoding.checks(raw.encode.checks, ['encode', 'checks']);
  for (const stored of storedNames(parts)) {
    if (!encoding.names.has(stored)) pass.fail(o, ['encode'], `nothing gives '${stored}', which the layout stores`);
  }
  if (sized >= 0 && (decode.memo || encode.memo))
    pass.fail(
      o,
      [decode.memo ? 'decode' : 'encode', 'memo'],
      'a cell with a bytes or text part keeps no last value: its parts are not numbers to compare',
    );
  const used = new Set([...factory.calls, ...layout.calls, ...decoding.calls, ...encoding.calls]);
  return { name, doc: raw.doc, module, params, lets, parts, decode, encode, calls: [...used].sort() };
}

function cellParam(name: string, raw: string | { from: string; default: number }): IrCellParam {
  const [source, key] = (typeof raw === 'string' ? raw : raw.from).split('.') as [string, string];
  const from =
    source === 'column' ? (key as 'unsigned' | 'signKnown' | 'members' | 'binary') : (source as 'meta' | 'layout');
  return { name, from, key, default: typeof raw === 'string' ? undefined : raw.default };
}

/** What encode must give: each part's value, or each of its bit fields but a constant one. */
function storedNames(parts: IrCellPart[]): string[] {
  return parts.flatMap((p) =>
    p.kind === 'fixed' && p.bits.length
      ? p.bits.filter((b) => b.constValue === undefined).map((b) => b.name)
      : [p.name],
  );
}

/** The parts `with` names: each one the cell reads as a number, which the value does not say. */
function carriedParts(pass: Pass, o: Origin, raw: RawCell, parts: IrCellPart[]): string[] {
  const names = raw.decode.with ?? [];
  if (names.length && (raw.decode.memo || raw.encode.memo))
    pass.fail(
      o,
      [raw.decode.memo ? 'decode' : 'encode', 'memo'],
      'a value carried `with` numbers keeps no last value: the value alone is not what to compare',
    );
  return names.filter((n, i) => {
    const p = parts.find((q) => q.name === n);
    const numeric = p && ((p.kind === 'fixed' && !p.int.big && !p.bits.length) || p.kind === 'uint');
    if (!numeric)
      pass.fail(
        o,
        ['decode', 'with', i],
        `'${n}' is no part of this cell read as a number ` +
          '(a fixed integer of up to 6 bytes without bit fields, or a uint)',
      );
    return numeric;
  });
}

/**
 * A stored part; its sizes are reckoned once per column, so they read only the params and lets, but a
 * bytes part's `size`, reckoned per value (`layout`: the params, the lets and the parts before it).
 */
function cellPart(
  pass: Pass,
  o: Origin,
  i: number,
  raw: RawCellPart,
  factory: CellScope,
  layout: CellScope,
): IrCellPart {
  const expr = (key: 'bytes' | 'signed' | 'prefix' | 'codec') => factory.expr(raw[key] ?? 0, ['layout', i, key]);
  switch (raw.type) {
    case 'uint':
    case 'bigint':
      return { name: raw.name, kind: raw.type, bytes: expr('bytes'), be: raw.order === 'big' };
    case 'int':
      return { name: raw.name, kind: 'int', bytes: expr('bytes'), signed: expr('signed') };
    case 'float':
      return { name: raw.name, kind: 'float', bytes: expr('bytes') };
    case 'bytes':
      if ((raw.prefix === undefined) === (raw.size === undefined)) {
        pass.fail(
          o,
          ['layout', i],
          'a bytes part has `prefix` (the bytes of its length, stored before it) ' +
            'or `size` (its length, from what precedes it): one of them',
        );
      }
      return raw.size === undefined
        ? { name: raw.name, kind: 'bytes', prefix: expr('prefix') }
        : { name: raw.name, kind: 'sized', size: layout.expr(raw.size, ['layout', i, 'size']) };
    case 'text':
      return { name: raw.name, kind: 'text', codec: expr('codec') };
    default: {
      const int = fixedInt(raw.type);
      return { name: raw.name, kind: 'fixed', int, bits: bitFields(pass, below(o, 'layout', i), raw, int) };
    }
  }
}

/** u8 … i64, `be` for big-endian (the language schema has checked the name). */
export function fixedInt(type: string): IntType {
  const m = /^(u|i)(\d+)(be)?$/.exec(type)!;
  const width = Number(m[2]) / 8;
  return { kind: 'int', width, signed: m[1] === 'i', be: m[3] === 'be', big: width > 6 };
}

function bitFields(pass: Pass, o: Origin, raw: RawCellPart, int: IntType): IrBitField[] {
  if (!raw.bits) return [];
  const total = raw.bits.reduce((n, b) => n + b.bits, 0);
  if (total !== int.width * 8)
    pass.fail(o, ['bits'], `the bit fields hold ${total} bits, the ${raw.type} ${int.width * 8}`);
  if (int.signed || int.big)
    pass.fail(o, ['type'], `only an unsigned integer of up to 6 bytes is split into bit fields, not ${raw.type}`);
  let shift = total;
  return raw.bits.map((b, i) => {
    shift -= b.bits;
    if ((b.const === undefined) !== (b.error === undefined))
      pass.fail(
        o,
        ['bits', i],
        '`const` and `error` go together: the only value a bit field may hold, and the problem when it holds another',
      );
    return { name: b.name, bits: b.bits, shift, constValue: b.const, error: b.error };
  });
}
