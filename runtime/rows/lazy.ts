/**
 * Lazy rows (ReadOptions `rows: 'lazy'`): each image a view whose cells are decoded when read. Splitting
 * the images into rows steps over each value (its cell's skipper: a fixed width, or a length read and
 * checked) and keeps where it starts; reading a cell runs the eager path's own cell reader at that
 * offset, and `toJSON()` the eager path's own row reader over the image, so that every value is exactly
 * the eager one. A consumer that reads a key and one column decodes those two.
 *
 * When errors surface: an image that does not split (a length running past the end, a table without its
 * TABLE_MAP) fails the split as it does eagerly, with the same error; a value that does not read (an
 * impossible date, a bad DECIMAL) fails when that cell is read, with the error the eager decode would
 * have met (same class, offset and schema path), where the eager decode keeps the event's images as bytes
 * (`rowImagesUndecoded`) instead. The views read the event's bytes when asked: those must stay as they
 * were (the readers never reuse them). Changes whose after image holds JSON diffs (PARTIAL_UPDATE_ROWS)
 * and rows v0 are decoded at once, and given as views of their decoded values.
 */
import {
  nullBitmapBytes,
  RowImages,
  type RowChangeSteps,
  type RowImageName,
  rowImagePaths,
  walkRowChange,
} from '../../generated/rows.js';
import type { Reader } from '../core/reader.js';
import type { RowLayout } from '../core/tables.js';
import type { CellValue, Row, RowChange } from '../core/values.js';
import type { TableInfo } from '../values/column.js';
import { decodeRows, imageLayout, nullBitmap, table, type Image, type TableLookup } from './images.js';

const { JSON_DIFFS } = RowImages;

/** A row change under `rows: 'lazy'`: its images as views. */
export type LazyRowChange<C extends RowChange = RowChange> = Omit<C, 'before' | 'after'> & {
  before?: LazyRow;
  after?: LazyRow;
};

/** Where an image's present columns are, by name and by their index in the table; made once per image layout. */
interface Columns {
  names: readonly string[];
  byName: ReadonlyMap<string, number>;
  /** Table column index → position among the present columns, -1 when absent. */
  byIndex: Int32Array;
}

const COLUMNS = new WeakMap<Image, Columns>();

function columnsOf(img: Image): Columns {
  let made = COLUMNS.get(img);
  if (!made) {
    const names = img.columns.map((c) => c.name);
    const byIndex = new Int32Array(img.columns.reduce((n, c) => Math.max(n, c.index + 1), 0)).fill(-1);
    img.columns.forEach((c, k) => (byIndex[c.index] = k));
    made = { names, byName: new Map(names.map((name, k) => [name, k])), byIndex };
    COLUMNS.set(img, made);
  }
  return made;
}

/** One image's rows of one event: its reader, and for each row its null bitmap's offset then its values'. */
interface Images {
  r: Reader;
  img: Image;
  columns: Columns;
  offsets: number[];
}

/**
 * A row image whose cells are decoded when read. `get` takes a column's name (as the eager row's keys) or
 * its 0-based index in the table; a column absent from the image (MINIMAL, NOBLOB) gives undefined, a
 * NULL null.
 */
export class LazyRow {
  /** For a row decoded at once: its values, and its columns in order. */
  private constructor(
    private readonly images: Images | undefined,
    private readonly at: number,
    private readonly columns: Columns,
    private readonly decoded?: Row,
  ) {}

  /** @internal The row whose null bitmap's offset is `images.offsets[at]`. */
  static over(images: Images, at: number): LazyRow {
    return new LazyRow(images, at, images.columns);
  }

  /** @internal A row decoded already (rows v0, JSON diffs) of a table with these columns. */
  static of(row: Row, table: TableInfo): LazyRow {
    const names = Object.keys(row);
    const indexes = names.map((name) => table.columns.findIndex((c) => c.name === name));
    const byIndex = new Int32Array(indexes.reduce((n, i) => Math.max(n, i + 1), 0)).fill(-1);
    indexes.forEach((i, k) => (byIndex[i] = k));
    return new LazyRow(undefined, 0, { names, byName: new Map(names.map((name, k) => [name, k])), byIndex }, row);
  }

  /** The present columns' names, in table order (the eager row's keys). */
  get names(): readonly string[] {
    return this.columns.names;
  }

  has(column: string | number): boolean {
    return this.position(column) >= 0;
  }

  /** A cell's value, decoded now (each read decodes it again: keep it if it is needed twice). */
  get(column: string | number): CellValue | undefined {
    const k = this.position(column);
    if (k < 0) return undefined;
    if (this.decoded) return this.decoded[this.columns.names[k]!];
    const { r, img, offsets } = this.images!;
    const at = offsets[this.at + 1 + k]!;
    if (at < 0) return null;
    r.pos = at;
    return img.cells[k]!(r);
  }

  /** Every cell's value: the row the eager decode gives. */
  materialize(): Row {
    if (this.decoded) return this.decoded;
    const { r, img, offsets } = this.images!;
    const nulls = offsets[this.at]!;
    r.pos = nulls + nullBitmapBytes(img.columns.length);
    return img.read(r, nulls, img.cells);
  }

  toJSON(): Row {
    return this.materialize();
  }

  private position(column: string | number): number {
    const { byName, byIndex } = this.columns;
    return (typeof column === 'number' ? byIndex[column] : byName.get(column)) ?? -1;
  }
}

/** The lazy split's steps: each image's null bitmap read, its values stepped over and their offsets kept. */
class SkipSteps implements RowChangeSteps<Reader, LazyRowChange> {
  constructor(
    private readonly images: Record<RowImageName, Images>,
    private readonly paths: Record<RowImageName, string>,
  ) {}

  before(r: Reader, change: LazyRowChange): void {
    change.before = this.image(r, change, 'before');
  }

  after(r: Reader, change: LazyRowChange): void {
    change.after = this.image(r, change, 'after');
  }

  /** The image's view, its null bitmap read and its values stepped over. */
  private image(r: Reader, change: LazyRowChange, image: RowImageName): LazyRow {
    const images = this.images[image];
    const { img, offsets } = images;
    const at = offsets.length;
    const nulls = nullBitmap(r, img, change, image, this.paths[image]);
    offsets.push(nulls);
    img.skip(r, nulls, img.skippers, img.widths, offsets);
    return LazyRow.over(images, at);
  }

  /** Changes with value options are decoded at once (splitLazyRows). */
  options(): void {
    throw new Error('lazy rows step over no value options');
  }
}

/** Rows v1/v2 as lazy views: decodeRows's images, split without decoding their values. */
export function splitLazyRows(r: Reader, tables: TableLookup, layout: RowLayout): LazyRowChange[] {
  const { images, path } = layout;
  const t = table(tables, layout.tableId, r.offset, path);
  const { before, after } = imageLayout(t, layout, r);
  // Diffs apply to the before image's documents; images of no columns are refused: both as decodeRows does.
  if (images & JSON_DIFFS || (before.columns.length === 0 && after.columns.length === 0 && r.pos < r.end)) {
    return decodeRows(r, tables, layout).map((c) => viewsOf(c, t));
  }
  const offsets: number[] = [];
  const befores: Images = { r, img: before, columns: columnsOf(before), offsets };
  const afters: Images = before === after ? befores : { r, img: after, columns: columnsOf(after), offsets };
  const steps = new SkipSteps({ before: befores, after: afters }, rowImagePaths(path));
  const out: LazyRowChange[] = [];
  while (r.pos < r.end) {
    const change: LazyRowChange = {};
    walkRowChange(r, images, change, steps);
    out.push(change);
  }
  return out;
}

/** A change decoded at once, its images as views (its keys in their order, as the JSON form shows them). */
export function viewsOf<C extends RowChange>(change: C, t: TableInfo): LazyRowChange<C> {
  const entries = Object.entries(change).map(([k, v]) => [
    k,
    k === 'before' || k === 'after' ? LazyRow.of(v as Row, t) : v,
  ]);
  return Object.fromEntries(entries) as LazyRowChange<C>;
}
