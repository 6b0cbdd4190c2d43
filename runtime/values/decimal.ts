/**
 * DECIMAL cells: digit groups ↔ exact decimal strings, for strings/decimal.cc's decimal2bin form, whose
 * group sizes, sign bit and negative mask are cells.yaml's DECIMAL_* constants.
 */
import {
  DECIMAL_GROUP_BYTES,
  DECIMAL_GROUP_DIGITS,
  DECIMAL_NEGATIVE_MASK,
  DECIMAL_PARTIAL_BYTES,
  DECIMAL_SIGN_BIT,
} from '../../generated/cells.js';
import { EncodeError, InvalidValueError } from '../core/errors.js';
import { beUint, type Reader } from '../core/reader.js';
import type { CellValue } from '../core/values.js';
import { type CellCodec, expect, isString, num } from './cell-codec.js';
import type { Column } from './column.js';
import { allDigits, pad, ZEROS } from './digits.js';

const [GROUP, WHOLE, PARTIAL] = [DECIMAL_GROUP_DIGITS, DECIMAL_GROUP_BYTES, DECIMAL_PARTIAL_BYTES];
const [SIGN, MASK] = [DECIMAL_SIGN_BIT, DECIMAL_NEGATIVE_MASK];

/** `byte` repeated in each of `n` big-endian bytes, `byte` × 0x0101…. */
function everyByte(byte: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + byte;
  return v;
}

/** Byte size of decimal2bin's form of DECIMAL(precision, scale). */
export function decimalSize(precision: number, scale: number): number {
  const intg = precision - scale;
  return (
    Math.floor(intg / GROUP) * WHOLE +
    PARTIAL[intg % GROUP]! +
    Math.floor(scale / GROUP) * WHOLE +
    PARTIAL[scale % GROUP]!
  );
}

/** The digit groups of decimal2bin, in stored order: [bytes, digits] each. */
function decimalGroups(precision: number, scale: number): [number, number][] {
  const intg = precision - scale;
  const groups: [number, number][] = [];
  if (intg % GROUP) groups.push([PARTIAL[intg % GROUP]!, intg % GROUP]);
  for (let i = 0; i < Math.floor(intg / GROUP); i++) groups.push([WHOLE, GROUP]);
  for (let i = 0; i < Math.floor(scale / GROUP); i++) groups.push([WHOLE, GROUP]);
  if (scale % GROUP) groups.push([PARTIAL[scale % GROUP]!, scale % GROUP]);
  return groups;
}

/** Reads decimal2bin's bytes from `at`: "-123.4500", with exactly the scale's fraction digits. */
type DecimalDecoder = (bytes: Uint8Array, at: number) => string;

/**
 * How to read each digit group: its bytes, the bound its digits set, and the bits that undo a negative
 * value's inversion (and, in the first group, the sign bit, which every stored value has set once
 * uninverted).
 */
interface Group {
  n: number;
  digits: number;
  limit: number;
  invert: number;
  sign: number;
}

function groupsFor(precision: number, scale: number): Group[] {
  if (scale > precision) return [];
  return decimalGroups(precision, scale).map(([n, d], i) => ({
    n,
    digits: d,
    limit: 10 ** d,
    invert: everyByte(MASK, n),
    sign: i === 0 ? SIGN * 256 ** (n - 1) : 0,
  }));
}

/** A group's value; one of more digits than it may hold (bin2decimal refuses those too) is a RangeError. */
function groupValue(bytes: Uint8Array, at: number, g: Group, negative: boolean): number {
  const v = (beUint(bytes, at, g.n) ^ (negative ? g.invert : 0) ^ g.sign) >>> 0;
  if (v >= g.limit) throw new RangeError(`DECIMAL digit group ${v} has more than ${g.digits} digits`);
  return v;
}

/** Any DECIMAL: the digits of each group in turn. */
function anyDecimal(groups: Group[], intg: number, scale: number): DecimalDecoder {
  return (bytes, at) => {
    const negative = (bytes[at]! & SIGN) === 0;
    let [whole, frac, digitsSoFar] = ['', '', 0];
    for (const g of groups) {
      const v = groupValue(bytes, at, g, negative);
      at += g.n;
      if (digitsSoFar < intg) whole += whole === '' ? (v === 0 ? '' : String(v)) : pad(v, g.digits);
      else frac += pad(v, g.digits);
      digitsSoFar += g.digits;
    }
    return `${negative ? '-' : ''}${whole || '0'}${scale ? `.${frac}` : ''}`;
  };
}

/**
 * A small DECIMAL's value (smallParts): its sign, its whole part and its fraction group as numbers. One is
 * filled for each value read, so that the JSON writer makes no string and no object per value.
 */
interface SmallDecimal {
  negative: boolean;
  whole: number;
  fraction: number;
}
const PARTS: SmallDecimal = { negative: false, whole: 0, fraction: 0 };

/**
 * DECIMAL of at most 15 whole digits (two groups) and 9 fraction digits (one), nearly every column: the
 * whole part is one exact double and the fraction one group. Reads a value's parts into PARTS.
 */
function smallParts(groups: Group[], scale: number): (bytes: Uint8Array, at: number) => SmallDecimal {
  const whole = scale ? groups.slice(0, -1) : groups;
  const [hi, lo] = whole.length === 2 ? whole : [undefined, whole[0]];
  const frac = scale ? groups[groups.length - 1]! : undefined;
  return (bytes, at) => {
    const negative = (bytes[at]! & SIGN) === 0;
    let int = 0;
    if (hi) {
      int = groupValue(bytes, at, hi, negative) * lo!.limit;
      at += hi.n;
    }
    if (lo) {
      int += groupValue(bytes, at, lo, negative);
      at += lo.n;
    }
    PARTS.negative = negative;
    PARTS.whole = int;
    PARTS.fraction = frac ? groupValue(bytes, at, frac, negative) : 0;
    return PARTS;
  };
}

/** A small DECIMAL's text from its parts: two numbers and one string rather than a string per group. */
function smallDecimal(parts: ReturnType<typeof smallParts>, scale: number): DecimalDecoder {
  const zeros = ZEROS[scale]!;
  return (bytes, at) => {
    const { negative, whole, fraction } = parts(bytes, at);
    const text = negative ? `-${whole}` : `${whole}`;
    if (!scale) return text;
    const f = `${fraction}`;
    return `${text}.${zeros.slice(f.length)}${f}`;
  };
}

/** DECIMAL(precision, scale)'s digit groups and the decoder of its values. */
interface DecimalForm {
  groups: Group[];
  decode: DecimalDecoder;
  /** Where the column is a small DECIMAL (smallParts), the reader of a value's parts, which JSON writes as digits. */
  parts?: ReturnType<typeof smallParts>;
}

function makeDecimalForm(precision: number, scale: number): DecimalForm {
  const groups = groupsFor(precision, scale);
  if (scale > precision) {
    const decode = () => {
      throw new RangeError(`DECIMAL(${precision},${scale}) has more fraction digits than digits`);
    };
    return { groups, decode };
  }
  const intg = precision - scale;
  if (intg > 15 || scale > GROUP) return { groups, decode: anyDecimal(groups, intg, scale) };
  const parts = smallParts(groups, scale);
  return { groups, decode: smallDecimal(parts, scale), parts };
}

/** The forms of the (precision, scale) pairs a byte each can give (the metadata's), made once each. */
const FORMS = new Map<number, DecimalForm>();

function decimalForm(precision: number, scale: number): DecimalForm {
  if (!(precision >>> 0 === precision && scale >>> 0 === scale && (precision | scale) < 256))
    return makeDecimalForm(precision, scale);
  const key = (precision << 8) | scale;
  let made = FORMS.get(key);
  if (!made) FORMS.set(key, (made = makeDecimalForm(precision, scale)));
  return made;
}

/** decimal2bin's bytes, from `at` → "-123.4500" with exactly `scale` fraction digits. */
export function decodeDecimal(bytes: Uint8Array, precision: number, scale: number, at = 0): string {
  return decimalForm(precision, scale).decode(bytes, at);
}

/** A value that must be a decimal string → decimal2bin's bytes (binary JSON's DECIMAL). */
export function decimalBytes(v: CellValue, precision: number, scale: number, path: string): Uint8Array {
  const out = new Uint8Array(decimalSize(precision, scale));
  writeDecimal(out, 0, expect(v, isString, 'a decimal string', path), precision, scale, path);
  return out;
}

/** decimal2bin's form of `value` into `out` from `at`, where there is room for it (decimalSize). */
function writeDecimal(
  out: Uint8Array,
  start: number,
  value: string,
  precision: number,
  scale: number,
  path: string,
): void {
  // -?\d+(\.\d+)? checked by hand: the whole part is [sign, dot), the fraction (dot, length).
  const length = value.length;
  const sign = value.charCodeAt(0) === 0x2d ? 1 : 0;
  const found = value.indexOf('.', sign);
  const dot = found < 0 ? length : found;
  if (dot === sign || dot === length - 1 || !allDigits(value, sign, dot) || !allDigits(value, dot + 1, length)) {
    throw new EncodeError(`'${value}' is not a decimal`, path);
  }
  const intg = precision - scale;
  let zeros = sign;
  while (zeros < dot && value.charCodeAt(zeros) === 0x30) zeros++;
  if (dot - zeros > intg || length - dot - 1 > scale)
    throw new EncodeError(`'${value}' does not fit DECIMAL(${precision},${scale})`, path);
  // Digit k of the intg + scale digits is at j of the text, the whole part right-aligned and the fraction
  // left-aligned: read where it is (no match array, digit strings or slices per value, no closure or
  // iterator, which each value allocated).
  const end = start + decimalSize(precision, scale);
  const groups = decimalForm(precision, scale).groups;
  let at = start;
  let k = 0;
  for (let g = 0; g < groups.length; g++) {
    const { n, digits } = groups[g]!;
    let v = 0;
    for (const last = k + digits; k < last; k++) {
      const j = k < intg ? dot - intg + k : dot + 1 + k - intg;
      v = v * 10 + (j >= sign && j < length ? value.charCodeAt(j) - 0x30 : 0);
    }
    for (let i = n - 1; i >= 0; i--, v = Math.floor(v / 256)) out[at + i] = v % 256;
    at += n;
  }
  if (sign) for (let i = start; i < end; i++) out[i]! ^= MASK;
  out[start]! ^= SIGN;
}

/**
 * A column's DECIMAL value from its bytes, as `read` gives it from the value's start: the reader's text, or the
 * parts JSON writes. A group that holds more digits than it may is refused, as bin2decimal refuses it.
 */
function decimalCell<T>(c: Column, path: string, read: (form: DecimalForm, bytes: Uint8Array, at: number) => T) {
  const [p, s] = [num(c, 'precision'), num(c, 'scale')];
  const [size, form] = [decimalSize(p, s), decimalForm(p, s)];
  return (r: Reader): T => {
    const at = r.pos;
    r.pos += r.length(size, path);
    try {
      return read(form, r.buf, at);
    } catch (e) {
      if (e instanceof RangeError) throw new InvalidValueError(e.message, { offset: r.base + at, schemaPath: path });
      throw e;
    }
  };
}

const decimalReader = (c: Column, path: string) => decimalCell(c, path, (form, bytes, at) => form.decode(bytes, at));

export const newdecimal: CellCodec = {
  reader: decimalReader,
  // Its text is a sign, digits and a point, which JSON writes as they are; a small one's digits from its parts.
  json(c, path) {
    const scale = num(c, 'scale');
    if (decimalForm(num(c, 'precision'), scale).parts) {
      const parts = decimalCell(c, path, (form, bytes, at) => form.parts!(bytes, at));
      return (r, w) => {
        const { negative, whole, fraction } = parts(r);
        w.fixedPoint(negative, whole, fraction, scale);
      };
    }
    const read = decimalReader(c, path);
    return (r, w) => w.quotedAscii(read(r));
  },
  skipper(c, path) {
    const size = decimalSize(num(c, 'precision'), num(c, 'scale'));
    return (r) => {
      r.pos += r.length(size, path);
    };
  },
  // Every value of a column takes the bytes its precision and scale say, so lazy rows step over it without a call.
  width: (c) => decimalSize(num(c, 'precision'), num(c, 'scale')),
  writer(c, path) {
    const [p, s] = [num(c, 'precision'), num(c, 'scale')];
    const size = decimalSize(p, s);
    return (w, v) => {
      const value = expect(v, isString, 'a decimal string', path);
      const at = w.claim(size); // first: it may grow the buffer
      writeDecimal(w.buf, at, value, p, s, path);
    };
  },
};
