/**
 * Column values in row images, one codec per `codec` name of the CellLayouts table (schemas/columns.yaml),
 * each in both directions. The bit layouts of the temporal and decimal types are MySQL's
 * (mysys/my_time.cc my_*_packed_to_binary, strings/decimal.cc decimal2bin); MariaDB writes the same.
 */
import { decodeText, encodeText, isText, utf8mb3Text } from './charsets.js';
import { deflateColumn, inflateColumn, reuseOr } from '../core/compression.js';
import { EncodeError, InvalidValueError } from '../core/errors.js';
import { decodeJsonb, encodeJsonb } from './binary-json.js';
import { beUint, type Reader, sameBytes, type Text } from '../core/reader.js';
import { Writer } from '../core/writer.js';
import type { CellValue, CompressedCell, JsonCell, JsonDiff, JsonDiffCell } from '../core/values.js';
import type { Column } from './column.js';

/** Reads one value of a column. */
export type CellReader = (r: Reader) => CellValue;
/** Writes one value of a column, or refuses it (EncodeError, naming the column's path). */
export type CellWriter = (w: Writer, v: CellValue) => void;

export interface CellCodec {
  /**
   * The reader of a column's values, `path` the schema path its errors name: made once per column of a
   * row layout, so that the column's metadata is looked up then rather than for every value.
   */
  reader(c: Column, path: string): CellReader;
  /** The writer of a column's values, made once per column of a row layout as the reader is. */
  writer(c: Column, path: string): CellWriter;
}

/** A number from the column's TABLE_MAP metadata. */
const num = (c: Column, key: string) => c.meta[key] as number;
/** The value's byte size, from the CellLayouts table. */
const bytesOf = (c: Column) => (c.layout as { bytes: number }).bytes;
const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000', '000000000'];
/** n in at least `width` digits. */
const pad = (n: number, width: number) => {
  const s = String(n);
  return s.length >= width ? s : ZEROS[width - s.length]! + s;
};
const bad = (r: Reader, problem: string, path: string) => new InvalidValueError(problem, { offset: r.offset, schemaPath: path });

function expect<T extends CellValue>(v: CellValue, ok: (v: CellValue) => v is T, what: string, path: string): T {
  if (!ok(v)) throw new EncodeError(`expected ${what}, got ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`, path);
  return v;
}
const isNumber = (v: CellValue): v is number => typeof v === 'number';
const isString = (v: CellValue): v is string => typeof v === 'string';
/** An integer as a bigint, a safe number, or (as the dump writes one past 2^53) a decimal string. */
const isBig = (v: CellValue): v is bigint | number =>
  typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v));
const isTextValue = (v: CellValue): v is Text => typeof v === 'string' || v instanceof Uint8Array;

// ---- integers and floats --------------------------------------------------------------------------

const INT_RANGE: Record<number, [number, number, number]> = {
  1: [-0x80, 0x7f, 0xff],
  2: [-0x8000, 0x7fff, 0xffff],
  3: [-0x80_0000, 0x7f_ffff, 0xff_ffff],
  4: [-0x8000_0000, 0x7fff_ffff, 0xffff_ffff],
};
/** BIGINT's ranges, made once rather than by bigint powers per value. */
const BIGINT_UNSIGNED = [0n, 2n ** 64n - 1n] as const;
const BIGINT_SIGNED = [-(2n ** 63n), 2n ** 63n - 1n] as const;

const int: CellCodec = {
  reader(c, path) {
    const n = bytesOf(c);
    const unsigned = c.unsigned === true;
    const [half, whole] = [2 ** (8 * n - 1), 2 ** (8 * n)];
    return (r) => {
      r.need(n, path);
      if (n === 8) return unsigned ? r.u64() : r.i64();
      const v = n === 1 ? r.u8() : n === 2 ? r.u16() : n === 3 ? r.u24() : r.u32();
      return unsigned || v < half ? v : v - whole;
    };
  },
  writer(c, path) {
    const n = bytesOf(c);
    if (n === 8) {
      const [lo, hi] = c.unsigned ? BIGINT_UNSIGNED : BIGINT_SIGNED;
      return (w, v) => {
        const b = typeof v === 'bigint' ? v : BigInt(expect(v, isBig, 'an integer', path));
        if (b < lo || b > hi) throw new EncodeError(`${b} is out of range`, path);
        w.u64(b);
      };
    }
    const [lo, hi, max] = INT_RANGE[n] ?? [0, 0, 0];
    const [min, top] = c.unsigned ? [0, max] : [lo, hi];
    return (w, v) => {
      const x = expect(v, isNumber, 'a number', path);
      if (!Number.isInteger(x) || x < min || x > top) throw new EncodeError(`${x} is out of range`, path);
      const u = x < 0 ? x + 2 ** (8 * n) : x;
      if (n === 1) w.u8(u);
      else if (n === 2) w.u16(u);
      else if (n === 3) w.u24(u);
      else w.u32(u);
    };
  },
};

/** The shortest decimal that reads back as the same float32 (what FLOAT prints as). */
export function shortestFloat32(f: number): number {
  for (let p = 1; p < 10; p++) {
    const x = Number(f.toPrecision(p));
    if (Math.fround(x) === f) return x;
  }
  return f;
}

const float: CellCodec = {
  reader(c, path) {
    const n = bytesOf(c);
    return (r) => {
      r.need(n, path);
      return n === 4 ? shortestFloat32(r.f32()) : r.f64();
    };
  },
  writer(c, path) {
    const single = bytesOf(c) === 4;
    return (w, v) => {
      const x = typeof v === 'string' && v === '-0' ? -0 : expect(v, isNumber, 'a number', path);
      if (single) w.f32(x);
      else w.f64(x);
    };
  },
};

// ---- DECIMAL -----------------------------------------------------------------------------------------

const DIG2BYTES = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/** Byte size of decimal2bin's form of DECIMAL(precision, scale). */
export function decimalSize(precision: number, scale: number): number {
  const intg = precision - scale;
  return Math.floor(intg / 9) * 4 + DIG2BYTES[intg % 9]! + Math.floor(scale / 9) * 4 + DIG2BYTES[scale % 9]!;
}

/** The digit groups of decimal2bin, in stored order: [bytes, digits] each. */
function decimalGroups(precision: number, scale: number): [number, number][] {
  const intg = precision - scale;
  const groups: [number, number][] = [];
  if (intg % 9) groups.push([DIG2BYTES[intg % 9]!, intg % 9]);
  for (let i = 0; i < Math.floor(intg / 9); i++) groups.push([4, 9]);
  for (let i = 0; i < Math.floor(scale / 9); i++) groups.push([4, 9]);
  if (scale % 9) groups.push([DIG2BYTES[scale % 9]!, scale % 9]);
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
  return decimalGroups(precision, scale).map(([n, d], i) => ({ n, digits: d, limit: 10 ** d, invert: 2 ** (8 * n) - 1, sign: i === 0 ? 2 ** (8 * n - 1) : 0 }));
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
    // The sign is the first bit (set for positive); a negative value has every bit inverted.
    const negative = (bytes[at]! & 0x80) === 0;
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
 * DECIMAL of at most 15 whole digits (two groups) and 9 fraction digits (one), nearly every column: the
 * whole part is one exact double and the fraction one group, so a value makes two numbers and one
 * string rather than a string per group.
 */
function smallDecimal(groups: Group[], scale: number): DecimalDecoder {
  const whole = scale ? groups.slice(0, -1) : groups;
  const [hi, lo] = whole.length === 2 ? whole : [undefined, whole[0]];
  const frac = scale ? groups[groups.length - 1]! : undefined;
  const zeros = ZEROS[scale]!;
  return (bytes, at) => {
    const negative = (bytes[at]! & 0x80) === 0;
    let int = 0;
    if (hi) {
      int = groupValue(bytes, at, hi, negative) * lo!.limit;
      at += hi.n;
    }
    if (lo) {
      int += groupValue(bytes, at, lo, negative);
      at += lo.n;
    }
    const text = negative ? `-${int}` : `${int}`;
    if (!frac) return text;
    const f = `${groupValue(bytes, at, frac, negative)}`;
    return `${text}.${zeros.slice(f.length)}${f}`;
  };
}

/** DECIMAL(precision, scale)'s digit groups and the decoder of its values. */
interface DecimalForm {
  groups: Group[];
  decode: DecimalDecoder;
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
  return { groups, decode: intg <= 15 && scale <= 9 ? smallDecimal(groups, scale) : anyDecimal(groups, intg, scale) };
}

/** The forms of the (precision, scale) pairs a byte each can give (the metadata's), made once each. */
const FORMS = new Map<number, DecimalForm>();

function decimalForm(precision: number, scale: number): DecimalForm {
  if (!(precision >>> 0 === precision && scale >>> 0 === scale && (precision | scale) < 256)) return makeDecimalForm(precision, scale);
  const key = (precision << 8) | scale;
  let made = FORMS.get(key);
  if (!made) FORMS.set(key, (made = makeDecimalForm(precision, scale)));
  return made;
}

/** decimal2bin's bytes, from `at` → "-123.4500" with exactly `scale` fraction digits. */
export function decodeDecimal(bytes: Uint8Array, precision: number, scale: number, at = 0): string {
  return decimalForm(precision, scale).decode(bytes, at);
}

export function encodeDecimal(value: string, precision: number, scale: number, path: string): Uint8Array {
  const out = new Uint8Array(decimalSize(precision, scale));
  writeDecimal(out, 0, value, precision, scale, path);
  return out;
}

/** decimal2bin's form of `value` into `out` from `at`, where there is room for it (decimalSize). */
function writeDecimal(out: Uint8Array, start: number, value: string, precision: number, scale: number, path: string): void {
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
  if (dot - zeros > intg || length - dot - 1 > scale) throw new EncodeError(`'${value}' does not fit DECIMAL(${precision},${scale})`, path);
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
  if (sign) for (let i = start; i < end; i++) out[i]! ^= 0xff;
  out[start]! ^= 0x80;
}

const newdecimal: CellCodec = {
  reader(c, path) {
    const [p, s] = [num(c, 'precision'), num(c, 'scale')];
    const [size, { decode }] = [decimalSize(p, s), decimalForm(p, s)];
    return (r) => {
      const at = r.pos;
      r.pos += r.length(size, path);
      try {
        return decode(r.buf, at);
      } catch (e) {
        if (e instanceof RangeError) throw new InvalidValueError(e.message, { offset: r.base + at, schemaPath: path });
        throw e;
      }
    };
  },
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

// ---- temporal ---------------------------------------------------------------------------------------

/** Bytes of the fraction after TIME2, DATETIME2, TIMESTAMP2 of precision fsp. */
const fracBytes = (fsp: number) => (fsp + 1) >> 1;
/** What one unit of the stored fraction is worth in microseconds. */
const FRACTION_UNIT = [1, 10000, 10000, 100, 100, 1, 1];
const fracUnit = (fsp: number) => FRACTION_UNIT[fsp]!;

/** The microseconds of a unit in the last of fsp fraction digits. */
const FRACTION_STEP = [1e6, 1e5, 1e4, 1e3, 100, 10, 1];

/** Refuses a stored fraction with digits past `fsp`. */
function checkFraction(micro: number, fsp: number, r: Reader, path: string): void {
  if (micro % FRACTION_STEP[fsp]!) throw bad(r, `fraction .${pad(micro, 6)} has more than ${fsp} digits`, path);
}

function fracText(micro: number, fsp: number, r: Reader, path: string): string {
  if (fsp === 0) return '';
  checkFraction(micro, fsp, r, path);
  return `.${pad(micro / FRACTION_STEP[fsp]!, fsp)}`;
}

/** The microseconds of the fraction digits that end `text` from `from` (none: 0), refused past fsp digits. */
function fracMicro(text: string, from: number, fsp: number, path: string): number {
  const count = text.length - from;
  if (count > fsp) throw new EncodeError(`fraction .${text.slice(from)} has more than ${fsp} digits`, path);
  return count > 0 ? digitsAt(text, from, count) * 10 ** (6 - count) : 0;
}

/** An n-byte big-endian number (n up to 6), read by the reader's fixed-width reads rather than a byte at a time. */
function readBE(r: Reader, n: number): number {
  switch (n) {
    case 0:
      return 0;
    case 1:
      return r.u8();
    case 2:
      return r.u16be();
    case 3:
      return r.u24be();
    case 4:
      return r.u32be();
    case 5:
      return r.u40be();
    default:
      return r.u48be();
  }
}

/** v (0 ≤ v < 2^48) in n big-endian bytes: its low 32 bits by shifts, the rest by one division. */
function writeBE(w: Writer, v: number, n: number): void {
  const at = w.claim(n);
  const b = w.buf;
  let low = v >>> 0;
  let high = Math.floor(v / 2 ** 32);
  for (let i = n - 1; i >= 0 && i >= n - 4; i--, low >>>= 8) b[at + i] = low;
  for (let i = n - 5; i >= 0; i--, high >>>= 8) b[at + i] = high;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(-?)(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

function parse(re: RegExp, v: CellValue, what: string, path: string): string[] {
  const m = re.exec(expect(v, isString, what, path));
  if (!m) throw new EncodeError(`'${String(v)}' is not ${what}`, path);
  return m;
}

/** Whether text is ASCII digits from `from` to `to`. */
function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return false;
  }
  return true;
}

/** The number that text's n ASCII digits from i write, or -1 where one is not a digit. */
function digitsAt(text: string, i: number, n: number): number {
  let v = 0;
  for (const end = i + n; i < end; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return -1;
    v = v * 10 + digit;
  }
  return v;
}

/** A DATETIME text's year, month, day, hour, minute and second, as parseDatetime leaves them. */
const DATETIME_FIELDS = [0, 0, 0, 0, 0, 0];

/**
 * Checks "YYYY-MM-DD hh:mm:ss" with 0 or 1 to 6 fraction digits (.f) by hand and leaves its fields in
 * DATETIME_FIELDS: no match array and seven strings per value, as a regular expression made.
 */
function parseDatetime(v: CellValue, what: string, path: string): string {
  const text = expect(v, isString, what, path);
  const f = DATETIME_FIELDS;
  f[0] = digitsAt(text, 0, 4);
  f[1] = digitsAt(text, 5, 2);
  f[2] = digitsAt(text, 8, 2);
  f[3] = digitsAt(text, 11, 2);
  f[4] = digitsAt(text, 14, 2);
  f[5] = digitsAt(text, 17, 2);
  const n = text.length;
  const fraction = n === 19 || (n >= 21 && n <= 26 && text.charCodeAt(19) === 0x2e && digitsAt(text, 20, n - 20) >= 0);
  const separators = text.charCodeAt(4) === 0x2d && text.charCodeAt(7) === 0x2d && text.charCodeAt(10) === 0x20 && text.charCodeAt(13) === 0x3a && text.charCodeAt(16) === 0x3a;
  if (!fraction || !separators || (f[0]! | f[1]! | f[2]! | f[3]! | f[4]! | f[5]!) < 0) throw new EncodeError(`'${text}' is not ${what}`, path);
  return text;
}

/** "00" … "99", so that the fields of a date or time take no String() and padding each. */
const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));
const two = (n: number) => (n < 100 ? TWO[n]! : String(n));
const four = (n: number) => (n < 10000 ? TWO[Math.floor(n / 100)]! + TWO[n % 100]! : String(n));
/** The ASCII codes of the tens and the units of 0 … 99. */
const TENS = Array.from({ length: 100 }, (_, i) => 0x30 + Math.floor(i / 10));
const UNITS = Array.from({ length: 100 }, (_, i) => 0x30 + (i % 10));

/**
 * "YYYY-MM-DD hh:mm:ss.ffffff" cut to `fsp` fraction digits (a year below 10000, micro below 10^6): the
 * characters made in one fromCharCode, a single flat string, where a template of padded fields makes a
 * rope of a dozen pieces per value (about 4× slower with the rows kept, in a micro-benchmark). Each pair
 * of digits comes from a table, so that a value takes four divisions rather than sixteen.
 */
function datetimeText(y: number, mo: number, d: number, h: number, mi: number, s: number, micro: number, fsp: number): string {
  const [yh, yl, m1, m2, m3] = [(y / 100) | 0, y % 100, (micro / 10000) | 0, ((micro / 100) | 0) % 100, micro % 100];
  const text = String.fromCharCode(
    TENS[yh]!, UNITS[yh]!, TENS[yl]!, UNITS[yl]!, 0x2d, TENS[mo]!, UNITS[mo]!, 0x2d, TENS[d]!, UNITS[d]!, 0x20,
    TENS[h]!, UNITS[h]!, 0x3a, TENS[mi]!, UNITS[mi]!, 0x3a, TENS[s]!, UNITS[s]!,
    0x2e, TENS[m1]!, UNITS[m1]!, TENS[m2]!, UNITS[m2]!, TENS[m3]!, UNITS[m3]!,
  );
  return fsp === 6 ? text : text.slice(0, fsp ? 20 + fsp : 19);
}
const dateText = (y: number, mo: number, d: number) => `${four(y)}-${two(mo)}-${two(d)}`;
const timeText = (h: number, mi: number, s: number) => `${two(h)}:${two(mi)}:${two(s)}`;

const date: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(3, path);
      const v = r.u24();
      return dateText(v >> 9, (v >> 5) & 15, v & 31);
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const [, y, mo, d] = parse(DATE, v, 'a date YYYY-MM-DD', path).map(Number);
      w.u24((y! << 9) | (mo! << 5) | d!);
    };
  },
};

const year: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(1, path);
      const v = r.u8();
      return v === 0 ? 0 : 1900 + v;
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const y = expect(v, isNumber, 'a year', path);
      if (y !== 0 && (y < 1901 || y > 2155)) throw new EncodeError(`year ${y} is out of range`, path);
      w.u8(y === 0 ? 0 : y - 1900);
    };
  },
};

/** TIME before 5.6: a signed ±HHMMSS integer in 3 bytes. */
const time: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(3, path);
      const v = r.i24();
      const a = Math.abs(v);
      return `${v < 0 ? '-' : ''}${timeText(Math.floor(a / 10000), Math.floor(a / 100) % 100, a % 100)}`;
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const [, sign, h, mi, s] = parse(TIME, v, 'a time [-]HH:MM:SS', path);
      const a = Number(h) * 10000 + Number(mi) * 100 + Number(s);
      w.i24(sign ? -a : a);
    };
  },
};

/** DATETIME before 5.6: YYYYMMDDhhmmss as an 8-byte integer. */
const datetime: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(8, path);
      const v = r.u64();
      const d = v.toString().padStart(14, '0');
      // MariaDB's older high-precision DATETIME(n) is logged as this type with no metadata, in another
      // layout: what does not read as a datetime is refused, never shown as one.
      if (d.length > 14 || Number(d.slice(4, 6)) > 12 || Number(d.slice(6, 8)) > 31 || Number(d.slice(8, 10)) > 23 || Number(d.slice(10, 12)) > 59 || Number(d.slice(12, 14)) > 59) {
        throw bad(r, `${v} is not a YYYYMMDDhhmmss datetime`, path);
      }
      return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)} ${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}`;
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const text = parseDatetime(v, 'a datetime', path);
      if (text.length > 19) throw new EncodeError('DATETIME without precision has no fraction', path);
      const [y, mo, d, h, mi, s] = DATETIME_FIELDS as [number, number, number, number, number, number];
      w.u64(BigInt(((((y * 100 + mo) * 100 + d) * 100 + h) * 100 + mi) * 100 + s));
    };
  },
};

/** UTC text of a TIMESTAMP's seconds; 0 (with no fraction) is the zero date, which it stands for. */
function utcText(seconds: number, fraction = 0): string {
  if (seconds === 0 && fraction === 0) return '0000-00-00 00:00:00';
  const t = new Date(seconds * 1000);
  return `${dateText(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate())} ${timeText(t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds())}`;
}

/** The seconds of parseDatetime's fields as UTC; the zero date is 0. */
function utcSeconds(): number {
  const [y, mo, d, h, mi, s] = DATETIME_FIELDS as [number, number, number, number, number, number];
  if (y === 0 && mo === 0 && d === 0) return 0;
  return Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
}

const timestamp: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(4, path);
      return utcText(r.u32());
    };
  },
  writer(_c, path) {
    return (w, v) => {
      parseDatetime(v, 'a timestamp (UTC)', path);
      w.u32(utcSeconds());
    };
  },
};

const timestamp2: CellCodec = {
  reader(c, path) {
    return (r) => {
      const fsp = num(c, 'fsp');
      r.need(4 + fracBytes(fsp), path);
      const seconds = readBE(r, 4);
      const micro = readBE(r, fracBytes(fsp)) * fracUnit(fsp);
      return utcText(seconds, micro) + fracText(micro, fsp, r, path);
    };
  },
  writer(c, path) {
    return (w, v) => {
      const fsp = num(c, 'fsp');
      const text = parseDatetime(v, 'a timestamp (UTC)', path);
      writeBE(w, utcSeconds(), 4);
      writeBE(w, fracMicro(text, 20, fsp, path) / fracUnit(fsp), fracBytes(fsp));
    };
  },
};

/**
 * DATETIME2: 5 bytes big-endian of 0x8000000000 + (ym << 22 | day << 17 | hour << 12 | minute << 6 |
 * second), ym = year * 13 + month; then the fraction.
 */
const datetime2: CellCodec = {
  reader(c, path) {
    const fsp = num(c, 'fsp');
    const [n, unit] = [fracBytes(fsp), fracUnit(fsp)];
    // A statement's rows often share the whole value (NOW()): the last one's text is kept.
    let [lastV, lastFrac, lastText] = [-1, -1, ''];
    return (r) => {
      r.need(5 + n, path);
      const v = readBE(r, 5) - 0x80_0000_0000;
      if (v < 0) throw bad(r, 'negative DATETIME', path);
      const frac = readBE(r, n);
      if (v === lastV && frac === lastFrac) return lastText;
      const micro = frac * unit;
      const ymd = Math.floor(v / 2 ** 17);
      const hms = v % 2 ** 17;
      const ym = Math.floor(ymd / 32);
      const y = Math.floor(ym / 13);
      checkFraction(micro, fsp, r, path);
      lastText =
        y < 10000 && micro < 1e6
          ? datetimeText(y, ym % 13, ymd % 32, hms >> 12, (hms >> 6) & 63, hms & 63, micro, fsp)
          : `${dateText(y, ym % 13, ymd % 32)} ${timeText(hms >> 12, (hms >> 6) & 63, hms & 63)}${fracText(micro, fsp, r, path)}`;
      lastV = v;
      lastFrac = frac;
      return lastText;
    };
  },
  writer(c, path) {
    const fsp = num(c, 'fsp');
    const [n, unit] = [fracBytes(fsp), fracUnit(fsp)];
    // As the reader keeps the last text, the last value's fields are kept: a repeat is not parsed again.
    let [lastText, lastV, lastFrac] = ['', 0, 0];
    return (w, v) => {
      if (v !== lastText || lastText === '') {
        const text = parseDatetime(v, 'a datetime', path);
        const f = DATETIME_FIELDS as [number, number, number, number, number, number];
        const ymd = ((f[0] * 13 + f[1]) * 32 + f[2]) * 2 ** 17;
        lastFrac = fracMicro(text, 20, fsp, path) / unit;
        lastV = 0x80_0000_0000 + ymd + ((f[3] << 12) | (f[4] << 6) | f[5]);
        lastText = text;
      }
      writeBE(w, lastV, 5);
      writeBE(w, lastFrac, n);
    };
  },
};

/**
 * TIME2: the signed value packed = ±(hms * 2^24 + microseconds), hms = hour << 12 | minute << 6 | second,
 * stored as 3 big-endian bytes of 0x800000 + floor(packed / 2^24) followed by the fraction in (fsp+1)/2
 * bytes; a negative value with a fraction borrows one from the integer part (MySQL's
 * my_time_packed_to_binary). For fsp 5 and 6 the whole is 6 bytes of 0x800000000000 + packed.
 */
const time2: CellCodec = {
  reader(c, path) {
    return (r) => {
      const fsp = num(c, 'fsp');
      const n = fracBytes(fsp);
      r.need(3 + n, path);
      let packed: number;
      if (n === 3) {
        packed = readBE(r, 6) - 0x8000_0000_0000;
      } else {
        let int = readBE(r, 3) - 0x80_0000;
        let frac = readBE(r, n);
        if (int < 0 && frac) {
          int++;
          frac -= 256 ** n;
        }
        packed = int * 2 ** 24 + frac * fracUnit(fsp);
      }
      const a = Math.abs(packed);
      const hms = Math.floor(a / 2 ** 24);
      const text = `${packed < 0 ? '-' : ''}${timeText(hms >> 12, (hms >> 6) & 63, hms & 63)}`;
      return text + fracText(a % 2 ** 24, fsp, r, path);
    };
  },
  writer(c, path) {
    return (w, v) => {
      const fsp = num(c, 'fsp');
      const n = fracBytes(fsp);
      const [, sign, h, mi, s, f] = parse(TIME, v, 'a time [-]HH:MM:SS[.ffffff]', path);
      const hms = (Number(h) << 12) | (Number(mi) << 6) | Number(s);
      const a = hms * 2 ** 24 + fracMicro(f ?? '', 0, fsp, path);
      const packed = sign ? -a : a;
      if (n === 3) return writeBE(w, packed + 0x8000_0000_0000, 6);
      // MySQL takes the integer part by an arithmetic shift (floor) and the fraction by C's remainder
      // (truncating), and stores a negative fraction in two's complement; the decoder above undoes both.
      const int = Math.floor(packed / 2 ** 24);
      let frac = Math.trunc((packed - Math.trunc(packed / 2 ** 24) * 2 ** 24) / fracUnit(fsp));
      if (frac < 0) frac += 256 ** n;
      writeBE(w, int + 0x80_0000, 3);
      if (n) writeBE(w, frac, n);
    };
  },
};

// ---- BIT, ENUM, SET -------------------------------------------------------------------------------------

function bitBytes(c: Column): number {
  return num(c, 'wholeBytes') + (num(c, 'bitsInLastByte') ? 1 : 0);
}

const bit: CellCodec = {
  reader(c, path) {
    return (r) => {
      const n = bitBytes(c);
      r.need(n, path);
      let v = 0n;
      for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(r.u8());
      return v;
    };
  },
  writer(c, path) {
    return (w, v) => {
      let b = BigInt(expect(v, isBig, 'an integer', path));
      if (b < 0n || b >= 1n << BigInt(num(c, 'bits'))) throw new EncodeError(`${b} does not fit BIT(${num(c, 'bits')})`, path);
      const n = bitBytes(c);
      const out = new Uint8Array(n);
      for (let i = n - 1; i >= 0; i--, b >>= 8n) out[i] = Number(b & 0xffn);
      w.bytes(out);
    };
  },
};

/** ENUM and SET store their byte size in the STRING metadata's length byte. */
const packLength = (c: Column) => (c.meta.maxLength as number | undefined) ?? 1;

const enumCodec: CellCodec = {
  reader(c, path) {
    const [n, members] = [packLength(c), c.members ?? []];
    return (r) => {
      r.need(n, path);
      const index = n === 1 ? r.u8() : r.u16();
      const name = index > 0 ? members[index - 1] : undefined;
      return name === undefined ? index : name;
    };
  },
  writer(c, path) {
    const members = c.members ?? [];
    // Each member name's index, the first where names repeat (as findIndex gives it); bytes are compared.
    const named = new Map<string, number>();
    members.forEach((m, i) => typeof m === 'string' && !named.has(m) && named.set(m, i + 1));
    const one = packLength(c) === 1;
    return (w, v) => {
      let index: number;
      if (typeof v === 'number') index = v;
      else {
        const text = expect(v, isTextValue, 'a member name or index', path);
        index = (typeof text === 'string' ? named.get(text) : members.findIndex((m) => sameText(m, text)) + 1) ?? 0;
        if (index === 0) throw new EncodeError(`'${String(text)}' is not a member`, path);
      }
      if (one) w.u8(index);
      else w.u16(index);
    };
  },
};

function sameText(a: Text, b: Text): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return sameBytes(a, b);
}

const set: CellCodec = {
  reader(c, path) {
    return (r) => {
      const n = packLength(c);
      r.need(n, path);
      let mask = 0n;
      for (let i = 0; i < n; i++) mask |= BigInt(r.u8()) << BigInt(8 * i);
      const members = c.members;
      if (!members || mask >> BigInt(members.length)) return n > 6 ? mask : Number(mask);
      return members.filter((_, i) => (mask >> BigInt(i)) & 1n);
    };
  },
  writer(c, path) {
    return (w, v) => {
      let mask: bigint;
      if (Array.isArray(v)) {
        mask = 0n;
        for (const name of v as Text[]) {
          const i = (c.members ?? []).findIndex((m) => sameText(m, name));
          if (i < 0) throw new EncodeError(`'${String(name)}' is not a member`, path);
          mask |= 1n << BigInt(i);
        }
      } else mask = BigInt(expect(v, isBig, 'member names or a bitmask', path));
      for (let i = 0; i < packLength(c); i++, mask >>= 8n) w.u8(Number(mask & 0xffn));
    };
  },
};

// ---- strings, blobs ---------------------------------------------------------------------------------

/** Text in the column's charset; bytes for binary columns and when the charset is not known. */
function cellText(bytes: Uint8Array, c: Column): Text {
  return isText(c.charset) ? decodeText(bytes, c.charset) : bytes;
}

function cellBytes(v: Text, c: Column, path: string): Uint8Array {
  return typeof v === 'string' ? encodeText(v, c.charset ?? 'utf8mb4', path) : v;
}

/** utf8mb4 (or no charset known): UTF-8 read and written in place. utf8mb3 is checked on the way, see utf8mb3Text. */
const isUtf8 = (c: Column) => c.charset === 'utf8mb4';
const isCompressed = (c: Column) => (c.layout as { compressed?: boolean }).compressed === true;

/**
 * Reads a value of the length `size` reads, through MariaDB's column compression where the type has it.
 * UTF-8 text, the common case, is read in place.
 */
function storedReader(c: Column, size: (r: Reader) => number, path: string): CellReader {
  if (isCompressed(c)) {
    return (r) => {
      const raw = r.bytes(size(r), path);
      return { value: cellText(inflateColumn(raw, r.offset - raw.length, path), c), stored: raw };
    };
  }
  if (isUtf8(c)) return repeating(size, (r, n) => r.text(n, path));
  if (c.charset === 'utf8mb3') return repeating(size, (r, n) => utf8mb3Text(r.text(n, path), r.buf.subarray(r.pos - n, r.pos)));
  const charset = c.charset;
  if (!isText(charset)) return (r) => r.bytes(size(r), path);
  return repeating(size, (r, n) => decodeText(r.bytes(n, path), charset));
}

/** Whether the n bytes at a and at b are the same, compared from the end (where neighbouring values differ). */
function sameBytesAt(buf: Uint8Array, a: number, b: number, n: number): boolean {
  while (n > 0 && buf[a + n - 1] === buf[b + n - 1]) n--;
  return n === 0;
}

/**
 * A reader of a value of `size` bytes that gives back the last text it made when the next value has the
 * same bytes: an UPDATE's after image repeats every column it left alone (FULL row images), and
 * neighbouring rows often share a value. Only within one event (one Reader, known by its serial number so
 * that its bytes are not kept alive) are the earlier bytes known to be still where they were read, and
 * only text (immutable) is shared.
 */
function repeating(size: (r: Reader) => number, read: (r: Reader, n: number) => Text): CellReader {
  let [lastReader, lastAt, lastSize, lastText] = [0, 0, -1, ''];
  return (r) => {
    const n = size(r);
    const at = r.pos;
    if (r.serial === lastReader && n === lastSize && n <= r.end - at && sameBytesAt(r.buf, at, lastAt, n)) {
      r.pos = at + n;
      return lastText;
    }
    const v = read(r, n);
    if (typeof v === 'string') {
      lastReader = r.serial;
      lastAt = at;
      lastSize = n;
      lastText = v;
    }
    return v;
  };
}

/** The reader of a 1- or 2-byte length prefix. */
function prefixReader(width: number, path: string): (r: Reader) => number {
  return width === 1 ? (r) => (r.need(1, path), r.u8()) : (r) => (r.need(2, path), r.u16());
}

function storedValue(v: CellValue, c: Column, path: string): Uint8Array {
  if (!isCompressed(c)) return cellBytes(expect(v, isTextValue, 'text or bytes', path), c, path);
  const cell: { value: Text; stored?: Uint8Array } =
    typeof v === 'object' && v !== null && 'value' in v ? (v as CompressedCell) : { value: expect(v, isTextValue, 'text or bytes', path) };
  const plain = cellBytes(cell.value, c, path);
  return reuseOr(cell.stored, plain, (b) => inflateColumn(b, 0, path), deflateColumn);
}

function prefixWidth(maxLength: number): number {
  return maxLength > 255 ? 2 : 1;
}

/** The writer of string or blob values after a `width`-byte length; UTF-8 text goes straight into the buffer. */
function storedWriter(c: Column, width: number, path: string): CellWriter {
  const stored: CellWriter = (w, v) => w.prefixed(storedValue(v, c, path), width, path);
  if (!(isUtf8(c) || c.charset === undefined) || isCompressed(c)) return stored;
  return (w, v) => (typeof v === 'string' ? w.prefixedUtf8(v, width, path) : stored(w, v));
}

const varchar: CellCodec = {
  reader(c, path) {
    return storedReader(c, prefixReader(prefixWidth(num(c, 'maxLength')), path), path);
  },
  writer(c, path) {
    return storedWriter(c, prefixWidth(num(c, 'maxLength')), path);
  },
};

/** CHAR and BINARY: a BINARY value is stored without its trailing 0x00 bytes and padded back here. */
const string: CellCodec = {
  reader(c, path) {
    const max = num(c, 'maxLength');
    const size = prefixReader(prefixWidth(max), path);
    return (r) => {
      const raw = r.bytes(size(r), path);
      if (c.charset !== 'binary' || raw.length >= max) return cellText(raw, c);
      const padded = new Uint8Array(max);
      padded.set(raw);
      return padded;
    };
  },
  writer(c, path) {
    return (w, v) => {
      let b = cellBytes(expect(v, isTextValue, 'text or bytes', path), c, path);
      if (c.charset === 'binary') {
        let end = b.length;
        while (end > 0 && b[end - 1] === 0) end--;
        b = b.subarray(0, end);
      }
      w.prefixed(b, prefixWidth(num(c, 'maxLength')), path);
    };
  },
};

const blob: CellCodec = {
  reader(c, path) {
    const n = num(c, 'packLength');
    return storedReader(c, (r) => r.uint(n, path), path);
  },
  writer(c, path) {
    return storedWriter(c, num(c, 'packLength'), path);
  },
};

const vector: CellCodec = {
  reader(c, path) {
    return (r) => {
      const raw = r.bytes(r.uint(num(c, 'packLength'), path), path);
      if (raw.length % 4) throw bad(r, `a VECTOR of ${raw.length} bytes`, path);
      const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      return Array.from({ length: raw.length / 4 }, (_, i) => shortestFloat32(dv.getFloat32(4 * i, true)));
    };
  },
  writer(c, path) {
    return (w, v) => {
      const values = expect(v, (x): x is number[] => Array.isArray(x) && x.every((e) => typeof e === 'number'), 'an array of numbers', path);
      const out = new Uint8Array(values.length * 4);
      const dv = new DataView(out.buffer);
      values.forEach((x, i) => dv.setFloat32(4 * i, x, true));
      w.prefixed(out, num(c, 'packLength'), path);
    };
  },
};

const json: CellCodec = {
  reader(c, path) {
    return (r) => {
      const stored = r.bytes(r.uint(num(c, 'packLength'), path), path);
      const tree = decodeJsonb(stored, r.offset - stored.length, path);
      const canonical = stored.length > 0 && sameBytes(encodeJsonb(tree, path), stored);
      return canonical ? { json: tree } : { json: tree, stored };
    };
  },
  writer(c, path) {
    return (w, v) => {
      const cell = expect(v, (x): x is JsonCell => typeof x === 'object' && x !== null && 'json' in x, 'a {json} cell', path);
      // Stored bytes that still mean the same document are written as they are; else the canonical form.
      const same = cell.stored !== undefined && JSON.stringify(decodeJsonb(cell.stored, 0, path)) === JSON.stringify(cell.json);
      w.prefixed(same ? cell.stored! : encodeJsonb(cell.json, path), num(c, 'packLength'), path);
    };
  },
};

const DIFF_OPS = ['REPLACE', 'INSERT', 'REMOVE'] as const;

/**
 * A JSON column's value in a PARTIAL_UPDATE_ROWS after image, when its flag says it is a diff: a 4-byte
 * length, then each diff: the operation byte, a packed length and the path, and (but for REMOVE) a
 * packed length and the value's binary JSON. (MySQL sql/json_diff.cc, Json_diff::write_binary.)
 */
export const jsonDiffCodec: CellCodec = {
  reader(_c, path) {
    return (r) => {
      r.need(4, path);
      const sub = r.sub(r.u32(), path);
      const diff: JsonDiff[] = [];
      while (sub.pos < sub.end) {
        sub.need(1, path);
        const code = sub.u8();
        const op = DIFF_OPS[code];
        if (!op) throw bad(sub, `JSON diff operation ${code}`, path);
        const at = new TextDecoder().decode(sub.bytes(sub.packed(path), path));
        if (op === 'REMOVE') diff.push({ op, path: at });
        else {
          const stored = sub.bytes(sub.packed(path), path);
          const value = decodeJsonb(stored, sub.offset - stored.length, path);
          if (!sameBytes(encodeJsonb(value, path), stored)) throw bad(sub, 'a JSON diff value not in the canonical form', path);
          diff.push({ op, path: at, value });
        }
      }
      return { diff };
    };
  },
  writer(_c, path) {
    return (w, v) => {
      const cell = expect(v, (x): x is JsonDiffCell => typeof x === 'object' && x !== null && 'diff' in x, 'a {diff} cell', path);
      const out = new Writer();
      for (const d of cell.diff) {
        const code = DIFF_OPS.indexOf(d.op);
        if (code < 0) throw new EncodeError(`JSON diff operation ${JSON.stringify(d.op)}: one of ${DIFF_OPS.join(', ')}`, path);
        out.u8(code);
        out.prefixed(new TextEncoder().encode(d.path), 0, path);
        if (d.op !== 'REMOVE') out.prefixed(encodeJsonb(d.value ?? null, path), 0, path);
      }
      w.prefixed(out.view(), 4, path);
    };
  },
};

const nothing: CellCodec = {
  reader: () => () => null,
  writer: () => () => undefined,
};

const unsupported: CellCodec = {
  reader(c, path) {
    return (r) => {
      throw bad(r, `column type ${c.type} has no known row-image layout`, path);
    };
  },
  writer(c, path) {
    return (_w, _v) => {
      throw new EncodeError(`column type ${c.type} has no known row-image layout`, path);
    };
  },
};

export const CELL_CODECS: Record<string, CellCodec> = {
  int,
  float,
  newdecimal,
  date,
  year,
  time,
  datetime,
  timestamp,
  timestamp2,
  datetime2,
  time2,
  bit,
  enum: enumCodec,
  set,
  varchar,
  string,
  blob,
  vector,
  json,
  null: nothing,
  unsupported,
};

export function cellCodec(c: Column): CellCodec {
  return CELL_CODECS[(c.layout as { codec: string }).codec] ?? unsupported;
}
