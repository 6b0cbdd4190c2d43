/**
 * The `rowImages` section as TypeScript: the walk over a row change's parts that every path (decode,
 * lazy views, the dump's JSON, encode) takes with its own steps, the null bitmap's bit arithmetic, the
 * value options read and written with their known bits checked, and the compiler of an image's code for
 * one list of present columns.
 */
import { type SourceFile, VariableDeclarationKind } from 'ts-morph';
import type { IrRowImages } from '../ir/types.js';
import type { Module } from './module.js';
import type { RuntimeType } from './runtime-names.js';
import { addSmallFunctions, bitMaskExpr, docs, q, type SmallFunction } from './print.js';

export function emitRowImages(sf: SourceFile, m: Module, ri: IrRowImages): void {
  emitWalk(sf, ri);
  emitNulls(sf, ri);
  emitOptions(sf, m, ri);
  emitImageCompiler(sf, m);
}

function emitWalk(sf: SourceFile, ri: IrRowImages): void {
  const images = ri.parts.filter((p) => p.part !== 'options').map((p) => p.part);
  sf.addTypeAlias({ name: 'RowImageName', isExported: true, docs: ["A change's images, by the keys a change holds them under."], type: images.map(q).join(' | ') });
  sf.addFunction({
    name: 'rowImagePaths',
    isExported: true,
    docs: ['The schema paths of a change\'s images, under the path of the rows.'],
    parameters: [{ name: 'path', type: 'string' }],
    returnType: 'Record<RowImageName, string>',
    statements: `return { ${images.map((i) => `${i}: \`\${path}.${i}\``).join(', ')} };`,
  });
  const sc = [{ name: 's', type: 'S' }, { name: 'change', type: 'C' }];
  sf.addInterface({
    name: 'RowChangeSteps',
    isExported: true,
    typeParameters: ['S', 'C'],
    docs: [
      "A row change's parts as one path takes them (rowImages.change), a method each: it reads, steps over or writes that part, from or to `s`. (A method per image lets a hot path store each image under its own name.)",
    ],
    methods: ri.parts.map(({ part }) => ({ name: part, parameters: sc, returnType: 'void' })),
  });
  sf.addFunction({
    name: 'stepsByImage',
    isExported: true,
    typeParameters: ['S', 'C'],
    docs: ['RowChangeSteps from one function for every image, given its name, and one for the value options.'],
    parameters: [
      { name: 'image', type: '(s: S, change: C, image: RowImageName) => void' },
      { name: 'options', type: '(s: S, change: C) => void' },
    ],
    returnType: 'RowChangeSteps<S, C>',
    statements: `return { ${ri.parts.map(({ part }) => (part === 'options' ? 'options' : `${part}: (s, change) => image(s, change, ${q(part)})`)).join(', ')} };`,
  });
  const steps = ri.parts.map(({ part, flag, bit }) => `if (images & ${bit} /* ${ri.images}.${flag} */) steps.${part}(s, change);`);
  sf.addFunction({
    name: 'walkRowChange',
    isExported: true,
    typeParameters: ['S', 'C'],
    docs: docs(`${ri.doc ?? 'A row change.'}\nOne change's parts, in the order they are stored, each where the event's \`images\` have its bit.`),
    parameters: [{ name: 's', type: 'S' }, { name: 'images', type: 'number' }, { name: 'change', type: 'C' }, { name: 'steps', type: 'RowChangeSteps<S, C>' }],
    returnType: 'void',
    statements: steps.join('\n'),
  });
}

/** The null bitmap's arithmetic, by its bit order and the unused bits servers write. */
function emitNulls(sf: SourceFile, ri: IrRowImages): void {
  const { msb, spareSet } = ri.nulls;
  const order = msb ? 'most significant bit first' : 'least significant bit first';
  const fns: SmallFunction[] = [
    ['nullBitmapBytes', 'n: number', 'number', "The bytes of an image's null bitmap over `n` present columns.", 'return (n + 7) >>> 3;'],
    ['nullByte', 'k: number', 'number', "The byte of the bitmap holding the image's k-th present column's bit.", 'return k >>> 3;'],
    ['nullBitMask', 'k: number', 'number', `The mask of the image's k-th present column's bit in its byte (${order}).`, `return ${bitMaskExpr(msb)};`],
    ['nullSpareOf', 'last: number, n: number', 'number', "The unused bits of an n-column null bitmap's last byte, as a number.", msb ? 'return n & 7 ? last & (0xff >>> (n & 7)) : 0;' : 'return n & 7 ? last >>> (n & 7) : 0;'],
    [
      'setNullSpare',
      'buf: Uint8Array, nulls: number, n: number, spare: number',
      'void',
      'Stores the unused bits `spare` (as nullSpareOf gives them) in the last byte of the n-column null bitmap at `buf[nulls]`, before any null bit is set.',
      msb ? 'if (n & 7) buf[nulls + (n >>> 3)] = spare & (0xff >>> (n & 7));' : 'if (n & 7) buf[nulls + (n >>> 3)] = (spare << (n & 7)) & 0xff;',
    ],
    spareSet
      ? ['serverNullSpare', 'n: number', 'number', 'The unused bits servers write (all set), as nullSpareOf gives them.', 'return n & 7 ? 0xff >>> (n & 7) : 0;']
      : ['serverNullSpare', '_n: number', 'number', 'The unused bits servers write (all clear), as nullSpareOf gives them.', 'return 0;'],
  ];
  addSmallFunctions(sf, 'rowImages.nulls', fns);
}

/** The value options read and written as the options struct says, a bit the `known` flags do not name refused. */
function emitOptions(sf: SourceFile, m: Module, ri: IrRowImages): void {
  const { struct, field, known, mask } = ri.options;
  const unknown = `v.${field} !== (v.${field} & ${mask} /* ${known} */)`;
  const problem = `\`${field} \${v.${field}} has a bit ${known} does not name\``;
  const params = [{ name: 'covered', type: 'number' }, { name: 'path', type: 'string' }];
  const { enum: types, codes } = ri.options.covers;
  const test = codes.map(([name, code]) => `c.realType === ${code} /* ${types}.${name} */`).join(' || ');
  sf.addFunction({
    name: 'rowOptionColumns',
    isExported: true,
    typeParameters: ['C extends { realType: number }'],
    docs: [`The columns a row's value options have a bit for (rowImages.options.covers), in column order.`],
    parameters: [{ name: 'columns', type: 'readonly C[]' }],
    returnType: 'C[]',
    statements: `return columns.filter((c) => ${test});`,
  });
  sf.addFunction({
    name: 'decodeRowOptions',
    isExported: true,
    docs: [`Reads a row's value options (rowImages.options: ${struct}), placed at \`path\`; a bit ${known} does not name is refused.`],
    parameters: [{ name: 'r', type: m.rtType('Reader') }, { name: 'ctx', type: m.context() }, ...params],
    returnType: m.structType(struct, false),
    statements: [
      `const v = ${m.rt('placedAt')}(() => ${m.structFn('decode', struct)}(r, ctx, covered), ${q(struct)}, path);`,
      `if (${unknown}) throw new ${m.rt('InvalidValueError')}(${problem}, { offset: r.offset, schemaPath: \`\${path}.${field}\` });`,
      'return v;',
    ].join('\n'),
  });
  sf.addFunction({
    name: 'encodeRowOptions',
    isExported: true,
    docs: [`Writes a row's value options (rowImages.options: ${struct}), placed at \`path\`; a bit ${known} does not name is refused.`],
    parameters: [{ name: 'w', type: m.rtType('Writer') }, { name: 'v', type: m.structType(struct, true) }, { name: 'ctx', type: m.context() }, ...params],
    returnType: 'void',
    statements: [
      `if (${unknown}) throw new ${m.rt('EncodeError')}(${problem}, \`\${path}.${field}\`);`,
      `${m.rt('placedAt')}(() => ${m.structFn('encode', struct)}(w, v, ctx, covered), ${q(struct)}, path);`,
    ].join('\n'),
  });
}

/** RowImageCode's functions: each one's parameters (the names rowImageSource's bodies use), result and doc. */
const IMAGE_CODE = {
  read: { params: ['r: Reader', 'nulls: number', 'cells: CellReader[]'], returns: 'Row', doc: 'The values after the null bitmap at `r.buf[nulls]`, as one row object.' },
  skip: {
    params: ['r: Reader', 'nulls: number', 'skippers: CellSkipper[]', 'offsets: number[]'],
    returns: 'void',
    doc: "Steps over the values, pushing each one's offset in `r.buf` (-1 for a NULL) onto `offsets`: lazy rows.",
  },
  write: {
    params: ['w: Writer', 'row: Row', 'nulls: number', 'writers: CellWriter[]'],
    returns: 'number',
    doc: "Writes a row's values after its null bitmap at `w.buf[nulls]`, setting its nulls' bits; the index of the first column without a value, or -1.",
  },
  json: {
    params: ['r: Reader', 'nulls: number', 'jsons: CellJsonWriter[]', 'w: JsonBytes'],
    returns: 'void',
    doc: "Writes the image's JSON object as `read`'s row would be written; undefined where an object would not keep the names' order.",
  },
} as const;

/** A parameter's or result's type, its runtime types imported. */
function typed(m: Module, text: string): string {
  return text.replace(/\b(Reader|Writer|JsonBytes|Row|CellReader|CellSkipper|CellWriter|CellJsonWriter)\b/g, (name) => m.rtType(name as RuntimeType));
}

/**
 * image ::= null-bitmap value*, as code specialised for one list of present columns: `rowImageSource`
 * gives its functions' bodies, which the runtime compiles (runtime/rows/images.ts), since the list comes
 * from a TABLE_MAP; what they say of the image is the null-bitmap helpers' above. The emitted body builds
 * source text: its lines are quoted here, so that their template literals are the emitted code's own.
 */
function emitImageCompiler(sf: SourceFile, m: Module): void {
  sf.addInterface({
    name: 'RowImageCode',
    isExported: true,
    docs: ["An image's code for one list of present columns (compiled from rowImageSource's bodies); each takes the offset of the image's null bitmap."],
    properties: Object.entries(IMAGE_CODE).map(([name, { params, returns, doc }]) => {
      const fn = `(${params.map((p) => typed(m, p)).join(', ')}) => ${typed(m, returns)}`;
      return { name, type: name === 'json' ? `(${fn}) | undefined` : fn, docs: [doc] };
    }),
  });
  const [stores, keepsOrder, key] = [m.rt('jsonStoresCode'), m.rt('keepsKeyOrder'), m.rt('jsonKey')];
  const body = [
    "// A set bit is a NULL, which has no value in the image.",
    "const bit = (k: number) => `nulls + ${nullByte(k)}] & ${nullBitMask(k)}`;",
    "// In a literal, a plain \"__proto__\" key would set the prototype; a computed one is a property.",
    "const prop = (name: string) => (name === '__proto__' ? '[\"__proto__\"]' : JSON.stringify(name));",
    "const reads = names.map((name, k) => `${prop(name)}: b[${bit(k)} ? null : cells[${k}](r)`);",
    "const writes = names.map((name, k) => {",
    "  const n = JSON.stringify(name);",
    "  return `v = row[${n}];\\nif (v === undefined && !(${n} in row)) return ${k};\\nif (v === null) w.buf[${bit(k).replace('&', '|=')};\\nelse writers[${k}](w, v);`;",
    "});",
    "const skips = names.map((_, k) => `if (b[${bit(k)}) offsets.push(-1);\\nelse (offsets.push(r.pos), skippers[${k}](r));`);",
    `const member = (k: number) => ${stores}(Buffer.concat([Buffer.of(k ? 0x2c : 0x7b), ${key}(names[k]!)]));`,
    `const jsons = names.map((_, k) => \`\${member(k)}\\nif (b[\${bit(k)}) \${${stores}(NULL_BYTES)}\\nelse jsons[\${k}](r, w);\`);`,
    `const [open, close] = [${stores}(Buffer.of(0x7b)), ${stores}(Buffer.of(0x7d))];`,
    'return {',
    "  read: `const b = r.buf;\\nreturn {${reads.join(',\\n')}};`,",
    "  skip: `const b = r.buf;\\n${skips.join('\\n')}`,",
    "  write: `let v;\\n${writes.join('\\n')}\\nreturn -1;`,",
    `  json: ${keepsOrder}(names) ? \`const b = r.buf;\\nlet o, p;\\n\${names.length ? '' : open}\\n\${jsons.join('\\n')}\\n\${close}\` : undefined,`,
    '};',
  ];
  const params = Object.entries(IMAGE_CODE).map(([name, { params }]) => `${name}: [${params.map((p) => q(p.split(':')[0]!)).join(', ')}],`);
  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{ name: 'ROW_IMAGE_PARAMS', initializer: `{\n${params.join('\n')}\n} as const` }],
    docs: ["The parameters of each of RowImageCode's functions, which rowImageSource's bodies use."],
  });
  sf.addTypeAlias({
    name: 'RowImageSource',
    isExported: true,
    docs: ["The bodies of RowImageCode's functions (no JSON writer's where an object would not keep the names' order)."],
    type: "Record<Exclude<keyof RowImageCode, 'json'>, string> & { json: string | undefined }",
  });
  sf.addVariableStatement({ declarations: [{ name: 'NULL_BYTES', initializer: "Buffer.from('null')" }], declarationKind: VariableDeclarationKind.Const, docs: ['JSON null.'] });
  sf.addFunction({
    name: 'rowImageSource',
    isExported: true,
    docs: [
      "rowImages: the bodies of an image's code for one list of present columns (RowImageCode's, whose parameters ROW_IMAGE_PARAMS names), compiled by the runtime. The reader builds each row as one object literal (one hidden class for every row of the list) and reads each cell at a call site of its own, which stays monomorphic. The names go in as JSON string literals, never as code; the JSON writer's as the numbers of their bytes; no JSON writer where an object would not keep the names' order.",
    ],
    parameters: [{ name: 'names', type: 'readonly string[]' }],
    returnType: 'RowImageSource',
    statements: body.join('\n'),
  });
}
