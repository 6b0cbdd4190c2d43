// Fixed-width integer cases shared by the reader and writer tests. Every byte layout is written out by
// hand from the rule "little-endian: least significant byte first; big-endian: most significant first;
// signed values in two's complement of the field's width".

export type NumberMethod =
  | 'u8'
  | 'i8'
  | 'u16'
  | 'i16'
  | 'u24'
  | 'i24'
  | 'u32'
  | 'i32'
  | 'u40'
  | 'i40'
  | 'u48'
  | 'i48'
  | 'u16be'
  | 'i16be'
  | 'u24be'
  | 'i24be'
  | 'u32be'
  | 'i32be'
  | 'u40be'
  | 'i40be'
  | 'u48be'
  | 'i48be'
  | 'f32'
  | 'f64';
export type BigMethod = 'u56' | 'i56' | 'u64' | 'i64' | 'u56be' | 'i56be' | 'u64be' | 'i64be';

export interface IntCase<M, V> {
  method: M;
  value: V;
  bytes: string;
  note?: string;
}

type N = IntCase<NumberMethod, number>;
type B = IntCase<BigMethod, bigint>;

/** Widths of 1 to 6 bytes decode to JavaScript numbers. */
export const numberCases: N[] = [
  // 1 byte
  { method: 'u8', value: 0, bytes: '00', note: 'min' },
  { method: 'u8', value: 0x12, bytes: '12' },
  { method: 'u8', value: 0x80, bytes: '80' },
  { method: 'u8', value: 0xff, bytes: 'ff', note: 'max' },
  { method: 'i8', value: 0, bytes: '00' },
  { method: 'i8', value: 127, bytes: '7f', note: 'max' },
  { method: 'i8', value: -128, bytes: '80', note: 'min' },
  { method: 'i8', value: -1, bytes: 'ff' },
  { method: 'i8', value: -2, bytes: 'fe' },

  // 2 bytes, little-endian
  { method: 'u16', value: 0, bytes: '00 00', note: 'min' },
  { method: 'u16', value: 0x1234, bytes: '34 12' },
  { method: 'u16', value: 0xffff, bytes: 'ff ff', note: 'max' },
  { method: 'i16', value: 32767, bytes: 'ff 7f', note: 'max' },
  { method: 'i16', value: -32768, bytes: '00 80', note: 'min' },
  { method: 'i16', value: -1, bytes: 'ff ff' },
  { method: 'i16', value: -2, bytes: 'fe ff' },
  { method: 'i16', value: 0x0102, bytes: '02 01' },

  // 3 bytes, little-endian
  { method: 'u24', value: 0, bytes: '00 00 00', note: 'min' },
  { method: 'u24', value: 0x123456, bytes: '56 34 12' },
  { method: 'u24', value: 0x800000, bytes: '00 00 80', note: 'top bit set stays positive' },
  { method: 'u24', value: 0xffffff, bytes: 'ff ff ff', note: 'max' },
  { method: 'i24', value: 0x7fffff, bytes: 'ff ff 7f', note: 'max' },
  { method: 'i24', value: -0x800000, bytes: '00 00 80', note: 'min' },
  { method: 'i24', value: -1, bytes: 'ff ff ff' },
  { method: 'i24', value: -2, bytes: 'fe ff ff' },

  // 4 bytes, little-endian
  { method: 'u32', value: 0, bytes: '00 00 00 00', note: 'min' },
  { method: 'u32', value: 0x12345678, bytes: '78 56 34 12' },
  { method: 'u32', value: 0x80000000, bytes: '00 00 00 80', note: 'top bit set stays positive' },
  { method: 'u32', value: 0xffffffff, bytes: 'ff ff ff ff', note: 'max' },
  { method: 'i32', value: 0x7fffffff, bytes: 'ff ff ff 7f', note: 'max' },
  { method: 'i32', value: -0x80000000, bytes: '00 00 00 80', note: 'min' },
  { method: 'i32', value: -1, bytes: 'ff ff ff ff' },
  { method: 'i32', value: -2, bytes: 'fe ff ff ff' },

  // 5 bytes, little-endian
  { method: 'u40', value: 0, bytes: '00 00 00 00 00', note: 'min' },
  { method: 'u40', value: 0x12_3456_789a, bytes: '9a 78 56 34 12' },
  { method: 'u40', value: 0x1_0000_0000, bytes: '00 00 00 00 01', note: '2^32 carries into byte 5' },
  { method: 'u40', value: 0xff_ffff_ffff, bytes: 'ff ff ff ff ff', note: 'max 2^40-1' },
  { method: 'i40', value: 0x7f_ffff_ffff, bytes: 'ff ff ff ff 7f', note: 'max 2^39-1' },
  { method: 'i40', value: -0x80_0000_0000, bytes: '00 00 00 00 80', note: 'min -2^39' },
  { method: 'i40', value: -1, bytes: 'ff ff ff ff ff' },
  { method: 'i40', value: -2, bytes: 'fe ff ff ff ff' },
  { method: 'i40', value: -0x1_0000_0000, bytes: '00 00 00 00 ff', note: '-2^32' },

  // 6 bytes, little-endian (the table id of rows events is a u48)
  { method: 'u48', value: 0, bytes: '00 00 00 00 00 00', note: 'min' },
  { method: 'u48', value: 0x0102_0304_0506, bytes: '06 05 04 03 02 01', note: 'table id' },
  { method: 'u48', value: 0x1_0000_0000, bytes: '00 00 00 00 01 00', note: '2^32 carries into byte 5' },
  { method: 'u48', value: 0x1234_5678_9abc, bytes: 'bc 9a 78 56 34 12' },
  { method: 'u48', value: 0xffff_ffff_ffff, bytes: 'ff ff ff ff ff ff', note: 'max 2^48-1' },
  { method: 'i48', value: 0x7fff_ffff_ffff, bytes: 'ff ff ff ff ff 7f', note: 'max 2^47-1' },
  { method: 'i48', value: -0x8000_0000_0000, bytes: '00 00 00 00 00 80', note: 'min -2^47' },
  { method: 'i48', value: -1, bytes: 'ff ff ff ff ff ff' },
  { method: 'i48', value: -2, bytes: 'fe ff ff ff ff ff' },

  // big-endian, 2 to 6 bytes
  { method: 'u16be', value: 0x1234, bytes: '12 34' },
  { method: 'u16be', value: 0, bytes: '00 00', note: 'min' },
  { method: 'u16be', value: 0xffff, bytes: 'ff ff', note: 'max' },
  { method: 'i16be', value: -2, bytes: 'ff fe' },
  { method: 'i16be', value: -1, bytes: 'ff ff' },
  { method: 'i16be', value: 32767, bytes: '7f ff', note: 'max' },
  { method: 'i16be', value: -32768, bytes: '80 00', note: 'min' },
  { method: 'u24be', value: 0x123456, bytes: '12 34 56' },
  { method: 'u24be', value: 0, bytes: '00 00 00', note: 'min' },
  { method: 'u24be', value: 0xffffff, bytes: 'ff ff ff', note: 'max' },
  { method: 'i24be', value: -2, bytes: 'ff ff fe' },
  { method: 'i24be', value: 0x7fffff, bytes: '7f ff ff', note: 'max' },
  { method: 'i24be', value: -0x800000, bytes: '80 00 00', note: 'min' },
  { method: 'u32be', value: 0x12345678, bytes: '12 34 56 78' },
  { method: 'u32be', value: 0, bytes: '00 00 00 00', note: 'min' },
  { method: 'u32be', value: 0xffffffff, bytes: 'ff ff ff ff', note: 'max' },
  { method: 'i32be', value: -2, bytes: 'ff ff ff fe' },
  { method: 'i32be', value: 0x7fffffff, bytes: '7f ff ff ff', note: 'max' },
  { method: 'i32be', value: -0x80000000, bytes: '80 00 00 00', note: 'min' },
  { method: 'u40be', value: 0x12_3456_789a, bytes: '12 34 56 78 9a' },
  { method: 'u40be', value: 0, bytes: '00 00 00 00 00', note: 'min' },
  { method: 'u40be', value: 0xff_ffff_ffff, bytes: 'ff ff ff ff ff', note: 'max 2^40-1' },
  { method: 'i40be', value: -2, bytes: 'ff ff ff ff fe' },
  { method: 'i40be', value: 0x7f_ffff_ffff, bytes: '7f ff ff ff ff', note: 'max 2^39-1' },
  { method: 'i40be', value: -0x80_0000_0000, bytes: '80 00 00 00 00', note: 'min -2^39' },
  { method: 'u48be', value: 0x1234_5678_9abc, bytes: '12 34 56 78 9a bc' },
  { method: 'u48be', value: 0, bytes: '00 00 00 00 00 00', note: 'min' },
  { method: 'u48be', value: 0xffff_ffff_ffff, bytes: 'ff ff ff ff ff ff', note: 'max 2^48-1' },
  { method: 'i48be', value: -2, bytes: 'ff ff ff ff ff fe' },
  { method: 'i48be', value: 0x7fff_ffff_ffff, bytes: '7f ff ff ff ff ff', note: 'max 2^47-1' },
  { method: 'i48be', value: -0x8000_0000_0000, bytes: '80 00 00 00 00 00', note: 'min -2^47' },

  // IEEE 754, little-endian: 1.0 is 3f800000 (single) and 3ff0000000000000 (double)
  { method: 'f32', value: 1, bytes: '00 00 80 3f' },
  { method: 'f32', value: -2, bytes: '00 00 00 c0' },
  { method: 'f64', value: 1, bytes: '00 00 00 00 00 00 f0 3f' },
  { method: 'f64', value: -0, bytes: '00 00 00 00 00 00 00 80', note: 'negative zero keeps its sign bit' },
];

/** Widths of 7 and 8 bytes decode to bigints. */
export const bigCases: B[] = [
  { method: 'u56', value: 0n, bytes: '00 00 00 00 00 00 00', note: 'min' },
  { method: 'u56', value: 0x12_3456_789a_bcden, bytes: 'de bc 9a 78 56 34 12' },
  { method: 'u56', value: 0xff_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff ff', note: 'max 2^56-1' },
  { method: 'i56', value: 0x7f_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff 7f', note: 'max 2^55-1' },
  { method: 'i56', value: -0x80_0000_0000_0000n, bytes: '00 00 00 00 00 00 80', note: 'min -2^55' },
  { method: 'i56', value: -1n, bytes: 'ff ff ff ff ff ff ff' },
  { method: 'i56', value: -2n, bytes: 'fe ff ff ff ff ff ff' },

  { method: 'u64', value: 0n, bytes: '00 00 00 00 00 00 00 00', note: 'min' },
  { method: 'u64', value: 0x0123_4567_89ab_cdefn, bytes: 'ef cd ab 89 67 45 23 01' },
  { method: 'u64', value: 0x8000_0000_0000_0000n, bytes: '00 00 00 00 00 00 00 80', note: '2^63 stays positive' },
  { method: 'u64', value: 0xffff_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff ff ff', note: 'max 2^64-1' },
  { method: 'i64', value: 0x7fff_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff ff 7f', note: 'max 2^63-1' },
  { method: 'i64', value: -0x8000_0000_0000_0000n, bytes: '00 00 00 00 00 00 00 80', note: 'min -2^63' },
  { method: 'i64', value: -1n, bytes: 'ff ff ff ff ff ff ff ff' },
  { method: 'i64', value: -2n, bytes: 'fe ff ff ff ff ff ff ff' },

  { method: 'u56be', value: 0x12_3456_789a_bcden, bytes: '12 34 56 78 9a bc de' },
  { method: 'u56be', value: 0xff_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff ff', note: 'max 2^56-1' },
  { method: 'i56be', value: -2n, bytes: 'ff ff ff ff ff ff fe' },
  { method: 'i56be', value: 0x7f_ffff_ffff_ffffn, bytes: '7f ff ff ff ff ff ff', note: 'max 2^55-1' },
  { method: 'i56be', value: -0x80_0000_0000_0000n, bytes: '80 00 00 00 00 00 00', note: 'min -2^55' },
  { method: 'u64be', value: 0x0123_4567_89ab_cdefn, bytes: '01 23 45 67 89 ab cd ef' },
  { method: 'u64be', value: 0xffff_ffff_ffff_ffffn, bytes: 'ff ff ff ff ff ff ff ff', note: 'max 2^64-1' },
  { method: 'i64be', value: -2n, bytes: 'ff ff ff ff ff ff ff fe' },
  { method: 'i64be', value: 0x7fff_ffff_ffff_ffffn, bytes: '7f ff ff ff ff ff ff ff', note: 'max 2^63-1' },
  { method: 'i64be', value: -0x8000_0000_0000_0000n, bytes: '80 00 00 00 00 00 00 00', note: 'min -2^63' },
];

export function caseName(c: { method: string; value: number | bigint; bytes: string; note?: string }): string {
  const v =
    typeof c.value === 'bigint'
      ? `${c.value < 0n ? '-' : ''}0x${(c.value < 0n ? -c.value : c.value).toString(16)}n`
      : Object.is(c.value, -0) || !Number.isInteger(c.value)
        ? Object.is(c.value, -0)
          ? '-0'
          : String(c.value)
        : `${c.value < 0 ? '-' : ''}0x${Math.abs(c.value).toString(16)}`;
  return `${c.method}(${v}) is ${c.bytes}${c.note ? ` (${c.note})` : ''}`;
}

/** Packed (length-encoded) integers: < 0xfb is the byte itself; 0xfc + u16; 0xfd + u24; 0xfe + u64. */
export const packedCases: { value: bigint; bytes: string; note: string }[] = [
  { value: 0n, bytes: '00', note: 'zero, one byte' },
  { value: 1n, bytes: '01', note: 'one byte' },
  { value: 250n, bytes: 'fa', note: 'largest one-byte value' },
  { value: 251n, bytes: 'fc fb 00', note: 'smallest 0xfc form' },
  { value: 0x1234n, bytes: 'fc 34 12', note: '0xfc form' },
  { value: 0xffffn, bytes: 'fc ff ff', note: 'largest 0xfc form' },
  { value: 0x10000n, bytes: 'fd 00 00 01', note: 'smallest 0xfd form' },
  { value: 0xffffffn, bytes: 'fd ff ff ff', note: 'largest 0xfd form' },
  { value: 0x1000000n, bytes: 'fe 00 00 00 01 00 00 00 00', note: 'smallest 0xfe form' },
  { value: 0x1f_ffff_ffff_ffffn, bytes: 'fe ff ff ff ff ff ff 1f 00', note: '2^53-1, largest safe number' },
];
