/**
 * MariaDB's own TIME(n), DATETIME(n) and TIMESTAMP(n), n > 0, read without the table's definition. MariaDB
 * 5.3 and later log them under TIME, DATETIME and TIMESTAMP (the type codes of the forms without a
 * fraction, which a TIME(0) of the same table still has) with no metadata: nothing in the binlog says n.
 * So n is inferred, per table: the digits (0 to 6) of each such column that make every image of the row
 * event split, cell after cell, each value one its codec reads and writes back to the same bytes (a real
 * date, time and fraction, the encoder's range checks passed), the last image ending where the event's
 * images end. One assignment that fits: the rows are read with it, the event says it
 * (`inferredFractionDigits`, the columns of n > 0) and it is kept for the table's later events while they
 * fit it. None, or more than one (the TIMESTAMP(n) that reads as TIMESTAMP(0) too, with other row
 * boundaries): the images stay bytes with the reason.
 *
 * The search is depth first over the columns in the order their first non-NULL value comes in the images,
 * each choice checked at once against that cell and the cells after it: a wrong size nearly always makes
 * a value that does not read, or images that do not end with the event, within the first rows. A column
 * whose every value is NULL takes no bytes, and no choice. At most MAX_TRIES choices are tried, and at
 * most two fits looked for: past that the images stay bytes, the reason saying so.
 */
import { FRACTION_STEP } from '../../generated/cells.js';
import { nullBitMask, nullBitmapBytes, nullByte, walkRowChange } from '../../generated/rows.js';
import { BinlogError, EncodeError } from '../core/errors.js';
import type { Reader } from '../core/reader.js';
import type { RowChangeInput } from '../core/values.js';
import type { RowLayout, RowsSplit } from '../core/tables.js';
import { Writer } from '../core/writer.js';
import { unsized, withFraction } from '../tables/defined-columns.js';
import { cellCodec } from '../values/cells.js';
import type { CellReader, CellWriter } from '../values/cell-codec.js';
import type { Column, TableInfo } from '../values/column.js';
import { encodeRows, splitRows } from './images.js';

/** Fraction digits by column name (`@N` where the TABLE_MAP names none). */
export type Digits = Record<string, number>;

/** The most choices of a column's digits one event's search tries (each a cell read, and the cells after it). */
export const MAX_TRIES = 4096;
/** Fraction digits go to 6 (microseconds). */
const MAX_DIGITS = FRACTION_STEP.length - 1;

/** Whether some column of the table may be MariaDB's own fractional form, of digits the binlog does not say. */
export const hasUnsized = (t: TableInfo) => t.columns.some(unsized);

/** The table read with these digits, one per digits and table, so that the row layouts cached on it are kept. */
const DERIVED = new WeakMap<TableInfo, Map<string, TableInfo>>();

function withDigits(t: TableInfo, digits: Readonly<Digits>): TableInfo {
  const key = JSON.stringify(digits);
  let made = DERIVED.get(t);
  if (!made) DERIVED.set(t, (made = new Map()));
  let derived = made.get(key);
  if (!derived) {
    derived = { ...t, columns: t.columns.map((c) => (digits[c.name] ? withFraction(c, digits[c.name]!) : c)) };
    made.set(key, derived);
  }
  return derived;
}

/** The digits of n > 0 alone: what the event says (none: the rows read as the types without a fraction). */
function marked(digits: Digits): Digits | undefined {
  const some = Object.entries(digits).filter(([, n]) => n > 0);
  return some.length ? Object.fromEntries(some) : undefined;
}

const names = (t: TableInfo) =>
  t.columns
    .filter(unsized)
    .map((c) => c.name)
    .join(', ');

/**
 * The inference of each table's digits over one stream's row events, kept by table id and `schema.table`:
 * a server gives a table a new id when it opens it anew, as after an ALTER TABLE that may change its
 * digits and not its TABLE_MAP, so that another id is inferred afresh.
 */
export class FractionInference {
  private readonly kept = new Map<string, Digits>();

  /** The rows of an event of table `t` (named `qualified`), read with the digits kept for it or those inferred. */
  split(r: Reader, t: TableInfo, qualified: string, layout: RowLayout): RowsSplit {
    const start = r.pos;
    const name = `${t.tableId} ${qualified}`;
    const kept = this.kept.get(name);
    if (kept) {
      const split = splitWith(r, t, kept, layout);
      if (split.rows) return split;
      this.kept.delete(name);
      r.pos = start;
    }
    const search = new Search(r, t, layout);
    r.pos = start;
    const reason = search.unfit(t);
    if (reason)
      return { undecoded: `the row images do not split into rows: ${reason}; kept as bytes`, bytes: r.rest() };
    const digits = { ...kept, ...search.found[0]! };
    const split = splitWith(r, t, digits, layout);
    if (split.rows) this.kept.set(name, digits);
    return split;
  }
}

function splitWith(r: Reader, t: TableInfo, digits: Digits, layout: RowLayout): RowsSplit {
  const derived = withDigits(t, digits);
  const split = splitRows(r, { get: () => derived }, layout);
  return split.rows ? { rows: split.rows, inferred: marked(digits) } : split;
}

/**
 * Writes rows with the digits an event says (RowsSplit.inferred), each checked to be for a column the binlog does not
 * size.
 */
export function encodeWithDigits(
  w: Writer,
  rows: RowChangeInput[],
  t: TableInfo,
  digits: Readonly<Digits>,
  layout: RowLayout,
): void {
  const { path } = layout;
  for (const [name, n] of Object.entries(digits)) {
    const c = t.columns.find((x) => x.name === name);
    const at = `${path}.inferredFractionDigits.${name}`;
    if (!c || !unsized(c))
      throw new EncodeError(
        `column '${name}' is no TIME, DATETIME or TIMESTAMP whose fraction digits the binlog leaves unsaid`,
        at,
      );
    if (!Number.isInteger(n) || n < 1 || n > MAX_DIGITS)
      throw new EncodeError(`${n} is no number of fraction digits (1 to ${MAX_DIGITS})`, at);
  }
  const derived = withDigits(t, digits);
  encodeRows(w, rows, { get: () => derived }, layout);
}

/** A present column of an image: its cell's reader and writer for each digits (one, for a column the binlog sizes). */
interface Slot {
  column: Column;
  unsized: boolean;
  read: CellReader[];
  write: CellWriter[];
}

function slot(c: Column, path: string): Slot {
  const variants = unsized(c) ? Array.from({ length: MAX_DIGITS + 1 }, (_, n) => (n ? withFraction(c, n) : c)) : [c];
  const at = `${path}.${c.name}`;
  return {
    column: c,
    unsized: variants.length > 1,
    read: variants.map((v) => cellCodec(v).reader(v, at)),
    write: variants.map((v) => cellCodec(v).writer(v, at)),
  };
}

/** The depth-first search of one event's digits (see the module's comment). */
class Search {
  /** The images of a change in turn (before, after), each its present columns. */
  private readonly images: Slot[][];
  /** The digits chosen so far, by column index (-1: none yet). */
  private readonly digits: number[];
  private readonly end: number;
  private readonly scratch = new Writer(16);
  private tries = 0;
  capped = false;
  readonly found: Digits[] = [];

  constructor(
    private readonly r: Reader,
    private readonly t: TableInfo,
    { columns, columnsAfter = columns, images, path }: RowLayout,
  ) {
    const present = (bits: boolean[]) => t.columns.filter((_, i) => bits[i]).map((c) => slot(c, path));
    this.images = [];
    walkRowChange(undefined, images, this.images, {
      before: (_, list) => list.push(present(columns)),
      // MySQL's partial JSON updates are never MariaDB's (row-tables.ts infers no digits for them).
      options: () => {
        throw new Error('no fraction digits are inferred for rows with value options');
      },
      after: (_, list) => list.push(present(columnsAfter)),
    });
    this.digits = t.columns.map(() => -1);
    this.end = r.end;
    // Images of no columns take no bytes, and would never end (splitRows refuses them).
    if (this.images.length && this.images.some((i) => i.length)) this.walk(r.pos, 0, -1, 0);
    else this.found.push({});
  }

  /** Why the search found no one assignment, or undefined when it did. */
  unfit(t: TableInfo): string | undefined {
    if (this.capped)
      return (
        `more than ${MAX_TRIES} choices of fraction digits for ${names(t)} (MariaDB's own TIME(n), DATETIME(n), ` +
        `TIMESTAMP(n), whose n the binlog does not say) were tried; give the table's definition`
      );
    if (this.found.length === 0)
      return `no fraction digits (0 to ${MAX_DIGITS}) for ${names(t)} make every image read and end with the event`;
    if (this.found.length > 1) {
      const shown = this.found.map((d) => JSON.stringify(d)).join(' and ');
      return (
        `more than one choice of fraction digits for ${names(t)} makes every image read and end with the event ` +
        `(${shown}); give the table's definition`
      );
    }
    return undefined;
  }

  /**
   * Reads on from `pos`: image `image` of the change, at its present column `k` (-1: at its null bitmap,
   * which `nulls` is the start of once read). Records each assignment whose images end with the event.
   */
  private walk(pos: number, image: number, k: number, nulls: number): void {
    const buf = this.r.buf;
    for (;;) {
      const slots = this.images[image]!;
      if (k < 0) {
        if (image === 0 && pos === this.end) return this.record();
        nulls = pos;
        pos += nullBitmapBytes(slots.length);
        if (pos > this.end) return;
        k = 0;
      }
      if (k === slots.length) {
        image = (image + 1) % this.images.length;
        k = -1;
        continue;
      }
      const s = slots[k]!;
      if (buf[nulls + nullByte(k)]! & nullBitMask(k)) {
        k++;
        continue;
      }
      const chosen = s.unsized ? this.digits[s.column.index]! : 0;
      if (chosen >= 0) {
        pos = this.cell(s, chosen, pos);
        if (pos < 0) return;
        k++;
        continue;
      }
      for (let n = 0; n <= MAX_DIGITS; n++) {
        if (++this.tries > MAX_TRIES) {
          this.capped = true;
          return;
        }
        const next = this.cell(s, n, pos);
        if (next < 0) continue;
        this.digits[s.column.index] = n;
        this.walk(next, image, k + 1, nulls);
        this.digits[s.column.index] = -1;
        if (this.capped || this.found.length > 1) return;
      }
      return;
    }
  }

  /** Where the cell at `pos` ends read with digits `n`, or -1 where it does not read or write back to its bytes. */
  private cell(s: Slot, n: number, pos: number): number {
    const r = this.r;
    r.pos = pos;
    try {
      const v = s.read[n]!(r);
      if (!s.unsized) return r.pos;
      const w = this.scratch;
      w.reset();
      s.write[n]!(w, v);
      const stored = r.buf.subarray(pos, r.pos);
      const again = w.view();
      return again.length === stored.length && again.every((b, i) => b === stored[i]) ? r.pos : -1;
    } catch (e) {
      if (e instanceof BinlogError) return -1;
      throw e;
    }
  }

  /** The digits of the columns read (a column whose values were all NULL has none). */
  private record(): void {
    const digits: Digits = {};
    for (const c of this.t.columns) if (this.digits[c.index]! >= 0) digits[c.name] = this.digits[c.index]!;
    this.found.push(digits);
  }
}
