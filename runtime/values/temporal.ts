/**
 * The text of the temporal cells (schemas/cells.yaml: DATE, TIME, DATETIME, TIMESTAMP and their
 * fractional forms), both ways: fields to 'YYYY-MM-DD hh:mm:ss.ffffff' and back. Where the fields sit
 * in the stored bytes is the schema's; here is only the text, its sign and its fraction digits.
 */
import { EncodeError } from '../core/errors.js';
import { pairAt, TENS, UNITS } from '../core/ascii-digits.js';
import type { JsonBytes } from '../core/dump-json-bytes.js';
import type { CellValue } from '../core/values.js';
import { expect, isString } from './cell-codec.js';
import { digitsAt, pad } from './digits.js';

/** "00" … "99", so that the fields of a date or time take no String() and padding each. */
const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));
const two = (n: number) => (n < 100 ? TWO[n]! : String(n));
const four = (n: number) => (n < 10000 ? TWO[Math.floor(n / 100)]! + TWO[n % 100]! : String(n));
/** The bytes of a datetime's JSON string: its 26 characters and two quotes. */
const DATETIME_JSON = 28;
const QUOTE = 0x22;

/** '.f' of `fsp` digits of the microseconds (none for 0 digits). */
export const fraction = (micro: number, fsp: number) =>
  fsp === 0 ? '' : `.${pad(Math.floor(micro / 10 ** (6 - fsp)), fsp)}`;

export const dateText = (y: number, mo: number, d: number) => `${four(y)}-${two(mo)}-${two(d)}`;

export function timeText(negative: boolean, h: number, mi: number, s: number, micro: number, fsp: number): string {
  return `${negative ? '-' : ''}${two(h)}:${two(mi)}:${two(s)}${fraction(micro, fsp)}`;
}

/**
 * "YYYY-MM-DD hh:mm:ss.ffffff" cut to `fsp` fraction digits. For a year below 10000 the characters are
 * made in one fromCharCode, a single flat string, where a template of padded fields makes a rope of a
 * dozen pieces per value (about 4× slower with the rows kept, in a micro-benchmark); each pair of digits
 * comes from a table, so that a value takes four divisions rather than sixteen.
 */
export function datetimeText(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  micro: number,
  fsp: number,
): string {
  if (y >= 10000) return `${dateText(y, mo, d)} ${timeText(false, h, mi, s, micro, fsp)}`;
  const [yh, yl, m1, m2, m3] = [(y / 100) | 0, y % 100, (micro / 10000) | 0, ((micro / 100) | 0) % 100, micro % 100];
  const text = String.fromCharCode(
    TENS[yh]!,
    UNITS[yh]!,
    TENS[yl]!,
    UNITS[yl]!,
    0x2d,
    TENS[mo]!,
    UNITS[mo]!,
    0x2d,
    TENS[d]!,
    UNITS[d]!,
    0x20,
    TENS[h]!,
    UNITS[h]!,
    0x3a,
    TENS[mi]!,
    UNITS[mi]!,
    0x3a,
    TENS[s]!,
    UNITS[s]!,
    0x2e,
    TENS[m1]!,
    UNITS[m1]!,
    TENS[m2]!,
    UNITS[m2]!,
    TENS[m3]!,
    UNITS[m3]!,
  );
  return fsp === 6 ? text : text.slice(0, fsp ? 20 + fsp : 19);
}

/**
 * datetimeText's text as a JSON string, written into `w` with no string made: the fraction written whole,
 * then cut to `fsp` digits by the closing quote.
 */
export function datetimeJson(
  w: JsonBytes,
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  micro: number,
  fsp: number,
): void {
  if (y >= 10000) return w.quotedAscii(datetimeText(y, mo, d, h, mi, s, micro, fsp));
  w.room(DATETIME_JSON);
  const b = w.buf;
  let p = w.pos;
  b[p++] = QUOTE;
  p = pairAt(b, p, (y / 100) | 0);
  p = pairAt(b, p, y % 100);
  b[p++] = 0x2d;
  p = pairAt(b, p, mo);
  b[p++] = 0x2d;
  p = pairAt(b, p, d);
  b[p++] = 0x20;
  p = pairAt(b, p, h);
  b[p++] = 0x3a;
  p = pairAt(b, p, mi);
  b[p++] = 0x3a;
  p = pairAt(b, p, s);
  if (fsp) {
    const point = p;
    b[p++] = 0x2e;
    p = pairAt(b, p, (micro / 10000) | 0);
    p = pairAt(b, p, ((micro / 100) | 0) % 100);
    pairAt(b, p, micro % 100);
    p = point + 1 + fsp;
  }
  b[p++] = QUOTE;
  w.pos = p;
}

// The other temporal texts' JSON strings: they are ASCII, which JSON writes as it is.
export const dateJson = (w: JsonBytes, y: number, mo: number, d: number) => w.quotedAscii(dateText(y, mo, d));
export const timeJson = (
  w: JsonBytes,
  negative: boolean,
  h: number,
  mi: number,
  s: number,
  micro: number,
  fsp: number,
) => w.quotedAscii(timeText(negative, h, mi, s, micro, fsp));
export const utcJson = (w: JsonBytes, seconds: number, micro: number, fsp: number) =>
  w.quotedAscii(utcText(seconds, micro, fsp));

/** UTC text of seconds since 1970; 0 seconds (with no fraction) is the zero date, which it stands for. */
export function utcText(seconds: number, micro: number, fsp: number): string {
  if (seconds === 0 && micro === 0) return `0000-00-00 00:00:00${fraction(0, fsp)}`;
  const t = new Date(seconds * 1000);
  return datetimeText(
    t.getUTCFullYear(),
    t.getUTCMonth() + 1,
    t.getUTCDate(),
    t.getUTCHours(),
    t.getUTCMinutes(),
    t.getUTCSeconds(),
    micro,
    fsp,
  );
}

/** The seconds since 1970 of UTC fields; the zero date is 0. */
export function utcSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  if (y === 0 && mo === 0 && d === 0) return 0;
  return Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
}

/** The fields each parse below leaves its result in: shared, so that a value makes no array. */
const FIELDS = [0, 0, 0, 0, 0, 0, 0, 0];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(-?)(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

function match(re: RegExp, v: CellValue, what: string, path: string): RegExpExecArray {
  const m = re.exec(expect(v, isString, what, path));
  if (!m) throw new EncodeError(`'${String(v)}' is not ${what}`, path);
  return m;
}

/** The microseconds of fraction digits (none: 0). */
const micros = (digits: string) => (digits ? Number(digits) * 10 ** (6 - digits.length) : 0);

/** 'YYYY-MM-DD' as [year, month, day]. */
export function dateFields(v: CellValue, path: string): number[] {
  const m = match(DATE, v, 'a date YYYY-MM-DD', path);
  for (let i = 0; i < 3; i++) FIELDS[i] = Number(m[i + 1]);
  checkRanges(m[0], path, 1, 0, 2);
  return FIELDS;
}

/** '[-]hh:mm:ss[.f]' (hours of 2 or 3 digits) as [negative, hour, minute, second, micro, fraction digits]. */
export function timeFields(v: CellValue, path: string): number[] {
  const m = match(TIME, v, 'a time [-]HH:MM:SS[.ffffff]', path);
  const digits = m[5] ?? '';
  [FIELDS[0], FIELDS[1], FIELDS[2], FIELDS[3], FIELDS[4], FIELDS[5]] = [
    m[1] ? 1 : 0,
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    micros(digits),
    digits.length,
  ];
  checkRanges(m[0], path, 2, 3, 2);
  return FIELDS;
}

/**
 * 'YYYY-MM-DD hh:mm:ss' with 0 or 1 to 6 fraction digits as [year, month, day, hour, minute, second,
 * micro, fraction digits]: checked by hand, with no match array and seven strings per value, as a
 * regular expression made.
 */
export function datetimeFields(v: CellValue, what: string, path: string): number[] {
  const text = expect(v, isString, what, path);
  const f = FIELDS;
  f[0] = digitsAt(text, 0, 4);
  f[1] = digitsAt(text, 5, 2);
  f[2] = digitsAt(text, 8, 2);
  f[3] = digitsAt(text, 11, 2);
  f[4] = digitsAt(text, 14, 2);
  f[5] = digitsAt(text, 17, 2);
  const n = text.length;
  const digits = n === 19 ? 0 : n - 20;
  f[6] =
    digits > 0 && digits <= 6 && text.charCodeAt(19) === 0x2e ? digitsAt(text, 20, digits) * 10 ** (6 - digits) : 0;
  f[7] = digits;
  const fractionOk = n === 19 || (digits >= 1 && digits <= 6 && text.charCodeAt(19) === 0x2e && f[6] >= 0);
  const separators =
    text.charCodeAt(4) === 0x2d &&
    text.charCodeAt(7) === 0x2d &&
    text.charCodeAt(10) === 0x20 &&
    text.charCodeAt(13) === 0x3a &&
    text.charCodeAt(16) === 0x3a;
  if (!fractionOk || !separators || (f[0]! | f[1]! | f[2]! | f[3]! | f[4]! | f[5]!) < 0)
    throw new EncodeError(`'${text}' is not ${what}`, path);
  checkRanges(text, path, 1, 0, 5);
  return f;
}

/**
 * The largest month, day, hour, minute and second a date or datetime may have: the server keeps zero
 * months and days (the zero date, NO_ZERO_IN_DATE off) and any day to 31 (ALLOW_INVALID_DATES), never more.
 */
const FIELD_RANGES: readonly [string, number][] = [
  ['month', 12],
  ['day', 31],
  ['hour', 23],
  ['minute', 59],
  ['second', 59],
];

/**
 * Refuses any of `count` fields of FIELDS from `field` on, which are FIELD_RANGES' from `range` on, beyond its range.
 */
function checkRanges(text: string, path: string, field: number, range: number, count: number): void {
  for (let i = 0; i < count; i++) {
    const [name, max] = FIELD_RANGES[range + i]!;
    const n = FIELDS[field + i]!;
    if (n > max) throw new EncodeError(`'${text}': ${name} ${n} is out of range`, path);
  }
}
