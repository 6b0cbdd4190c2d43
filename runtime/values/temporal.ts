/**
 * Temporal cells: DATE, YEAR, TIME, DATETIME, TIMESTAMP, and the fractional TIME2, DATETIME2, TIMESTAMP2
 * of 5.6 and later (mysys/my_time.cc my_*_packed_to_binary); text with its sign and microseconds.
 */
import { EncodeError } from '../core/errors.js';
import type { Reader } from '../core/reader.js';
import { Writer } from '../core/writer.js';
import type { CellValue } from '../core/values.js';
import type { Column } from './column.js';
import { bad, type CellCodec, expect, isNumber, isString, num } from './cell-codec.js';
import { digitsAt, pad } from './digits.js';

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

export const date: CellCodec = {
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

/** YEAR's layout facts (schemas/columns.yaml): a byte n stands for `offset` + n, in `min` … `max`. */
const yearLayout = (c: Column) => c.layout as { offset: number; min: number; max: number };

export const year: CellCodec = {
  reader(c, path) {
    const { offset } = yearLayout(c);
    return (r) => {
      r.need(1, path);
      const v = r.u8();
      return v === 0 ? 0 : offset + v;
    };
  },
  writer(c, path) {
    const { offset, min, max } = yearLayout(c);
    return (w, v) => {
      const y = expect(v, isNumber, 'a year', path);
      if (y !== 0 && (y < min || y > max)) throw new EncodeError(`year ${y} is out of range`, path);
      w.u8(y === 0 ? 0 : y - offset);
    };
  },
};

/** TIME before 5.6: a signed ±HHMMSS integer in 3 bytes. */
export const time: CellCodec = {
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
export const datetime: CellCodec = {
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

export const timestamp: CellCodec = {
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

export const timestamp2: CellCodec = {
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
export const datetime2: CellCodec = {
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
export const time2: CellCodec = {
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
