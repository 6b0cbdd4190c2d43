/**
 * The `oldRowImages` section as TypeScript: the facts the layout reads, as interfaces; the layout of the
 * null bytes over a table's columns (each column's null bit and first-packed-byte bits, the byte count,
 * the bits every record sets); the bit arithmetic of those bytes; and the most bytes a column packs to.
 */
import type { SourceFile } from 'ts-morph';
import { compileExpr, type Expr } from '../expr.js';
import type { IrOldFact, IrOldRowImages } from '../ir/types.js';
import { addSmallFunctions, bitMaskExpr, docs, type SmallFunction } from './print.js';

export function emitOldRowImages(sf: SourceFile, ri: IrOldRowImages): void {
  emitFacts(
    sf,
    'OldRowTable',
    "oldRowImages.table: what a table's definition says that its rows v0 images' layout reads.",
    ri.table,
  );
  emitFacts(
    sf,
    'OldRowColumn',
    "oldRowImages.column: what a column's definition says that its rows v0 images' layout reads.",
    ri.column,
  );
  emitBitArithmetic(sf, ri);
  emitLayout(sf, ri);
  emitRowBits(sf);
  emitLongest(sf, ri);
}

function emitFacts(sf: SourceFile, name: string, doc: string, facts: IrOldFact[]): void {
  sf.addInterface({
    name,
    isExported: true,
    docs: [doc],
    properties: facts.map((f) => ({
      name: f.name,
      type: f.type,
      hasQuestionToken: f.optional,
      docs: f.doc ? [f.doc] : [],
    })),
  });
}

/**
 * Compiles a layout expression: the table's facts read from `table`, a column's from `column` (an optional one where
 * the `if` has it).
 */
function compile(ri: IrOldRowImages, e: Expr): string {
  return compileExpr(e, (id) => {
    const column = ri.column.find((f) => f.name === id);
    return column ? `column.${id}${column.optional ? '!' : ''}` : `table.${id}`;
  });
}

/** Bit k of the null bytes: its byte, and its mask by the section's bit order. */
function emitBitArithmetic(sf: SourceFile, ri: IrOldRowImages): void {
  const order = ri.msb ? 'most significant bit first' : 'least significant bit first';
  sf.addFunction({
    name: 'oldNullMask',
    docs: [`oldRowImages.nullBytes: the mask of bit k in its byte, k / 8 (${order}).`],
    parameters: [{ name: 'k', type: 'number' }],
    returnType: 'number',
    statements: `return ${bitMaskExpr(ri.msb)};`,
  });
  const fns: SmallFunction[] = [
    [
      'oldNullBit',
      'bytes: Uint8Array, k: number',
      'boolean',
      'Whether bit k of the null bytes is set.',
      'return (bytes[k >>> 3]! & oldNullMask(k)) !== 0;',
    ],
    [
      'setOldNullSpan',
      'bytes: Uint8Array, at: number, count: number',
      'void',
      'Sets the `count` bits from bit `at`.',
      'for (let k = at; k < at + count; k++) bytes[k >>> 3]! |= oldNullMask(k);',
    ],
    [
      'setOldNullBits',
      'bytes: Uint8Array, at: number, count: number, value: number',
      'void',
      'Sets the `count` bits from bit `at` that are set in `value`, its least significant bit at `at`.',
      'for (let k = 0; k < count; k++) if ((value >> k) & 1) setOldNullSpan(bytes, at + k, 1);',
    ],
    [
      'oldBitDiffering',
      'mask: Uint8Array, a: Uint8Array, b: Uint8Array',
      'number | undefined',
      'The first bit set in `mask` where the null bytes `a` and `b` differ.',
      'for (let k = 0; k < mask.length * 8; k++) if (oldNullBit(mask, k) && oldNullBit(a, k) !== oldNullBit(b, k)) ' +
        'return k;\nreturn undefined;',
    ],
  ];
  addSmallFunctions(sf, 'oldRowImages.nullBytes', fns, (name) => name === 'oldNullBit' || name === 'oldBitDiffering');
}

/** The layout's types and the function that gives out the bits, the record's then each column's. */
function emitLayout(sf: SourceFile, ri: IrOldRowImages): void {
  sf.addInterface({
    name: 'OldColumnBits',
    isExported: true,
    docs: ["Where a column's bits are in the null bytes (oldRowImages.nullBytes.columns)."],
    properties: [
      {
        name: 'nullBit',
        type: 'number',
        hasQuestionToken: true,
        docs: ['Its null bit, when it has one (holds: isNull).'],
      },
      {
        name: 'firstPackedByte',
        type: '{ at: number; count: number }',
        hasQuestionToken: true,
        docs: [
          "The bits holding its packed form's first byte, its low `count` bits from bit `at` (holds: firstPackedByte).",
        ],
      },
    ],
  });
  sf.addInterface({
    name: 'OldNullBytes',
    isExported: true,
    docs: ["A table's null bytes, as its rows v0 images copy them."],
    properties: [
      { name: 'bytes', type: 'number', docs: ['How many there are.'] },
      { name: 'columns', type: 'OldColumnBits[]', docs: ["Each column's bits, in column order."] },
      {
        name: 'alwaysSet',
        type: 'Uint8Array',
        docs: [`The bits every record sets: the record's own${ri.spareSet ? ' and the unused last ones' : ''}.`],
      },
    ],
  });
  const record = ri.record.map((b) => `if (${compile(ri, b.cond)}) bit += ${compile(ri, b.count)}; // ${b.name}`);
  const columns = ri.columns.map((b) =>
    b.holds === 'isNull'
      ? `if (${compile(ri, b.cond)}) {\nc.nullBit = bit;\nbit += ${compile(ri, b.count)};\n}`
      : `if (${compile(ri, b.cond)}) {\nconst count = ${compile(ri, b.count)};\nif (count) c.firstPackedByte = { at: ` +
        `bit, count };\nbit += count;\n}`,
  );
  sf.addFunction({
    name: 'oldNullBytesLayout',
    isExported: true,
    docs: docs(
      `${ri.doc ?? 'Rows v0 images.'}\nThe null bytes of a table with these columns: the record's bits first, ` +
        `then each column's in column order.`,
    ),
    parameters: [
      { name: 'table', type: 'OldRowTable' },
      { name: 'columns', type: 'readonly OldRowColumn[]' },
    ],
    returnType: 'OldNullBytes',
    statements: [
      'let bit = 0;',
      ...record,
      'const recordBits = bit;',
      'const placed = columns.map((column): OldColumnBits => {',
      'const c: OldColumnBits = {};',
      ...columns,
      'return c;',
      '});',
      'const bytes = (bit + 7) >>> 3;',
      'const alwaysSet = new Uint8Array(bytes);',
      'setOldNullSpan(alwaysSet, 0, recordBits);',
      ...(ri.spareSet ? ['setOldNullSpan(alwaysSet, bit, bytes * 8 - bit);'] : []),
      'return { bytes, columns: placed, alwaysSet };',
    ].join('\n'),
  });
}

/** A row's bits: its NULL columns' null bits, and the first packed byte's bits of the columns that keep them. */
function emitRowBits(sf: SourceFile): void {
  sf.addFunction({
    name: 'setOldColumnBits',
    isExported: true,
    docs: [
      "oldRowImages.nullBytes: sets a column's bits in a row's null bytes: its null bit when it is NULL, " +
        "and its packed form's first byte's bits.",
    ],
    parameters: [
      { name: 'bytes', type: 'Uint8Array' },
      { name: 'c', type: 'OldColumnBits' },
      { name: 'isNull', type: 'boolean' },
      { name: 'packed', type: 'Uint8Array' },
    ],
    returnType: 'void',
    statements: [
      'if (isNull && c.nullBit !== undefined) setOldNullSpan(bytes, c.nullBit, 1);',
      'if (c.firstPackedByte) setOldNullBits(bytes, c.firstPackedByte.at, c.firstPackedByte.count, packed[0]!);',
    ].join('\n'),
  });
  sf.addFunction({
    name: 'oldDecidedBits',
    isExported: true,
    docs: [
      "oldRowImages.nullBytes: the bits a row of these columns decides: the ones every record sets and the columns' " +
        'null bits.',
    ],
    parameters: [
      { name: 'layout', type: 'OldNullBytes' },
      { name: 'columns', type: 'readonly OldColumnBits[]' },
    ],
    returnType: 'Uint8Array',
    statements: [
      'const out = layout.alwaysSet.slice();',
      'for (const c of columns) if (c.nullBit !== undefined) setOldNullSpan(out, c.nullBit, 1);',
      'return out;',
    ].join('\n'),
  });
}

function emitLongest(sf: SourceFile, ri: IrOldRowImages): void {
  sf.addFunction({
    name: 'oldLongestPacked',
    isExported: true,
    docs: ["oldRowImages.longest: the most bytes the column's packed form has, where the section says."],
    parameters: [{ name: 'column', type: 'OldRowColumn' }],
    returnType: 'number | undefined',
    statements: `return ${compile(ri, ri.longest.cond)} ? ${compile(ri, ri.longest.bytes)} : undefined;`,
  });
}
