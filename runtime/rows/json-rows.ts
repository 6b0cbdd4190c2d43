/**
 * The dump's rows (row-tables.ts's DUMP_ROWS, which no public option names). A rows event's images are left where they
 * are, and
 * `render` writes them as JSON in one pass over their bytes before the event's line is written: each value
 * goes through its cell's JSON writer (UTF-8 text escaped from the bytes, other values as their reader
 * gives them), under names encoded once per layout. No row object is made, and no text becomes a JS
 * string that is encoded back.
 *
 * What `render` gives is what the eager decode gives for the same bytes. Where a value does not read, the
 * eager decode keeps the images as bytes and says why; `render` does the same, from the same error. Where
 * an image's null bitmap has unused bits set that a server would not leave, the eager change records them
 * in `nullSpare` before its first image; `render` writes that member first too, holding the before image
 * back until the after image's bitmap is read.
 */
import {
  RowImages,
  type RowChangeSteps,
  type RowImageName,
  rowImagePaths,
  walkRowChange,
} from '../../generated/rows.js';
import { BinlogError } from '../core/errors.js';
import { JsonBytes, type JsonInPlace, jsonKey, JsonText } from '../core/dump-json-bytes.js';
import { Reader } from '../core/reader.js';
import type { RowLayout } from '../core/tables.js';
import type { RowChange } from '../core/values.js';
import type { TableInfo } from '../values/column.js';
import { imageLayout, nullBitmap, orBytes, type ImageLayout } from './images.js';

const { BEFORE, AFTER, JSON_DIFFS } = RowImages;

/** The keys of a change's members, `"name":`, each also after a comma. */
const KEYS = { before: jsonKey('before'), after: jsonKey('after'), nullSpare: jsonKey('nullSpare') };
/** The keys of nullSpare's members. */
const SPARE_KEYS = { before: jsonKey('before'), after: jsonKey('after') };
const LATER_KEYS = {
  before: Buffer.concat([Buffer.of(0x2c), KEYS.before]),
  after: Buffer.concat([Buffer.of(0x2c), KEYS.after]),
  nullSpare: Buffer.concat([Buffer.of(0x2c), KEYS.nullSpare]),
};

/**
 * The rows as `render` gives them: their JSON, or, where a value does not read, why the eager decode
 * keeps the images as bytes, and the bytes (the members of runtime/core/tables.ts's RowsSplit).
 */
export type RenderedRows =
  | { rows: JsonText; undecoded?: undefined; bytes?: undefined }
  | { rows?: undefined; undecoded: string; bytes: Uint8Array };

/**
 * What JsonRows.writeJson throws where a value does not read, so that the event's line is written again with
 * its images kept as bytes, as the eager decode keeps them (rowImagesUndecoded says why).
 */
export class ImagesKept extends Error {}

export class JsonRows implements JsonInPlace {
  /** The changes' JSON where writeJson wrote it. */
  written: JsonText | undefined;

  private constructor(
    private readonly r: Reader,
    private readonly start: number,
    private readonly layout: RowLayout,
    private readonly images: ImageLayout,
  ) {}

  /**
   * Takes the rows at `r`, reading it to its end, to be rendered later. It gives undefined where one pass
   * cannot give the eager line (JSON diffs, a layout that does not fit the table, images of no columns,
   * names a JS object would reorder), and those rows are then decoded eagerly.
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
    const rows = new JsonRows(r, r.pos, layout, made);
    r.pos = r.end;
    return rows;
  }

  /**
   * The changes' JSON, written at the end of `w` (a buffer of the dump's own, not the line's), as
   * JsonBytes.rows writes the eager decode's changes; or, where a value does not read, what the eager
   * decode keeps instead. The text stays in `w`'s buffer: `w` is to be written on only past it. Where
   * `ends` is given, the position after each change's closing brace is added to it, so that a caller can
   * take the changes one by one (the stream's records).
   */
  render(w: JsonBytes, ends?: number[]): RenderedRows {
    const r = this.reader();
    const start = w.pos;
    // orBytes is the eager decode's own test of whether the images split into rows, so the same error
    // gives the same answer.
    const split = orBytes(r, () => this.write(r, w, ends));
    if (split.undecoded !== undefined) {
      w.pos = start;
      return split;
    }
    return { rows: new JsonText(w.buf, start, w.pos) };
  }

  /**
   * Renders the changes at the end of `w` where the event's line reaches its rows. Where a value does not
   * read, `w` is left as it was and ImagesKept is thrown.
   */
  writeJson(w: JsonBytes): void {
    const split = this.render(w);
    if (split.rows === undefined) throw new ImagesKept(split.undecoded);
    this.written = split.rows;
  }

  private write(r: Reader, w: JsonBytes, ends: number[] | undefined): void {
    const { images, path } = this.layout;
    const steps = new JsonSteps(this.images, path, (images & BEFORE) !== 0 && (images & AFTER) !== 0);
    w.byte(0x5b);
    for (let n = 0; r.pos < r.end; n++) {
      if (n) w.byte(0x2c);
      w.byte(0x7b);
      steps.first = true;
      walkRowChange(r, images, w, steps);
      w.byte(0x7d);
      ends?.push(w.pos);
    }
    w.byte(0x5d);
  }

  /** Gives a reader of the images alone, from their start, since the event's reader is the decoder's and moves on. */
  private reader(): Reader {
    const { r } = this;
    return new Reader(r.buf, this.start, r.end, r.base, r.dv);
  }
}

/**
 * The dump's steps: each image's JSON object under its name, after a comma but for the change's first,
 * with the image's unused null-bitmap bits in `nullSpare` before it where the eager change has them.
 */
class JsonSteps implements RowChangeSteps<Reader, JsonBytes> {
  first = true;
  private readonly paths: Record<RowImageName, string>;
  /** Where nullBitmap records an image's unused bits; emptied after each image. */
  private readonly spare: Pick<RowChange, 'nullSpare'> = {};
  /** A before image whose bitmap has unused bits, held back until the after image's bitmap is read. */
  private held: JsonBytes | undefined;
  private heldSpare: number | undefined;

  constructor(
    private readonly layout: ImageLayout,
    path: string,
    /** Whether each change has a before image and then an after image (an UPDATE's). */
    private readonly bothImages: boolean,
  ) {
    this.paths = rowImagePaths(path);
  }

  before(r: Reader, w: JsonBytes): void {
    const img = this.layout.before;
    const nulls = nullBitmap(r, img, this.spare, 'before', this.paths.before);
    const spare = this.takeSpare('before');
    if (spare !== undefined && this.bothImages) {
      // The eager change's nullSpare names the after image's bits too, and comes before this image.
      this.held ??= new JsonBytes(1 << 10);
      this.held.pos = 0;
      this.heldSpare = spare;
      img.json!(r, nulls, img.jsons, this.held);
      return;
    }
    if (spare !== undefined) this.nullSpare(w, spare, undefined);
    this.member(w, 'before');
    img.json!(r, nulls, img.jsons, w);
  }

  after(r: Reader, w: JsonBytes): void {
    const img = this.layout.after;
    const nulls = nullBitmap(r, img, this.spare, 'after', this.paths.after);
    const spare = this.takeSpare('after');
    if (this.heldSpare !== undefined) {
      this.nullSpare(w, this.heldSpare, spare);
      this.member(w, 'before');
      w.raw(this.held!.buf.subarray(0, this.held!.pos));
      this.heldSpare = undefined;
    } else if (spare !== undefined) this.nullSpare(w, undefined, spare);
    this.member(w, 'after');
    img.json!(r, nulls, img.jsons, w);
  }

  /** JsonRows.over takes no images with value options (JSON diffs), so no change has any. */
  options(): void {
    throw new Error('value options in rows that JsonRows.over took');
  }

  private member(w: JsonBytes, name: keyof typeof KEYS): void {
    w.raw(this.first ? KEYS[name] : LATER_KEYS[name]);
    this.first = false;
  }

  /** The image's unused null-bitmap bits where nullBitmap found them other than a server leaves them. */
  private takeSpare(image: RowImageName): number | undefined {
    const found = this.spare.nullSpare?.[image];
    this.spare.nullSpare = undefined;
    return found;
  }

  /** The change's `nullSpare` member, as the eager change holds it: the before image's bits, then the after's. */
  private nullSpare(w: JsonBytes, before: number | undefined, after: number | undefined): void {
    this.member(w, 'nullSpare');
    w.byte(0x7b);
    const start = w.pos;
    if (before !== undefined) {
      w.member(SPARE_KEYS.before, start);
      w.number(before);
    }
    if (after !== undefined) {
      w.member(SPARE_KEYS.after, start);
      w.number(after);
    }
    w.byte(0x7d);
  }
}
