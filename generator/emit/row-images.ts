/**
 * The `rowImages` section as TypeScript: the walk over a row change's parts that every path (decode,
 * lazy views, the dump's JSON, encode) takes with its own steps, the null bitmap's bit arithmetic, and
 * the value options read and written with their known bits checked. The code of an image for one list of
 * present columns is composed from these at run time (runtime/rows/image-code.ts); no source text is
 * emitted for it.
 */
import type { SourceFile } from 'ts-morph';
import type { IrRowImages } from '../ir/types.js';
import type { Module } from './module.js';
import { addSmallFunctions, bitMaskExpr, docs, q, type SmallFunction } from './print.js';

export function emitRowImages(sf: SourceFile, m: Module, ri: IrRowImages): void {
  emitWalk(sf, ri);
  emitNulls(sf, ri);
  emitOptions(sf, m, ri);
}

function emitWalk(sf: SourceFile, ri: IrRowImages): void {
  const images = ri.parts.filter((p) => p.part !== 'options').map((p) => p.part);
  sf.addTypeAlias({
    name: 'RowImageName',
    isExported: true,
    docs: ["A change's images, by the keys a change holds them under."],
    type: images.map(q).join(' | '),
  });
  sf.addFunction({
    name: 'rowImagePaths',
    isExported: true,
    docs: ["The schema paths of a change's images, under the path of the rows."],
    parameters: [{ name: 'path', type: 'string' }],
    returnType: 'Record<RowImageName, string>',
    statements: `return { ${images.map((i) => `${i}: \`\${path}.${i}\``).join(', ')} };`,
  });
  const sc = [
    { name: 's', type: 'S' },
    { name: 'change', type: 'C' },
  ];
  sf.addInterface({
    name: 'RowChangeSteps',
    isExported: true,
    typeParameters: ['S', 'C'],
    docs: [
      "A row change's parts as one path takes them (rowImages.change), a method each: it reads, " +
        'steps over or writes that part, from or to `s`. (A method per image lets a hot path store each image under ' +
        'its own name.)',
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
    statements: `return { ${ri.parts.map(({ part }) => changeStep(part)).join(', ')} };`,
  });
  const steps = ri.parts.map(
    ({ part, flag, bit }) => `if (images & ${bit} /* ${ri.images}.${flag} */) steps.${part}(s, change);`,
  );
  sf.addFunction({
    name: 'walkRowChange',
    isExported: true,
    typeParameters: ['S', 'C'],
    docs: docs(
      `${ri.doc ?? 'A row change.'}\nOne change's parts, in the order they are stored, ` +
        `each where the event's \`images\` have its bit.`,
    ),
    parameters: [
      { name: 's', type: 'S' },
      { name: 'images', type: 'number' },
      { name: 'change', type: 'C' },
      { name: 'steps', type: 'RowChangeSteps<S, C>' },
    ],
    returnType: 'void',
    statements: steps.join('\n'),
  });
}

/** The null bitmap's arithmetic, by its bit order and the unused bits servers write. */
/** A part's entry in the object of steps: the options have their own method; an image is read by image(). */
function changeStep(part: IrRowImages['parts'][number]['part']): string {
  return part === 'options' ? 'options' : `${part}: (s, change) => image(s, change, ${q(part)})`;
}

function emitNulls(sf: SourceFile, ri: IrRowImages): void {
  const { msb, spareSet } = ri.nulls;
  const order = msb ? 'most significant bit first' : 'least significant bit first';
  const fns: SmallFunction[] = [
    [
      'nullBitmapBytes',
      'n: number',
      'number',
      "The bytes of an image's null bitmap over `n` present columns.",
      'return (n + 7) >>> 3;',
    ],
    [
      'nullByte',
      'k: number',
      'number',
      "The byte of the bitmap holding the image's k-th present column's bit.",
      'return k >>> 3;',
    ],
    [
      'nullBitMask',
      'k: number',
      'number',
      `The mask of the image's k-th present column's bit in its byte (${order}).`,
      `return ${bitMaskExpr(msb)};`,
    ],
    [
      'nullSpareOf',
      'last: number, n: number',
      'number',
      "The unused bits of an n-column null bitmap's last byte, as a number.",
      msb ? 'return n & 7 ? last & (0xff >>> (n & 7)) : 0;' : 'return n & 7 ? last >>> (n & 7) : 0;',
    ],
    [
      'setNullSpare',
      'buf: Uint8Array, nulls: number, n: number, spare: number',
      'void',
      'Stores the unused bits `spare` (as nullSpareOf gives them) in the last byte of the n-column null bitmap at ' +
        '`buf[nulls]`, before any null bit is set.',
      msb
        ? 'if (n & 7) buf[nulls + (n >>> 3)] = spare & (0xff >>> (n & 7));'
        : 'if (n & 7) buf[nulls + (n >>> 3)] = (spare << (n & 7)) & 0xff;',
    ],
    spareSet
      ? [
          'serverNullSpare',
          'n: number',
          'number',
          'The unused bits servers write (all set), as nullSpareOf gives them.',
          'return n & 7 ? 0xff >>> (n & 7) : 0;',
        ]
      : [
          'serverNullSpare',
          '_n: number',
          'number',
          'The unused bits servers write (all clear), as nullSpareOf gives them.',
          'return 0;',
        ],
  ];
  addSmallFunctions(sf, 'rowImages.nulls', fns);
}

/** The value options read and written as the options struct says, a bit the `known` flags do not name refused. */
function emitOptions(sf: SourceFile, m: Module, ri: IrRowImages): void {
  const { struct, field, known, mask } = ri.options;
  const unknown = `v.${field} !== (v.${field} & ${mask} /* ${known} */)`;
  const problem = `\`${field} \${v.${field}} has a bit ${known} does not name\``;
  const params = [
    { name: 'covered', type: 'number' },
    { name: 'path', type: 'string' },
  ];
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
    docs: [
      `Reads a row's value options (rowImages.options: ${struct}), placed at \`path\`; ` +
        `a bit ${known} does not name is refused.`,
    ],
    parameters: [{ name: 'r', type: m.rtType('Reader') }, { name: 'ctx', type: m.context() }, ...params],
    returnType: m.structType(struct, false),
    statements: [
      `const v = ${m.rt('placedAt')}(() => ${m.structFn('decode', struct)}(r, ctx, covered), ${q(struct)}, path);`,
      `if (${unknown}) throw new ${m.rt('InvalidValueError')}(${problem}, { offset: r.offset, schemaPath: ` +
        `\`\${path}.${field}\` });`,
      'return v;',
    ].join('\n'),
  });
  sf.addFunction({
    name: 'encodeRowOptions',
    isExported: true,
    docs: [
      `Writes a row's value options (rowImages.options: ${struct}), placed at \`path\`; ` +
        `a bit ${known} does not name is refused.`,
    ],
    parameters: [
      { name: 'w', type: m.rtType('Writer') },
      { name: 'v', type: m.structType(struct, true) },
      { name: 'ctx', type: m.context() },
      ...params,
    ],
    returnType: 'void',
    statements: [
      `if (${unknown}) throw new ${m.rt('EncodeError')}(${problem}, \`\${path}.${field}\`);`,
      `${m.rt('placedAt')}(() => ${m.structFn('encode', struct)}(w, v, ctx, covered), ${q(struct)}, path);`,
    ].join('\n'),
  });
}
