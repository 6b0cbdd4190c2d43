/**
 * Row images, as schemas/rows.yaml's rowImages lays them out: each change's parts by the generated
 * walkRowChange, each image a null bitmap then the values of its present non-NULL columns, each by its
 * column's cell codec, read and written by code compiled per list of column names. A column absent from
 * an image (MINIMAL and NOBLOB row images) is absent from the row object.
 */
import type { Context } from '../../generated/context.js';
import {
  decodeRowOptions,
  encodeRowOptions,
  nullBitmapBytes,
  nullSpareOf,
  RowImages,
  rowOptionColumns,
  type RowChangeSteps,
  type RowImageName,
  rowImagePaths,
  serverNullSpare,
  setNullSpare,
  walkRowChange,
} from '../../generated/rows.js';
import { placedError } from '../core/schema-helpers.js';
import { EXTRA_KEYS, imageCode, type ImageCode } from './image-code.js';
import { cellCodec } from '../values/cells.js';
import { BinlogError, EncodeError, InvalidValueError, UnknownTableError } from '../core/errors.js';
import { addResultingJson, checkResultingJson } from './json-diff.js';
import type { Reader } from '../core/reader.js';
import type { TableRegistry } from '../tables/registry.js';
import type { Writer } from '../core/writer.js';
import type { Row, RowChange, RowChangeInput } from '../core/values.js';
import type { RowLayout, RowsSplit } from '../core/tables.js';
import type { Column, TableInfo } from '../values/column.js';
import type { CellJsonWriter, CellReader, CellSkipper, CellWriter } from '../values/cell-codec.js';
import { jsonDiffCodec } from '../values/json-cells.js';

/** Where the rows find their table: the registry, or one table read with other layouts (fractions.ts). */
export type TableLookup = Pick<TableRegistry, 'get'>;

/**
 * The image bits of schemas/rows.yaml's RowImages. JSON_DIFFS (set with BEFORE | AFTER) marks MySQL's
 * PARTIAL_UPDATE_ROWS, whose after images may hold JSON diffs.
 */
const { BEFORE, AFTER, JSON_DIFFS } = RowImages;

/** An image's present columns: each has its value reader, skipper and writer, and the schema path its errors name. */
export interface Image extends ImageCode {
  columns: Column[];
  cells: CellReader[];
  skippers: CellSkipper[];
  /** Each value's bytes where its column fixes them, else 0 (image-code.ts's skip). */
  widths: Int32Array;
  writers: CellWriter[];
  /** Each value's JSON writer, which the dump's rows write it with. */
  jsons: CellJsonWriter[];
  paths: string[];
}

/** Prepares the present columns of an image, each with its codec, once per table and layout. */
function presentColumns(table: TableInfo, present: boolean[], r: Reader | undefined, path: string): Image {
  if (present.length > table.columns.length) {
    const problem = `the row event has ${present.length} columns, its TABLE_MAP ${table.columns.length}`;
    if (r) throw new InvalidValueError(problem, { offset: r.offset, schemaPath: path });
    throw new EncodeError(problem, path);
  }
  const columns = table.columns.filter((_, i) => present[i]);
  const names = columns.map((c) => c.name);
  const codecs = columns.map(cellCodec);
  const paths = names.map((name) => `${path}.${name}`);
  const writers = columns.map((c, k) => codecs[k]!.writer(c, paths[k]!));
  const skippers = columns.map((c, k) => codecs[k]!.skipper(c, paths[k]!));
  const widths = Int32Array.from(columns, (c, k) => codecs[k]!.width?.(c) ?? 0);
  const cells = columns.map((c, k) => codecs[k]!.reader(c, paths[k]!));
  const jsons = columns.map((c, k) => codecs[k]!.json?.(c, paths[k]!) ?? valueJson(cells[k]!));
  return { columns, cells, skippers, widths, writers, jsons, paths, ...imageCode(names) };
}

/** A cell without a JSON writer of its own writes the value its reader gives, as the dump writes values. */
function valueJson(read: CellReader): CellJsonWriter {
  return (r, w) => w.value(read(r));
}

export function table(tables: TableLookup, tableId: number, offset: number, path: string): TableInfo {
  const t = tables.get(tableId);
  if (!t) throw new UnknownTableError(`no TABLE_MAP for table id ${tableId}`, { offset, schemaPath: path });
  return t;
}

function readImage(r: Reader, img: Image, change: RowChange, image: RowImageName, path: string): Row {
  return img.read(r, nullBitmap(r, img, change, image, path), img.cells);
}

/**
 * Steps over an image's null bitmap and returns where it starts. Unused bits that servers would not leave
 * are kept with the change, so that it encodes back the same.
 */
export function nullBitmap(
  r: Reader,
  img: Image,
  change: Pick<RowChange, 'nullSpare'>,
  image: RowImageName,
  path: string,
): number {
  const n = img.columns.length;
  const nulls = r.pos;
  r.pos += r.length(nullBitmapBytes(n), path);
  const spare = nullSpareOf(r.buf[r.pos - 1]!, n);
  if (spare !== serverNullSpare(n)) (change.nullSpare ??= {})[image] = spare;
  return nulls;
}

/**
 * Writes one image of a change of the rows at `rows`; the cells' errors name `rows.column` and are placed in the image.
 */
function writeImage(w: Writer, change: RowChangeInput, image: RowImageName, img: Image, rows: string): void {
  const row = change[image];
  if (!row) throw new EncodeError('a row image this event needs is missing', `${rows}.${image}`);
  const { columns } = img;
  const n = columns.length;
  const at = w.reserve(nullBitmapBytes(n));
  setNullSpare(w.buf, at, n, change.nullSpare?.[image] ?? serverNullSpare(n));
  let missing: number;
  try {
    missing = img.write(w, row, at, img.writers);
  } catch (e) {
    // The image's path is made only for an error: a string per row would cost as much as a small row's writing.
    throw placedError(e, rows, `${rows}.${image}`);
  }
  if (missing === EXTRA_KEYS) {
    const extra = Object.keys(row).find((name) => !columns.some((c) => c.name === name));
    throw new EncodeError(`column '${extra}' is not present in this image`, `${rows}.${image}`);
  }
  if (missing >= 0)
    throw new EncodeError(
      `column '${columns[missing]!.name}' is present in the image but has no value`,
      `${rows}.${image}`,
    );
}

/**
 * What each row of a row event holds, its RowLayout resolved against its table: the columns and code of
 * its images, and the JSON columns diffs may be for.
 */
export interface ImageLayout {
  before: Image;
  after: Image;
  jsonColumns: Column[];
}

/**
 * Each table's image layouts are kept by images and present columns, since a table's row events nearly always share
 * one.
 */
const MAX_LAYOUTS = 64;
const LAYOUTS = new WeakMap<TableInfo, Map<string, ImageLayout>>();

/** The key of a bitmap is "1" for each present column and "0" for each absent one, made without an array. */
function bits(present: boolean[]): string {
  let s = '';
  for (const p of present) s += p ? '1' : '0';
  return s;
}

/** The layout's images resolved against table `t`, once per table and layout; `r` places the errors of a decode. */
export function imageLayout(
  t: TableInfo,
  { columns, columnsAfter, images, path }: RowLayout,
  r: Reader | undefined,
): ImageLayout {
  const key = `${images} ${path} ${bits(columns)} ${columnsAfter ? bits(columnsAfter) : ''}`;
  let layouts = LAYOUTS.get(t);
  const known = layouts?.get(key);
  if (known) return known;
  const before = presentColumns(t, columns, r, path);
  // An UPDATE whose images have the same columns reads both with the same cell readers, so that those
  // that keep their last value (values/strings.ts, values/temporal.ts) give the before image's back for each column
  // left alone.
  const sameColumns = !columnsAfter || bits(columnsAfter) === bits(columns);
  const after = images & BEFORE && images & AFTER && !sameColumns ? presentColumns(t, columnsAfter, r, path) : before;
  const jsonColumns = images & JSON_DIFFS ? rowOptionColumns(t.columns) : [];
  const made = { before, after, jsonColumns };
  if (!layouts) LAYOUTS.set(t, (layouts = new Map()));
  if (layouts.size >= MAX_LAYOUTS) layouts.clear();
  layouts.set(key, made);
  return made;
}

export function decodeRows(r: Reader, tables: TableLookup, layout: RowLayout): RowChange[] {
  return withDocuments(splitImages(r, tables, layout), layout.path);
}

/**
 * decodeRows, or where the images do not split into rows (a value that does not read, images that do not
 * end with the event: a column whose layout the binlog does not say, as MariaDB's own fractional
 * temporals without a definition), why, and their bytes: the event is still delivered, and encodes back
 * as it was. Without the table's TABLE_MAP nothing is known of the images, and that stays an error; so
 * does a JSON diff that does not apply to its document, which split.
 */
export function splitRows(r: Reader, tables: TableLookup, layout: RowLayout): RowsSplit {
  const split = orBytes(r, () => splitImages(r, tables, layout));
  return split.rows ? { rows: withDocuments(split.rows, layout.path) } : split;
}

/** Gives the rows `split` reads from `r`; where they do not split (see splitRows), it gives why, and their bytes. */
export function orBytes<T>(
  r: Reader,
  split: () => T,
): { rows: T; undecoded?: undefined; bytes?: undefined } | Exclude<RowsSplit, { rows: RowChange[] }> {
  const start = r.pos;
  try {
    return { rows: split() };
  } catch (e) {
    if (!(e instanceof BinlogError) || e instanceof UnknownTableError) throw e;
    r.pos = start;
    const where = e.schemaPath ? ` (${e.schemaPath})` : '';
    return { undecoded: `the row images do not split into rows: ${e.problem}${where}; kept as bytes`, bytes: r.rest() };
  }
}

/** A change whose after image holds JSON diffs: the JSON columns whose value is one, and where that image starts. */
interface DiffChange {
  change: RowChange;
  diffs: Set<Column>;
  afterAt: number;
}

/**
 * The changes as their images split, and those of them whose after image holds JSON diffs (rare: only
 * MySQL's PARTIAL_UPDATE_ROWS has any), kept apart so that the others need nothing but their change.
 */
interface SplitChanges {
  changes: RowChange[];
  withDiffs: DiffChange[];
}

function splitImages(r: Reader, tables: TableLookup, layout: RowLayout): SplitChanges {
  const { images, path } = layout;
  const made = imageLayout(table(tables, layout.tableId, r.offset, path), layout, r);
  if (made.before.columns.length === 0 && made.after.columns.length === 0 && r.pos < r.end) {
    // Images of no columns take no bytes: the rows would never end.
    throw new InvalidValueError('row images of no columns, with bytes after them', {
      offset: r.offset,
      schemaPath: path,
    });
  }
  const steps = new ReadSteps(made, path);
  const changes: RowChange[] = [];
  while (r.pos < r.end) {
    const change: RowChange = {};
    walkRowChange(r, images, change, steps);
    changes.push(change);
  }
  return { changes, withDiffs: steps.withDiffs };
}

/** The eager decode's steps read each image into a row of the change, and the value options into the change. */
class ReadSteps implements RowChangeSteps<Reader, RowChange> {
  private readonly paths: Record<RowImageName, string>;
  readonly withDiffs: DiffChange[] = [];

  constructor(
    private readonly layout: ImageLayout,
    private readonly path: string,
  ) {
    this.paths = rowImagePaths(path);
  }

  before(r: Reader, change: RowChange): void {
    change.before = readImage(r, this.layout.before, change, 'before', this.paths.before);
  }

  /** An after image's JSON columns may hold diffs, as the value options before it say. */
  after(r: Reader, change: RowChange): void {
    const diffs = partialColumns(this.layout.jsonColumns, change);
    if (!diffs) {
      change.after = readImage(r, this.layout.after, change, 'after', this.paths.after);
      return;
    }
    this.withDiffs.push({ change, diffs, afterAt: r.offset });
    change.after = readImage(r, withDiffs(this.layout.after, diffs), change, 'after', this.paths.after);
  }

  options(r: Reader, change: RowChange): void {
    const { jsonOptions, partialJson } = decodeRowOptions(r, NO_CONTEXT, this.layout.jsonColumns.length, this.path);
    change.jsonOptions = jsonOptions;
    if (partialJson) change.partialJson = partialJson;
  }
}

/** Adds each JSON diff's resulting document beside it in its change. */
function withDocuments({ changes, withDiffs }: SplitChanges, path: string): RowChange[] {
  for (const { change, diffs, afterAt } of withDiffs) addResultingJson(change, diffs, afterAt, `${path}.after`);
  return changes;
}

/** The value options read nothing of the stream's context. */
const NO_CONTEXT = {} as Context;

/** Finds the JSON columns whose after-image value is a diff, if any. */
function partialColumns(jsonColumns: Column[], change: RowChangeInput): Set<Column> | undefined {
  if (!change.partialJson) return undefined;
  return new Set(jsonColumns.filter((_, i) => change.partialJson![i]));
}

/** Gives the after image's columns the diff codec where their JSON column holds a diff. */
function withDiffs(img: Image, diffs: Set<Column>): Image {
  const diff = (c: Column) => diffs.has(c);
  return {
    ...img,
    writers: img.columns.map((c, k) => (diff(c) ? jsonDiffCodec.writer(c, img.paths[k]!) : img.writers[k]!)),
    cells: img.columns.map((c, k) => (diff(c) ? jsonDiffCodec.reader(c, img.paths[k]!) : img.cells[k]!)),
  };
}

export function encodeRows(w: Writer, rows: RowChangeInput[], tables: TableLookup, layout: RowLayout): void {
  const { tableId, images, path } = layout;
  const t = tables.get(tableId);
  if (!t) throw new EncodeError(`no TABLE_MAP for table id ${tableId} before this row event`, path);
  const steps = new WriteSteps(imageLayout(t, layout, undefined), path);
  // The paths name the change's parts, so that errors are placed at the change.
  for (let i = 0; i < rows.length; i++) {
    try {
      walkRowChange(w, images, rows[i]!, steps);
    } catch (e) {
      throw placedError(e, path, `${path}[${i}]`);
    }
  }
}

/** The encoder's steps write each image from its row, and the value options from the change. */
class WriteSteps implements RowChangeSteps<Writer, RowChangeInput> {
  constructor(
    private readonly layout: ImageLayout,
    private readonly path: string,
  ) {}

  before(w: Writer, change: RowChangeInput): void {
    writeImage(w, change, 'before', this.layout.before, this.path);
  }

  after(w: Writer, change: RowChangeInput): void {
    const diffs = partialColumns(this.layout.jsonColumns, change);
    if (diffs) checkResultingJson(change, diffs, `${this.path}.after`);
    writeImage(w, change, 'after', diffs ? withDiffs(this.layout.after, diffs) : this.layout.after, this.path);
  }

  options(w: Writer, change: RowChangeInput): void {
    const options = { jsonOptions: change.jsonOptions ?? 0, partialJson: change.partialJson ?? [] };
    encodeRowOptions(w, options, NO_CONTEXT, this.layout.jsonColumns.length, this.path);
  }
}
