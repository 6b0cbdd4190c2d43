/**
 * Binary JSON as TypeScript: a decoder and an encoder specialised to the schema's grammar, each
 * container form's reader with its widths as constants, each type's value read and written as its
 * case of the type switch. The tree's shape is the dump's JSON form: plain JSON where it is exact, and
 * objects of `$`-keys for what plain JSON would lose (runtime/core/values.ts JsonTree).
 */
import type { SourceFile } from 'ts-morph';
import type { IrBinaryJson, IrExtern, IrJsonbValue, JsonbWidth } from '../ir/types.js';
import { emitHelpers } from './cells.js';
import type { Module } from './module.js';
import { docs, Lines, q } from './print.js';

type Num = Extract<IrJsonbValue, { kind: 'number' }>;
type Container = Extract<IrJsonbValue, { kind: 'object' | 'array' }>;

/** The keys the JSON form writes numbers under where plain JSON would lose them, and any custom data. */
const NUMBER_TAGS = ['$uint', '$int', '$double'];
const OPAQUE_TAG = '$opaque';

const hex = (n: number) => `0x${n.toString(16).padStart(2, '0')}`;

export function emitBinaryJson(sf: SourceFile, m: Module, j: IrBinaryJson, externs: IrExtern[]): void {
  m.rtType('JsonTree');
  m.rt('InvalidValueError');
  emitHelpers(
    sf,
    m,
    'BinaryJsonHelpers',
    "What binary JSON takes from the runtime (the schema's `externs`): custom data's values, no fact of the grammar.",
    externs,
  );
  const custom = j.values.find((v): v is Extract<IrJsonbValue, { kind: 'custom' }> => v.kind === 'custom');
  const tags = [...NUMBER_TAGS, ...(custom?.as.map(([t]) => t) ?? []), OPAQUE_TAG];
  sf.addStatements(
    `/** The keys of an object that is a scalar of the JSON form, not an object of the document. */\nconst ` +
      `SCALAR_KEYS = new Set([${tags.map(q).join(', ')}]);`,
  );
  sf.addFunction({
    name: 'isJsonObject',
    isExported: true,
    docs: ['Whether a tree node is an object of the document (not a scalar written as an object of $-keys).'],
    parameters: [{ name: 'v', type: 'JsonTree' }],
    returnType: 'v is { [key: string]: JsonTree }',
    statements:
      `return typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).some((k) ` +
      `=> SCALAR_KEYS.has(k));`,
  });
  sf.addFunction({
    name: 'compareJsonKeys',
    isExported: true,
    docs: ["An object's key order (containers.keyOrder): by byte length, then by bytes."],
    parameters: [
      { name: 'a', type: 'string' },
      { name: 'b', type: 'string' },
    ],
    returnType: 'number',
    statements: 'const [x, y] = [Buffer.from(a), Buffer.from(b)];\nreturn x.length - y.length || Buffer.compare(x, y);',
  });
  sf.addInterface({
    name: 'BinaryJsonCodec',
    isExported: true,
    docs: [
      'A document both ways: bytes (found at `offset`, for errors) to its tree, ' +
        "and a tree to the server's canonical bytes.",
    ],
    methods: [
      {
        name: 'decode',
        parameters: [
          { name: 'b', type: 'Uint8Array' },
          { name: 'offset', type: 'number' },
          { name: 'path', type: 'string' },
        ],
        returnType: 'JsonTree',
      },
      {
        name: 'encode',
        parameters: [
          { name: 'tree', type: 'JsonTree' },
          { name: 'path', type: 'string' },
        ],
        returnType: 'Uint8Array',
      },
    ],
  });
  const uses = externs.length ? `const { ${externs.map((x) => x.name).join(', ')} } = h;\n` : '';
  sf.addFunction({
    name: 'binaryJson',
    isExported: true,
    docs: docs(`${j.doc ?? 'Binary JSON'}: the codec, given the runtime's helpers.`),
    parameters: [{ name: externs.length ? 'h' : '_h', type: 'BinaryJsonHelpers' }],
    returnType: 'BinaryJsonCodec',
    statements: `${uses}${shared(j)}\n${decoder(j, custom)}\n${encoder(j, custom)}\nreturn { decode, encode };`,
  });
}

/** A container's width in its format. */
const widthIn = (w: JsonbWidth, format: number, j: IrBinaryJson) => (w === 'format' ? j.formats[format]!.width : w);

function read(width: number, at: string): string {
  if (width === 1) return `b[${at}]!`;
  return `dv.getUint${width * 8}(${at}, true)`;
}

function shared(j: IrBinaryJson): string {
  return `class Bad extends Error {}
const fail = (problem: string): never => {
  throw new Bad(problem);
};
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();
/** Where the bytes after the last data-length read begin. */
let next = 0;`.replace(/^/, `// The grammar's types: ${j.values.map((v) => `${v.name} ${hex(v.code)}`).join(', ')}.\n`);
}

function decoder(j: IrBinaryJson, custom: Extract<IrJsonbValue, { kind: 'custom' }> | undefined): string {
  const out = new Lines();
  out.open('function decode(b: Uint8Array, offset: number, path: string): JsonTree {');
  out.open('try {');
  out.line('const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);');
  out.line('return value(b, dv, b[0]!, 1, b.length - 1);');
  out.close('} catch (e) {');
  out.depthUp();
  out.line(
    'if (e instanceof Bad || e instanceof RangeError) throw new InvalidValueError(`binary JSON: ${e.message}`, ' +
      '{ offset, schemaPath: path });',
  );
  out.line('throw e;');
  out.close();
  out.close();
  out.open('function need(at: number, n: number, end: number): void {');
  out.line("if (at + n > end) fail('runs past its end');");
  out.close();
  out.open('function text(bytes: Uint8Array): string {');
  out.open('try {');
  out.line('return utf8.decode(bytes);');
  out.close('} catch {');
  out.depthUp();
  out.line("return fail('a string that is not UTF-8');");
  out.close();
  out.close();
  const { bitsPerByte: bits, maxBytes } = j.dataLength;
  out.line(`/** data-length: ${bits} bits a byte, the lowest first, a set bit ${bits} meaning more; sets \`next\`. */`);
  out.open('function dataLength(b: Uint8Array, at: number, end: number): number {');
  out.line('let n = 0;');
  out.open(`for (let i = 0; i < ${maxBytes}; i++) {`);
  out.line('need(at + i, 1, end);');
  out.line('const x = b[at + i]!;');
  out.line(`n += (x & ${hex(2 ** bits - 1)}) * 2 ** (${bits} * i);`);
  out.open(`if (!(x & ${hex(2 ** bits)})) {`);
  out.line('next = at + i + 1;');
  out.line('return n;');
  out.close();
  out.close();
  out.line(`return fail('a length of more than ${maxBytes} bytes');`);
  out.close();
  out.open('function value(b: Uint8Array, dv: DataView, type: number, at: number, len: number): JsonTree {');
  out.line('const end = at + len;');
  out.open('switch (type) {');
  for (const v of j.values) {
    out.open(`case ${hex(v.code)}: { // ${v.name}`);
    valueCase(out, j, v);
    out.close();
  }
  out.line('default:');
  out.line('  return fail(`unknown value type 0x${type.toString(16)}`);');
  out.close();
  out.close();
  const literal = j.values.find((v) => v.kind === 'literal');
  if (literal?.kind === 'literal') {
    out.open('function literal(v: number): JsonTree {');
    for (const [code, json] of literal.values) out.line(`if (v === ${hex(code)}) return ${json};`);
    out.line('return fail(`unknown literal ${v}`);');
    out.close();
  }
  for (let f = 0; f < j.formats.length; f++) {
    entry(out, j, f);
    for (const v of j.values) if ((v.kind === 'object' || v.kind === 'array') && v.format === f) container(out, j, v);
  }
  if (custom) {
    out.open('function custom(kind: number, data: Uint8Array): JsonTree {');
    out.open('switch (kind) {');
    for (const [tag, code, name] of custom.as) {
      out.open(`case ${code}: { // ${name}`);
      out.line(`const v = customValue('${tag}', ${code}, data);`);
      out.line('if (v !== null) return v;');
      out.line('break;');
      out.close();
    }
    out.close();
    out.line(`return { ${OPAQUE_TAG}: kind, hex: Buffer.from(data).toString('hex') };`);
    out.close();
  }
  return out.text();
}

function valueCase(out: Lines, j: IrBinaryJson, v: IrJsonbValue): void {
  switch (v.kind) {
    case 'object':
    case 'array':
      out.line(`return ${containerName(j, v)}(b, dv, at, end);`);
      return;
    case 'literal':
      out.line('need(at, 1, end);');
      out.line('return literal(b[at]!);');
      return;
    case 'number':
      out.line(`need(at, ${v.width}, end);`);
      numberCase(out, v);
      return;
    case 'string':
      out.line('const n = dataLength(b, at, end);');
      out.line('const from = next;');
      out.line('need(from, n, end);');
      out.line('return text(b.subarray(from, from + n));');
      return;
    case 'custom':
      out.line('need(at, 1, end);');
      out.line('const kind = b[at]!;');
      out.line('const n = dataLength(b, at + 1, end);');
      out.line('const from = next;');
      out.line('need(from, n, end);');
      out.line('return custom(kind, b.subarray(from, from + n));');
  }
}

/** A number as the JSON form has it: exact, and tagged where plain JSON would say another type. */
function numberCase(out: Lines, v: Num): void {
  if (v.float) {
    out.line('const v = dv.getFloat64(at, true);');
    out.line("return Number.isInteger(v) || Object.is(v, -0) ? { $double: Object.is(v, -0) ? '-0' : v } : v;");
  } else if (v.width === 8 && v.signed) {
    out.line('const v = dv.getBigInt64(at, true);');
    out.line('return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : { $int: v.toString() };');
  } else if (v.width === 8) {
    out.line('const v = dv.getBigUint64(at, true);');
    out.line('return { $uint: v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString() };');
  } else {
    const get = `dv.get${v.signed ? 'Int' : 'Uint'}${v.width * 8}(at${v.width > 1 ? ', true' : ''})`;
    out.line(v.signed ? `return ${get};` : `return { $uint: ${get} };`);
  }
}

const formatName = (j: IrBinaryJson, f: number) => j.formats[f]!.name;
const containerName = (j: IrBinaryJson, v: Container) =>
  `${formatName(j, v.format)}${v.kind === 'object' ? 'Object' : 'Array'}`;

/** The types a format's value-entries hold inlined, as a condition on `t`. */
function inlinedIn(j: IrBinaryJson, f: number): string {
  const codes = j.values
    .filter((v) => (v.kind === 'number' || v.kind === 'literal') && v.inlined.includes(f))
    .map((v) => `t === ${hex(v.code)}`);
  return codes.length ? codes.join(' || ') : 'false';
}

/** A value-entry of format f at p: the value inlined in it, or at its offset from the container's start. */
function entry(out: Lines, j: IrBinaryJson, f: number): void {
  const w = widthIn(j.containers.valueOffset, f, j);
  out.open(
    `function ${formatName(j, f)}Entry(b: Uint8Array, dv: DataView, p: number, base: number, size: number, end: ` +
      `number): JsonTree {`,
  );
  out.line('const t = b[p]!;');
  out.line(`if (${inlinedIn(j, f)}) return value(b, dv, t, p + 1, ${w});`);
  out.line(`need(p + 1, ${w}, end);`);
  out.line(`const off = ${read(w, 'p + 1')};`);
  out.line('return value(b, dv, t, base + off, size - off);');
  out.close();
}

function container(out: Lines, j: IrBinaryJson, v: Container): void {
  const c = j.containers;
  const [count, size, keyOffset, keyLength, valueOffset] = [
    c.elementCount,
    c.size,
    c.keyOffset,
    c.keyLength,
    c.valueOffset,
  ].map((w) => widthIn(w, v.format, j)) as [number, number, number, number, number];
  const keyEntry = keyOffset + keyLength;
  const valueEntry = 1 + valueOffset;
  const object = v.kind === 'object';
  out.line(
    `/** ${v.name}: element-count, size${object ? ', key-entries' : ''}, value-entries, ` +
      `then ${object ? 'keys and ' : ''}values at their offsets. */`,
  );
  out.open(`function ${containerName(j, v)}(b: Uint8Array, dv: DataView, at: number, end: number): JsonTree {`);
  out.line(`need(at, ${count}, end);`);
  out.line(`const count = ${read(count, 'at')};`);
  out.line(`need(at + ${count}, ${size}, end);`);
  out.line(`const size = ${read(size, `at + ${count}`)};`);
  out.line('if (size > end - at) fail(`a container of ${size} bytes in ${end - at}`);');
  if (object) out.line(`const keysAt = at + ${count + size};`);
  out.line(object ? `const valuesAt = keysAt + count * ${keyEntry};` : `const valuesAt = at + ${count + size};`);
  out.line(`need(valuesAt, count * ${valueEntry}, at + size);`);
  const element = `${formatName(j, v.format)}Entry(b, dv, valuesAt + i * ${valueEntry}, at, size, end)`;
  if (!object) {
    out.line('const out: JsonTree[] = new Array(count);');
    out.line(`for (let i = 0; i < count; i++) out[i] = ${element};`);
    out.line('return out;');
    out.close();
    return;
  }
  out.line('const members: [string, JsonTree][] = new Array(count);');
  out.open('for (let i = 0; i < count; i++) {');
  out.line(`const p = keysAt + i * ${keyEntry};`);
  out.line(`need(p, ${keyOffset}, end);`);
  out.line(`const off = ${read(keyOffset, 'p')};`);
  out.line(`need(p + ${keyOffset}, ${keyLength}, end);`);
  out.line(`const length = ${read(keyLength, `p + ${keyOffset}`)};`);
  out.line('need(at + off, length, at + size);');
  out.line(`members[i] = [text(b.subarray(at + off, at + off + length)), ${element}];`);
  out.close();
  out.line('// fromEntries defines each key, so that `__proto__` is a key like any other, not the prototype.');
  out.line('return Object.fromEntries(members);');
  out.close();
}

function encoder(j: IrBinaryJson, custom: Extract<IrJsonbValue, { kind: 'custom' }> | undefined): string {
  const out = new Lines();
  const numbers = j.values.filter((v): v is Num => v.kind === 'number');
  const double = numbers.find((v) => v.float)!;
  const str = j.values.find((v) => v.kind === 'string')!;
  const literal = j.values.find((v) => v.kind === 'literal')!;
  const last = j.formats.length - 1;
  out.line('type Encoded = [type: number, bytes: number[]];');
  out.open('function encode(tree: JsonTree, path: string): Uint8Array {');
  out.open('try {');
  out.line(`const [type, body] = encodeValue(tree, ${last}, path)!;`);
  out.line('const bytes = new Uint8Array(1 + body.length);');
  out.line('bytes[0] = type;');
  out.line('bytes.set(body, 1);');
  out.line('return bytes;');
  out.close('} catch (e) {');
  out.depthUp();
  out.line(
    'if (e instanceof Bad) throw new InvalidValueError(`binary JSON: ${e.message}`, { offset: -1, schemaPath: path });',
  );
  out.line('throw e;');
  out.close();
  out.close();
  out.line("/** A bigint as n little-endian bytes, two's complement. */");
  out.open('function le(v: bigint, n: number): number[] {');
  out.line('let x = BigInt.asUintN(8 * n, v);');
  out.line('const bytes: number[] = [];');
  out.line('for (let i = 0; i < n; i++, x >>= 8n) bytes.push(Number(x & 0xffn));');
  out.line('return bytes;');
  out.close();
  out.line('/** A count or an offset (a non-negative integer) appended as n little-endian bytes, cut to them. */');
  out.open('function put(bytes: number[], v: number, n: number): void {');
  out.open('for (let i = 0; i < n; i++) {');
  out.line('bytes.push(v % 256);');
  out.line('v = Math.floor(v / 256);');
  out.close();
  out.close();
  out.open('function dataLengthBytes(n: number): number[] {');
  out.line('const bytes: number[] = [];');
  const { bitsPerByte: bits } = j.dataLength;
  out.open('do {');
  out.line(`let x = n % ${2 ** bits};`);
  out.line(`n = Math.floor(n / ${2 ** bits});`);
  out.line(`if (n) x |= ${hex(2 ** bits)};`);
  out.line('bytes.push(x);');
  out.close('} while (n);');
  out.line('return bytes;');
  out.close();
  for (const signed of [true, false])
    intEncoded(
      out,
      numbers.filter((v) => !v.float && v.signed === signed),
      signed,
    );
  out.open('function doubleBytes(v: number): number[] {');
  out.line('const b = new Uint8Array(8);');
  out.line('new DataView(b.buffer).setFloat64(0, v, true);');
  out.line('return [...b];');
  out.close();
  out.line("/** A value's type and bytes; `limit`: the last format a container in it may take (its parent's). */");
  out.open('function encodeValue(v: JsonTree, limit: number, path: string): Encoded | undefined {');
  if (literal.kind === 'literal')
    for (const [code, json] of literal.values)
      out.line(`if (v === ${json}) return [${hex(literal.code)}, [${hex(code)}]];`);
  out.open("if (typeof v === 'number') {");
  out.line('if (Number.isInteger(v)) return signedEncoded(BigInt(v));');
  out.line(`return [${hex(double.code)}, doubleBytes(v)];`);
  out.close();
  out.open("if (typeof v === 'string') {");
  out.line('const s = encoder.encode(v);');
  out.line('const bytes = dataLengthBytes(s.length);');
  out.line('for (let i = 0; i < s.length; i++) bytes.push(s[i]!);');
  out.line(`return [${hex(str.code)}, bytes];`);
  out.close();
  out.line('if (Array.isArray(v)) return containerEncoded(v.map((x) => [undefined, x] as const), false, limit, path);');
  out.line('if (!isJsonObject(v)) return tagged(v, path);');
  out.line(
    'return containerEncoded(Object.keys(v).sort(compareJsonKeys).map((k) => [k, v[k]!] as const), true, limit, path);',
  );
  out.close();
  tagged(out, double.code, custom);
  out.line('type Entries = readonly (readonly [string | undefined, JsonTree])[];');
  out.line(
    '/** The first format that holds the container, up to `limit` (the serializer tries the small form first). */',
  );
  out.open(
    'function containerEncoded(entries: Entries, object: boolean, limit: number, path: string): Encoded | undefined {',
  );
  for (let f = 0; f < j.formats.length; f++) {
    const call = `${formatName(j, f)}Container(entries, object, path)`;
    out.line(
      f === last
        ? `return ${call};`
        : `const ${formatName(j, f)} = ${call};\nif (${formatName(j, f)} || limit === ${f}) ` +
            `return ${formatName(j, f)};`,
    );
  }
  out.close();
  for (let f = 0; f < j.formats.length; f++) containerIn(out, j, f);
  return out.text();
}

/** The smallest of the integer types that holds the value, the widest taking what none holds. */
function intEncoded(out: Lines, types: Num[], signed: boolean): void {
  const sorted = [...types].sort((a, b) => a.width - b.width);
  out.open(`function ${signed ? 'signed' : 'unsigned'}Encoded(v: bigint): Encoded {`);
  sorted.forEach((t, i) => {
    const write = `return [${hex(t.code)}, le(v, ${t.width})];`;
    if (i === sorted.length - 1) return out.line(write);
    const max = `0x${(2n ** BigInt(t.width * 8 - (signed ? 1 : 0)) - 1n).toString(16)}n`;
    out.line(signed ? `if (v >= -${max} - 1n && v <= ${max}) ${write}` : `if (v <= ${max}) ${write}`);
  });
  out.close();
}

/** A scalar written as an object of $-keys: the number it stands for, or custom data. */
function tagged(out: Lines, doubleCode: number, custom: Extract<IrJsonbValue, { kind: 'custom' }> | undefined): void {
  out.open('function tagged(v: { [key: string]: JsonTree }, path: string): Encoded {');
  out.line("if ('$uint' in v) return unsignedEncoded(BigInt(v.$uint as number | string));");
  out.line("if ('$int' in v) return signedEncoded(BigInt(v.$int as number | string));");
  out.line(
    `if ('$double' in v) return [${hex(doubleCode)}, doubleBytes(v.$double === '-0' ? -0 : (v.$double as number))];`,
  );
  if (custom) {
    for (const [tag, code, name] of custom.as)
      out.line(
        `if ('${tag}' in v) return customEncoded(${code} /* ${name} */, customData('${tag}', ${code}, v, path));`,
      );
    out.line(
      `if ('${OPAQUE_TAG}' in v) return customEncoded(v.${OPAQUE_TAG} as number, Buffer.from(v.hex as string, 'hex'));`,
    );
  }
  out.line("return fail(`an object of $-keys that is no known scalar: ${Object.keys(v).join(', ')}`);");
  out.close();
  if (!custom) return;
  out.line('/** custom-data: custom-type, data-length, binary-data. */');
  out.open('function customEncoded(kind: number, data: Uint8Array): Encoded {');
  out.line('const bytes = [kind, ...dataLengthBytes(data.length)];');
  out.line('for (let i = 0; i < data.length; i++) bytes.push(data[i]!);');
  out.line(`return [${hex(custom.code)}, bytes];`);
  out.close();
}

/**
 * A container in format f: element-count, size, key-entries, value-entries, keys, values; undefined where it does not
 * fit.
 */
function containerIn(out: Lines, j: IrBinaryJson, f: number): void {
  const c = j.containers;
  const [count, size, keyOffset, keyLength, valueOffset] = [
    c.elementCount,
    c.size,
    c.keyOffset,
    c.keyLength,
    c.valueOffset,
  ].map((w) => widthIn(w, f, j)) as [number, number, number, number, number];
  const types = (kind: 'object' | 'array') => j.values.find((v) => v.kind === kind && v.format === f)!.code;
  const inlined = j.values.filter(
    (v): v is Num | Extract<IrJsonbValue, { kind: 'literal' }> =>
      (v.kind === 'number' || v.kind === 'literal') && v.inlined.includes(f),
  );
  const signedInlined = inlined.filter((v) => v.kind === 'number' && v.signed).map((v) => `type === ${hex(v.code)}`);
  const max = (w: number) => 2 ** (8 * w) - 1;
  out.open(
    `function ${formatName(j, f)}Container(entries: Entries, object: boolean, path: string): Encoded | undefined {`,
  );
  out.line('const n = entries.length;');
  out.line("const keys = object ? entries.map(([k]) => encoder.encode(k ?? '')) : [];");
  out.line(`let at = ${count + size} + (object ? n * ${keyOffset + keyLength} : 0) + n * ${1 + valueOffset};`);
  out.line('const keyEntries: number[] = [];');
  out.line('let keyAt = at;');
  out.line('for (const k of keys) at += k.length;');
  out.open('for (const k of keys) {');
  out.line(`if (k.length > ${max(keyLength)}) return fail('a key of more than ${max(keyLength)} bytes');`);
  out.line(`put(keyEntries, keyAt, ${keyOffset});`);
  out.line(`put(keyEntries, k.length, ${keyLength});`);
  out.line('keyAt += k.length;');
  out.close();
  out.line('const valueEntries: number[] = [];');
  out.line('const values: number[] = [];');
  out.open('for (const [, v] of entries) {');
  out.line(`const encoded = encodeValue(v, ${f}, path);`);
  out.line('if (!encoded) return undefined;');
  out.line('const [type, body] = encoded;');
  out.line('valueEntries.push(type);');
  const inlinedCond = inlined.map((v) => `type === ${hex(v.code)}`).join(' || ') || 'false';
  out.open(`if (${inlinedCond}) {`);
  out.line(
    "// The value in the offset's place: a signed one sign-extended, a literal or an unsigned one zero-extended.",
  );
  out.line('const u = body.reduce((x, b, i) => x + (BigInt(b) << BigInt(8 * i)), 0n);');
  const value = signedInlined.length ? `${signedInlined.join(' || ')} ? BigInt.asIntN(8 * body.length, u) : u` : 'u';
  out.line(`valueEntries.push(...le(${value}, ${valueOffset}));`);
  out.line('continue;');
  out.close();
  out.line(`put(valueEntries, at, ${valueOffset});`);
  out.line('for (let i = 0; i < body.length; i++) values.push(body[i]!);');
  out.line('at += body.length;');
  out.close();
  out.line(`if (at > ${max(size)} || n > ${max(count)}) return undefined;`);
  out.line('const bytes: number[] = [];');
  out.line(`put(bytes, n, ${count});`);
  out.line(`put(bytes, at, ${size});`);
  out.line(
    'for (const part of [keyEntries, valueEntries]) for (let i = 0; i < part.length; i++) bytes.push(part[i]!);',
  );
  out.line('for (const k of keys) for (let i = 0; i < k.length; i++) bytes.push(k[i]!);');
  out.line('for (let i = 0; i < values.length; i++) bytes.push(values[i]!);');
  out.line(`return [object ? ${hex(types('object'))} : ${hex(types('array'))}, bytes];`);
  out.close();
}
