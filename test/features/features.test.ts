/**
 * The schema language, construct by construct, through the code generated from
 * test/features/schemas/features.yaml. Expected bytes are written out by hand from the schema.
 */
import { describe, expect, it } from 'vitest';
import { BinlogError, LengthError } from '../../runtime/core/errors.js';
import { Reader } from '../../runtime/core/reader.js';
import { Writer } from '../../runtime/core/writer.js';
import { composeImageCode } from '../../runtime/rows/image-code.js';
import type { Context } from './generated/context.js';
import {
  ColumnsMetadataCovers,
  Kind,
  decodeComposite,
  decodeFolded,
  decodeInts,
  decodeKeyed,
  decodeLists,
  decodeSizedKeys,
  decodeStrings,
  encodeComposite,
  encodeFolded,
  FoldedFromJson,
  encodeInts,
  encodeKeyed,
  encodeLists,
  encodeSizedKeys,
  encodeStrings,
  type CompositeInput,
  decodeRowOptions,
  encodeRowOptions,
  Images,
  nullBitMask,
  nullBitmapBytes,
  nullByte,
  nullSpareOf,
  setNullSpare,
  type RowChangeSteps,
  rowImagePaths,
  rowOptionColumns,
  serverNullSpare,
  walkRowChange,
  stepsByImage,
  oldBitDiffering,
  oldDecidedBits,
  oldLongestPacked,
  oldNullBit,
  oldNullBytesLayout,
  type OldRowColumn,
  setOldColumnBits,
  countedCell,
} from './generated/features.js';
import type { CellColumn } from '../../runtime/core/values.js';

const ctx: Context = { version: 2 };
const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function encodeWith<T>(encode: (w: Writer, v: T, c: Context) => void, v: T, c = ctx): string {
  const w = new Writer(1);
  encode(w, v, c);
  return toHex(w.finish());
}

function fails(fn: () => unknown): BinlogError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BinlogError) return e;
    throw e;
  }
  throw new Error('did not fail');
}

describe('integers', () => {
  const bytes = hex(`
    ff  3412  563412  78563412  0102030405  010203040506  01020304050607  0102030405060708
    80  feff  ffff7f  00000080  ffffffffff  000000000080  ffffffffffffff  0000000000000080
    1234  fffffe  010203040506  fffffffffffffffe
    0000c03f  000000000000f0bf
    fc0001  fe0000000000000080`);
  const value = {
    u8: 255,
    u16: 0x1234,
    u24: 0x123456,
    u32: 0x12345678,
    u40: 0x0504030201,
    u48: 0x060504030201,
    u56: 0x07060504030201n,
    u64: 0x0807060504030201n,
    i8: -128,
    i16: -2,
    i24: 0x7fffff,
    i32: -0x80000000,
    i40: -1,
    i48: -(2 ** 47),
    i56: -1n,
    i64: -(2n ** 63n),
    u16be: 0x1234,
    i24be: -2,
    u48be: 0x010203040506,
    i64be: -2n,
    f32: 1.5,
    f64: -1,
    packed: 256,
    packed64: 2n ** 63n,
  };
  it('decode each width, sign and byte order as the schema says', () => {
    expect(decodeInts(new Reader(bytes), ctx)).toEqual(value);
  });
  it('encode to the same bytes', () => {
    expect(encodeWith(encodeInts, value)).toBe(toHex(bytes));
  });
  it('a truncated run names the first field of the run and the offset', () => {
    const e = fails(() => decodeInts(new Reader(bytes.subarray(0, 10), 0, 10, 1000), ctx));
    expect(e.kind).toBe('truncated');
    expect(e.offset).toBe(1000);
    expect(e.schemaPath).toBe('Ints.u8');
  });
});

describe('strings and bytes', () => {
  // nameLength 3 "abc" | u8-prefixed "hi" | packed-prefixed 2 bytes | "w" NUL | padded(8) "pad" | 2 bytes | rest
  const bytes = hex('03 616263  02 6869  02 ffee  77 00  706164 0000000000  0102  7461696c');
  const value = {
    nameLength: 3,
    name: 'abc',
    short: 'hi',
    blob: hex('ffee'),
    word: 'w',
    fixed: 'pad',
    pair: hex('0102'),
    tail: 'tail',
  };
  it('decode each delimiting', () => {
    expect(decodeStrings(new Reader(bytes), ctx)).toEqual(value);
  });
  it('encode computes the derived length', () => {
    const { nameLength: _, ...input } = value;
    expect(encodeWith(encodeStrings, input)).toBe(toHex(bytes));
  });
  it('an edited string of another length gets a new length', () => {
    expect(encodeWith(encodeStrings, { ...value, name: 'wxyz' }).slice(0, 10)).toBe('04' + '7778797a');
  });
  it('a length past the end is refused before reading', () => {
    const e = fails(() => decodeStrings(new Reader(hex('09 6162')), ctx));
    expect(e.kind).toBe('length');
    expect(e.schemaPath).toBe('Strings.name');
  });
  it('bytes that are not UTF-8 stay bytes, and go back the same', () => {
    const raw = hex('01 ff  00  00 00  0000000000000000  0000');
    const v = decodeStrings(new Reader(raw), ctx);
    expect(v.name).toEqual(hex('ff'));
    expect(encodeWith(encodeStrings, v)).toBe(toHex(raw));
  });
  it('a fixed-size field of the wrong size is refused on encode', () => {
    const e = fails(() => encodeWith(encodeStrings, { ...value, pair: hex('01') }));
    expect(e.kind).toBe('encode');
    expect(e.schemaPath).toBe('Strings.pair');
  });
});

describe('composite structures', () => {
  // count 2 | points (1,-1) (2,3) | bitCount 9, bits 0b1_0000_0101 | innerSize 2, "ok" | total 11
  // | marker AA | flags 3 | extra 7 | note "n" | color GREEN (2) | square side 0x0102 | versioned 9
  // | scaled: count*2 = 4 bytes | words 1, 2
  const bytes = hex('0200 0100ffff 02000300 09 0501 0200 6f6b 0b aa 03 07000000 016e 02 0201 0900 deadbeef 0100 0200');
  const value = {
    count: 2,
    points: [
      { x: 1, y: -1 },
      { x: 2, y: 3 },
    ],
    bitCount: 9,
    bits: [true, false, true, false, false, false, false, false, true],
    innerSize: 2,
    inner: { label: 'ok' },
    total: 11,
    flags: 3,
    extra: 7,
    note: 'n',
    color: 'GREEN',
    shape: { side: 0x0102 },
    versioned: 9,
    scaled: { data: hex('deadbeef') },
    words: [1, 2],
  };
  it('decode', () => {
    expect(decodeComposite(new Reader(bytes), ctx)).toEqual(value);
  });
  it('encode derives count, size and total', () => {
    const { count: _c, innerSize: _s, total: _t, ...input } = value;
    expect(encodeWith(encodeComposite, input as CompositeInput)).toBe(toHex(bytes));
  });
  it('conditions: absent fields are neither read nor written', () => {
    // flags 0: no extra, no note; color RED → circle; ctx.version 1 → no versioned field
    const small = hex('0000 00 0000 00 aa 00 01 05');
    const v = decodeComposite(new Reader(small), { version: 1 });
    expect(v).toMatchObject({
      count: 0,
      points: [],
      bits: [],
      inner: { label: '' },
      flags: 0,
      color: 'RED',
      shape: { radius: 5 },
      words: [],
    });
    expect(v.extra).toBeUndefined();
    expect(v.versioned).toBeUndefined();
    expect(encodeWith(encodeComposite, v, { version: 1 })).toBe(toHex(small));
  });
  it('a switch value without a case takes the default', () => {
    const v = decodeComposite(new Reader(hex('0000 00 0000 00 aa 00 03')), { version: 1 });
    expect(v.color).toBe('BLUE');
    expect(v.shape).toEqual({});
  });
  it('an enum value without a name stays a number', () => {
    const v = decodeComposite(new Reader(hex('0000 00 0000 00 aa 00 63')), { version: 1 });
    expect(v.color).toBe(0x63);
  });
  it('a constant that is not there is an invalid value', () => {
    const e = fails(() => decodeComposite(new Reader(hex('0000 00 0000 00 ab 00 01 05')), { version: 1 }));
    expect([e.kind, e.schemaPath]).toEqual(['invalid-value', 'Composite.marker']);
  });
  it('a derived value that disagrees is a schema check failure', () => {
    const e = fails(() => decodeComposite(new Reader(hex('0000 00 0000 05 aa 00 01 05')), { version: 1 }));
    expect([e.kind, e.schemaPath]).toEqual(['schema-check', 'Composite.total']);
  });
  it('a sized structure must use all its bytes', () => {
    // inner is a string to the end of its window: it cannot leave bytes, so shrink the window instead
    const e = fails(() => decodeComposite(new Reader(hex('0000 00 0500 6f6b')), { version: 1 }));
    expect([e.kind, e.schemaPath]).toEqual(['length', 'Composite.inner']);
  });
  it('a forged count fails before anything is allocated', () => {
    const e = fails(() => decodeComposite(new Reader(hex('ffff 0100ffff')), ctx));
    expect([e.kind, e.schemaPath]).toEqual(['length', 'Composite.points']);
  });
  it('a present-by-flag field that is missing from the input is an encode error', () => {
    const { extra: _e, ...input } = value;
    const e = fails(() => encodeWith(encodeComposite, input as CompositeInput));
    expect([e.kind, e.schemaPath]).toEqual(['encode', 'Composite.extra']);
  });
  it('an enum name that does not exist is an encode error', () => {
    // A name as a JavaScript caller may give it: any string, which the type narrows to the enum's names.
    const name: string = 'PINK';
    const e = fails(() => encodeWith(encodeComposite, { ...value, color: name } as CompositeInput));
    expect([e.kind, e.schemaPath]).toEqual(['encode', 'Composite.color']);
  });
});

describe('a stored field derived from computed fields after it', () => {
  it('decode computes them from the stored byte', () => {
    expect(decodeFolded(new Reader(hex('4a')), ctx)).toEqual({ byte: 0x4a, high: 4, low: 10 });
  });
  it('encode is given them, and derives the byte (its JSON form too)', () => {
    expect(encodeWith(encodeFolded, { high: 4, low: 10 })).toBe('4a');
    // The stored field of a dump is derived anew: the computed fields are what an edit changes.
    expect(encodeWith(encodeFolded, FoldedFromJson({ byte: 0x4a, high: 5, low: 10 }, '$'))).toBe('5a');
  });
  it('values the stored byte would not read back as are refused', () => {
    // 16 * 16 does not fit the byte (it would store 0); a low of 16 would read back as high 5, low 0.
    for (const [v, back] of [
      [{ high: 16, low: 0 }, 0],
      [{ high: 4, low: 16 }, 5],
    ] as const) {
      const e = fails(() => encodeWith(encodeFolded, v));
      expect([e.kind, e.schemaPath, e.message]).toEqual([
        'encode',
        'Folded.high',
        `high ${v.high} cannot be stored: it would read back as ${back} [in Folded.high]`,
      ]);
    }
  });
});

describe('entry lists', () => {
  // tlvSize 15 | NUMBER len 4 = 5 | NAMES len 4: "a", "b" | code 9 len 1: 0x7f
  // | tagged: SHORT 0x0201 | TEXT "x" NUL | code 200 → the rest raw
  const bytes = hex('0f 01 04 05000000 02 04 0161 0162 09 01 7f  01 0102 02 7800 c8 aabb');
  const value = {
    tlvSize: 15,
    tlv: [
      { code: 'NUMBER', value: 5 },
      { code: 'NAMES', names: ['a', 'b'] },
      { code: 9, raw: hex('7f') },
    ],
    tagged: [
      { code: 'SHORT_CODE', short: 0x0201 },
      { code: 'TEXT_CODE', text: 'x' },
      { code: 200, raw: hex('aabb') },
    ],
  };
  it('decode in stored order, unknown codes raw', () => {
    expect(decodeLists(new Reader(bytes), ctx)).toEqual(value);
  });
  it('encode gives the same bytes', () => {
    expect(encodeWith(encodeLists, value as never)).toBe(toHex(bytes));
  });
  it('a TLV entry that runs past its list is refused', () => {
    const e = fails(() => decodeLists(new Reader(hex('03 01 09 00')), ctx));
    expect(e.kind).toBe('length');
  });
  it('a known TLV entry must fill its length exactly', () => {
    const e = fails(() => decodeLists(new Reader(hex('07 01 05 0500000000')), ctx));
    expect([e.kind, e.schemaPath]).toEqual(['schema-check', 'ListsTlvNumber']);
  });
});

describe('id-keyed fields', () => {
  // size 9 (0x12) | id 0: 5 (0x0a) | id 2: -2 (zigzag 3: 0x06) | id 3: 128 (two bytes: 0x0201 LE of 128 << 2 | 1)
  // | id 7 (0x0e), which no field has: the rest is kept
  const bytes = hex('12 00 0a 04 06 06 0102 0e');
  const value = { size: 9, id: 5, uuid: undefined, delta: -2n, big: 128n, later: hex('0e') };
  it('absent ids leave their fields out; an unknown id keeps the rest', () => {
    expect(decodeKeyed(new Reader(bytes), ctx)).toEqual(value);
  });
  it('encode writes the given fields with their ids, and the size that counts itself', () => {
    expect(encodeWith(encodeKeyed, value)).toBe(toHex(bytes));
    // Id 1, then 0x01 in one byte and 0x81 in two (0x0205 is 129 << 2 | 1): 4 bytes more, 13 in all.
    expect(encodeWith(encodeKeyed, { ...value, uuid: Uint8Array.of(0x01, 0x81) })).toBe('1a000a0202050204060601020e');
  });
  it('a size that is not the structure is a schema check failure', () => {
    const e = fails(() => decodeKeyed(new Reader(hex('14 00 0a')), ctx));
    expect([e.kind, e.schemaPath]).toEqual(['schema-check', 'Keyed.size']);
  });
  it('a size past 127 takes two bytes, and counts them', () => {
    const later = new Uint8Array(130);
    const w = new Writer();
    encodeKeyed(w, { later }, ctx);
    expect(w.pos).toBe(132);
    expect(decodeKeyed(new Reader(w.finish()), ctx).size).toBe(132);
  });
});

describe('sized keys', () => {
  // id 1, length 2, "ab" | id 2, length 3, 300 (0xfc 2c01) | end 0
  const bytes = hex('01 02 6162 02 03 fc2c01 00');
  it('each value read from its own length, written with it', () => {
    expect(decodeSizedKeys(new Reader(bytes), ctx)).toEqual({ name: 'ab', count: 300 });
    expect(encodeWith(encodeSizedKeys, { name: 'ab', count: 300 })).toBe(toHex(bytes));
    expect(encodeWith(encodeSizedKeys, { count: 1 })).toBe('02010100');
  });
  it('a value that does not fill its length is refused', () => {
    const e = fails(() => decodeSizedKeys(new Reader(hex('02 02 01 00 00')), ctx));
    expect([e.kind, e.schemaPath]).toEqual(['schema-check', 'SizedKeys.count']);
  });
  it('read in any order, the last of a repeated id counting, an unknown id kept: written back as stored', () => {
    // count 1 | unknown id 9, length 2, 0xbeef | count 300 | name "ab" | end
    const stored = hex('02 01 01 09 02 beef 02 03 fc2c01 01 02 6162 00');
    const v = decodeSizedKeys(new Reader(stored), ctx);
    expect(v).toEqual({
      name: 'ab',
      count: 300,
      keyOrder: [{ id: 2, bytes: hex('01') }, { id: 9, bytes: hex('beef') }, 2, 1],
    });
    expect(encodeWith(encodeSizedKeys, v)).toBe(toHex(stored));
    // The declared order, once each, needs no keyOrder; without one, encode writes the declared order.
    expect(decodeSizedKeys(new Reader(bytes), ctx).keyOrder).toBeUndefined();
    expect(encodeWith(encodeSizedKeys, { name: 'ab', count: 300 })).toBe(toHex(bytes));
  });
  it('an unknown id whose length runs past the end is refused before anything is taken', () => {
    const e = fails(() => decodeSizedKeys(new Reader(hex('09 fe 0000000000010000 00')), ctx));
    expect([e.kind, e.schemaPath]).toEqual(['length', 'SizedKeys.keyOrder']);
  });
  it('a keyOrder that would not read back as the values given is refused', () => {
    const refusal = (v: Parameters<typeof encodeSizedKeys>[1]) => fails(() => encodeWith(encodeSizedKeys, v)).message;
    expect(refusal({ count: 1, keyOrder: [1, 2] })).toMatch(/field 1 is named but not given/);
    expect(refusal({ count: 1, keyOrder: [2, 2] })).toMatch(/field 2 is named twice/);
    expect(refusal({ name: 'ab', count: 1, keyOrder: [2] })).toMatch(/given but not named: field 1 \[/);
    // Read back, id 0 would end the list, and a stored id 2 after field 2 would be its value.
    expect(refusal({ count: 1, keyOrder: [{ id: 0, bytes: hex('00') }, 2] })).toMatch(/would read as the end mark/);
    expect(refusal({ count: 1, keyOrder: [2, { id: 2, bytes: hex('05') }] })).toMatch(
      /would read as that field's value/,
    );
    expect(refusal({ keyOrder: [{ id: 1, bytes: hex('61') }] })).toMatch(/would read as that field's value/);
  });
});

describe('covers: which columns a list entry is about', () => {
  const sets = (cover: (typeof ColumnsMetadataCovers)[keyof typeof ColumnsMetadataCovers]) =>
    cover === 'all'
      ? cover
      : { mysql: [...cover.mysql].sort((a, b) => a - b), mariadb: [...cover.mariadb].sort((a, b) => a - b) };
  it('a lookup key: the column types whose entry holds it, under each server its value names', () => {
    expect(sets(ColumnsMetadataCovers.SIGNS)).toEqual({ mysql: [Kind.NUMBER], mariadb: [Kind.NUMBER] });
    // TEXT is both servers', SHAPE MariaDB's alone, LIST MySQL's alone.
    expect(sets(ColumnsMetadataCovers.CHARSETS)).toEqual({
      mysql: [Kind.TEXT, Kind.LIST],
      mariadb: [Kind.TEXT, Kind.SHAPE],
    });
  });
  it('a list of types: those, under every server; all: every column', () => {
    expect(sets(ColumnsMetadataCovers.SHAPES)).toEqual({
      mysql: [Kind.SHAPE, Kind.LIST],
      mariadb: [Kind.SHAPE, Kind.LIST],
    });
    expect(ColumnsMetadataCovers.NAMES).toBe('all');
  });
  it('an entry without covers is not in the table', () => {
    expect(Object.keys(ColumnsMetadataCovers)).toEqual(['SIGNS', 'CHARSETS', 'SHAPES', 'NAMES']);
  });
});

describe('rowImages: a row change laid out as the section says', () => {
  /** Steps that record the parts a walk takes, in order. */
  const recorder: RowChangeSteps<undefined, string[]> = stepsByImage(
    (_, seen, image) => seen.push(image),
    (_, seen) => seen.push('options'),
  );
  const walk = (images: number) => {
    const seen: string[] = [];
    walkRowChange(undefined, images, seen, recorder);
    return seen;
  };
  it('takes the parts in the order stored, each where the images have its bit', () => {
    expect(walk(Images.OLD | Images.NEW | Images.OPTS)).toEqual(['after', 'before', 'options']);
    expect(walk(Images.OLD)).toEqual(['before']);
    expect(walk(Images.NEW | Images.OPTS)).toEqual(['after', 'options']);
    expect(rowImagePaths('E.rows')).toEqual({ before: 'E.rows.before', after: 'E.rows.after' });
  });
  it('numbers the null bits most significant first; the unused ones are the low bits, written clear', () => {
    expect([nullBitmapBytes(0), nullBitmapBytes(8), nullBitmapBytes(9)]).toEqual([0, 1, 2]);
    expect([nullByte(7), nullByte(8), nullBitMask(0), nullBitMask(7), nullBitMask(9)]).toEqual([
      0, 1, 0x80, 0x01, 0x40,
    ]);
    // Three columns: 111 then the five unused bits 00101.
    expect([nullSpareOf(0b1110_0101, 3), serverNullSpare(3)]).toEqual([0b0_0101, 0]);
    const buf = Uint8Array.of(0xaa, 0xff, 0xff);
    setNullSpare(buf, 1, 11, 0b1_0101);
    expect([...buf]).toEqual([0xaa, 0xff, 0b0001_0101]);
    // Whole bytes have no unused bits: nothing is stored.
    setNullSpare(buf, 1, 8, 0xff);
    expect(nullSpareOf(0xff, 8)).toBe(0);
    expect([...buf]).toEqual([0xaa, 0xff, 0b0001_0101]);
  });
  it('reads the options with the struct, placed at the rows, refusing a bit the known flags do not name', () => {
    expect(decodeRowOptions(new Reader(hex('05 02')), ctx, 2, 'E.rows')).toEqual({ opts: 5, marks: [false, true] });
    const unknown = fails(() => decodeRowOptions(new Reader(hex('02')), ctx, 2, 'E.rows'));
    expect([unknown.problem, unknown.schemaPath]).toEqual(['opts 2 has a bit Opts does not name', 'E.rows.opts']);
    expect(fails(() => decodeRowOptions(new Reader(hex('01')), ctx, 2, 'E.rows')).schemaPath).toBe('E.rows.marks');
  });
  it('gives the options a bit for each column of the types they cover, in column order', () => {
    const columns = [Kind.LIST, Kind.NUMBER, Kind.TEXT, Kind.SHAPE, Kind.LIST].map((realType, i) => ({ realType, i }));
    expect(rowOptionColumns(columns).map((c) => c.i)).toEqual([0, 2, 4]);
  });
  it("gives the code of an image for a list of columns, with the section's null bits (most significant first)", () => {
    // Three columns, the second NULL (bit 0x40 of the first byte), each value one byte.
    const code = composeImageCode(['a', '1', 'c'], { nullByte, nullBitMask });
    const byte = (r: Reader) => r.buf[r.pos++]!;
    const bytes = hex('40 0a 0c');
    const r0 = new Reader(bytes);
    r0.pos = 1;
    expect(code.read(r0, 0, [byte, byte, byte])).toEqual({ a: 10, 1: null, c: 12 });
    const offsets: number[] = [];
    const r = new Reader(bytes);
    r.pos = 1;
    code.skip(r, 0, [(x) => void x.pos++, (x) => void x.pos++, (x) => void x.pos++], new Int32Array(3), offsets);
    expect(offsets).toEqual([1, -1, 2]);
    // Values of a fixed width are stepped over without their skippers, which would refuse them here.
    const refuse = () => expect.fail('a skipper was called');
    const fixed = new Reader(bytes);
    fixed.pos = 1;
    offsets.length = 0;
    code.skip(fixed, 0, [refuse, refuse, refuse], Int32Array.of(1, 1, 1), offsets);
    expect([offsets, fixed.pos]).toEqual([[1, -1, 2], 3]);
    const w = new Writer(4);
    const at = w.reserve(1);
    const u8 = (x: Writer, v: unknown) => x.u8(v as number);
    expect(code.write(w, { a: 10, 1: null, c: 12 }, at, [u8, u8, u8])).toBe(-1);
    expect(toHex(w.finish())).toBe('400a0c');
    expect(code.write(new Writer(4), { a: 10, 1: null }, 0, [u8, u8, u8])).toBe(2);
    // '1' would come first among an object's keys: no JSON writer keeps the columns' order.
    expect(code.json).toBeUndefined();
  });
  it('writes the options, refusing the same bits', () => {
    const w = new Writer(1);
    encodeRowOptions(w, { opts: 1, marks: [true] }, ctx, 1, 'E.rows');
    expect(toHex(w.finish())).toBe('0101');
    const refused = fails(() => encodeRowOptions(new Writer(1), { opts: 8 }, ctx, 1, 'E.rows'));
    expect([refused.problem, refused.schemaPath]).toEqual(['opts 8 has a bit Opts does not name', 'E.rows.opts']);
  });
});

describe('oldRowImages: null bytes laid out as the section says', () => {
  const columns: OldRowColumn[] = [
    { maybeNull: true, kind: 'text', prefix: 1, size: 10 },
    { maybeNull: false, kind: 'flag', width: 7, prefix: 0 },
    { maybeNull: true, kind: 'flag', width: 4, prefix: 0 },
    { maybeNull: true, kind: 'int', prefix: 0 },
    { maybeNull: true, kind: 'int', prefix: 0 },
  ];
  const layout = oldNullBytesLayout({ flagged: true, wide: true }, columns);
  it("gives out the record's bits, then each column's packed bits before its null bit; a count of 0 gives none", () => {
    expect(layout.columns).toEqual([
      { nullBit: 2 },
      { firstPackedByte: { at: 3, count: 3 } },
      { nullBit: 6 },
      { nullBit: 7 },
      { nullBit: 8 },
    ]);
    // Nine bits in two bytes: the two record bits set, most significant first; the unused ones clear.
    expect([layout.bytes, toHex(layout.alwaysSet)]).toEqual([2, 'c000']);
  });
  it("reads the table's facts: no record bits, no packed bits", () => {
    const plain = oldNullBytesLayout({ flagged: false, wide: false }, columns);
    expect([plain.bytes, toHex(plain.alwaysSet), plain.columns]).toEqual([
      1,
      '00',
      [{ nullBit: 0 }, {}, { nullBit: 1 }, { nullBit: 2 }, { nullBit: 3 }],
    ]);
    expect(oldNullBytesLayout({ flagged: false, wide: false }, []).bytes).toBe(0);
  });
  it("sets a row's bits: a NULL column's null bit, and the packed bits' low bits of the first byte", () => {
    const row = layout.alwaysSet.slice();
    setOldColumnBits(row, layout.columns[1]!, false, Uint8Array.of(0b1111_1101, 0xff));
    setOldColumnBits(row, layout.columns[3]!, false, Uint8Array.of());
    setOldColumnBits(row, layout.columns[4]!, true, Uint8Array.of());
    // Bits 3 and 5 (0b101 from bit 3), and bit 8.
    expect(toHex(row)).toBe('d480');
    expect([oldNullBit(row, 8), oldNullBit(row, 7)]).toEqual([true, false]);
  });
  it('finds the first decided bit two rows disagree on', () => {
    const decided = oldDecidedBits(layout, layout.columns);
    expect(toHex(decided)).toBe('e380');
    expect(oldBitDiffering(decided, hex('d480'), hex('f480'))).toBe(2);
    // Bit 3 is a packed bit, which no row decides.
    expect(oldBitDiffering(decided, hex('d480'), hex('c480'))).toBeUndefined();
    expect(oldBitDiffering(layout.alwaysSet, layout.alwaysSet, hex('4000'))).toBe(0);
  });
  it('gives the longest packed form where the section says', () => {
    expect(columns.map(oldLongestPacked)).toEqual([12, undefined, undefined, undefined, undefined]);
  });
});

describe('cells: a part sized by the parts before it, a value carried with numbers', () => {
  const counted = countedCell({ hexOf: toHex, bytesOf: (v) => hex(v as string) });
  const column: CellColumn = { type: 0, meta: {}, layout: {} };
  const read = (s: string) => {
    const r = new Reader(hex(s));
    return [counted.reader(column, 'c')(r), r.pos];
  };
  it('reads count * unit bytes after the count and the unit, and carries them with the value', () => {
    expect(read('02 03 a1a2a3 b1b2b3 ff')).toEqual([{ value: 'a1a2a3b1b2b3', with: { count: 2, unit: 3 } }, 8]);
    expect(read('00 07')).toEqual([{ value: '', with: { count: 0, unit: 7 } }, 2]);
  });
  it('refuses bytes short of the size, and checks the parts the size reads before reading it', () => {
    expect(fails(() => read('02 03 a1a2a3 b1b2'))).toBeInstanceOf(LengthError);
    // A count over 4 with no bytes after it: the check's error, not the length's.
    expect(fails(() => read('05 01')).problem).toBe('a count of 5');
  });
  it('steps over a value by its count and unit', () => {
    const r = new Reader(hex('02 02 a1a2 b1b2 ff'));
    counted.skipper(column, 'c')(r);
    expect(r.pos).toBe(6);
  });
  it('writes the numbers the value carries before its bytes, which must be their size', () => {
    const write = (v: unknown) => {
      const w = new Writer(1);
      counted.writer(column, 'c')(w, v as never);
      return toHex(w.finish());
    };
    expect(write({ value: 'a1a2a3b1b2b3', with: { count: 2, unit: 3 } })).toBe('0203a1a2a3b1b2b3');
    expect(fails(() => write({ value: 'a1a2', with: { count: 2, unit: 3 } })).problem).toMatch(
      /expected 6 bytes, got 2/,
    );
    expect(fails(() => write('a1a2')).problem).toMatch(/expected \{value, with: \{count, unit\}\}/);
    expect(fails(() => write({ value: '', with: { count: 0.5, unit: 3 } })).problem).toMatch(/integers/);
  });
});
