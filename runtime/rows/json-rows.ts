/**
 * The dump's rows (row-tables.ts's DUMP_ROWS, which no public option names): a rows event's images left
 * where they are, then written as JSON in one pass over their bytes, each value by its cell's JSON writer
 * (UTF-8 text escaped from the bytes, other values as their reader gives them) under names encoded once
 * per layout: no row object, no text made into a JS string and encoded back.
 *
 * The line must be the eager decode's, byte for byte. Where one pass cannot know it (a value that does not
 * read, after which the eager decode keeps the images as bytes; unused null-bitmap bits a server would
 * not leave, which the eager change records before its image), `writeJson` throws, and `eager()` gives
 * what the eager decode gives for the same bytes (runtime/events/event-json.ts's writeDumpEvent).
 */
import { RowImages, type RowChangeSteps, type RowImageName, rowImagePaths, walkRowChange } from '../../generated/rows.js';
import { BinlogError } from '../core/errors.js';
import { jsonKey, type JsonBytes, type WritesJson } from '../core/json-bytes.js';
import { Reader } from '../core/reader.js';
import type { RowLayout, RowsSplit } from '../core/tables.js';
import type { RowChange } from '../core/values.js';
import type { TableInfo } from '../values/column.js';
import { imageLayout, nullBitmap, splitRows, type Image, type ImageLayout } from './images.js';

const { JSON_DIFFS } = RowImages;

/** Each image's key, `"name":`, and after a comma. */
const KEYS = { before: jsonKey('before'), after: jsonKey('after') };
const LATER_KEYS = { before: Buffer.concat([Buffer.of(0x2c), KEYS.before]), after: Buffer.concat([Buffer.of(0x2c), KEYS.after]) };

/** A change's unused null-bitmap bits, where nullBitmap records them: one object, emptied after each image. */
const spare: Pick<RowChange, 'nullSpare'> = {};

/** Thrown where one pass cannot write the eager decode's line; the writer then takes `eager()`. */
export class NotInOnePass extends Error {}

export class JsonRows implements WritesJson {
  private constructor(
    private readonly r: Reader,
    private readonly start: number,
    private readonly t: TableInfo,
    private readonly layout: RowLayout,
    private readonly images: ImageLayout,
  ) {}

  /**
   * The rows at `r`, read to its end, to be written later; undefined where one pass would not give the
   * eager line anyway (JSON diffs, a layout that does not fit the table, images of no columns, names a JS
   * object would reorder), which are then decoded eagerly.
   */
  static over(r: Reader, t: TableInfo, layout: RowLayout): JsonRows | undefined {
    if (layout.images & JSON_DIFFS) return undefined;
    let made: ImageLayout;
    try {
      made = imageLayout(t, layout, r);
    } catch (e) {
      if (e instanceof BinlogError) return undefined;
      throw e;
    }
    const { before, after } = made;
    if (!before.json || !after.json || (before.columns.length === 0 && after.columns.length === 0)) return undefined;
    const rows = new JsonRows(r, r.pos, t, layout, made);
    r.pos = r.end;
    return rows;
  }

  /** The changes as JsonBytes.rows writes the eager decode's. */
  writeJson(w: JsonBytes): void {
    const r = this.reader();
    const steps = new JsonSteps(this.images, this.layout.path);
    w.byte(0x5b);
    for (let n = 0; r.pos < r.end; n++) {
      if (n) w.byte(0x2c);
      w.byte(0x7b);
      steps.first = true;
      walkRowChange(r, this.layout.images, w, steps);
      w.byte(0x7d);
    }
    w.byte(0x5d);
  }

  /** What the eager decode gives for these bytes: the rows, or why they stay bytes, and the bytes. */
  eager(): RowsSplit {
    const t = this.t;
    return splitRows(this.reader(), { get: () => t }, this.layout);
  }

  /** A reader of the images alone, from their start (the event's reader is the decoder's, which moves on). */
  private reader(): Reader {
    const { r } = this;
    return new Reader(r.buf, this.start, r.end, r.base, r.dv);
  }
}

/** The dump's steps: each image's JSON object under its name, after a comma but for the change's first. */
class JsonSteps implements RowChangeSteps<Reader, JsonBytes> {
  first = true;
  private readonly paths: Record<RowImageName, string>;

  constructor(
    private readonly layout: ImageLayout,
    path: string,
  ) {
    this.paths = rowImagePaths(path);
  }

  before(r: Reader, w: JsonBytes): void {
    w.raw(this.first ? KEYS.before : LATER_KEYS.before);
    this.image(r, w, this.layout.before, 'before', this.paths.before);
  }

  after(r: Reader, w: JsonBytes): void {
    w.raw(this.first ? KEYS.after : LATER_KEYS.after);
    this.image(r, w, this.layout.after, 'after', this.paths.after);
  }

  /** The image's null bitmap, then each present column's value or null. */
  private image(r: Reader, w: JsonBytes, img: Image, name: RowImageName, path: string): void {
    this.first = false;
    const nulls = nullBitmap(r, img, spare, name, path);
    if (spare.nullSpare) {
      spare.nullSpare = undefined;
      throw new NotInOnePass('unused null-bitmap bits are set');
    }
    img.json!(r, nulls, img.jsons, w);
  }

  /** Changes with value options are decoded eagerly (JsonRows.over). */
  options(): void {
    throw new NotInOnePass('value options');
  }
}
