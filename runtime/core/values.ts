/**
 * The values a decoded row holds, as every layer passes them around: the generated row-event codecs,
 * the cell codecs, the row images and their JSON form. Types only.
 */
import type { Reader, Text } from './reader.js';
import type { Writer } from './writer.js';
import type { JsonBytes } from './dump-json-bytes.js';

export type JsonTree = null | boolean | number | string | JsonTree[] | { [key: string]: JsonTree };

/** A compressed column's value and its stored bytes (kept so that encoding can give them back). */
export interface CompressedCell {
  value: Text;
  stored: Uint8Array;
}

/**
 * A MySQL JSON column's document (runtime/values/binary-json.ts describes the tree), with its stored bytes when
 * they are not what the server's canonical encoding of the tree gives.
 */
export interface JsonCell {
  json: JsonTree;
  stored?: Uint8Array;
}

/**
 * A partial update of a JSON column (MySQL PARTIAL_UPDATE_ROWS): what changed, as json_diff.h has it.
 * `value` (absent for REMOVE) is a binary JSON document, as in a JsonCell.
 */
export interface JsonDiff {
  op: 'REPLACE' | 'INSERT' | 'REMOVE';
  path: string;
  value?: JsonTree;
}

/**
 * `json`: the document the diff makes of the before image's (runtime/rows/json-diff.ts), when the before image
 * holds it. Derived: encoding writes the diff, and refuses a `json` the diff does not give.
 */
export interface JsonDiffCell {
  diff: JsonDiff[];
  json?: JsonTree;
}

/**
 * An integer of a column whose signedness nothing says (no SIGNEDNESS in its TABLE_MAP, no definition of
 * its table), whose high bit is set: both readings of its bytes, as mariadb-binlog -v prints them
 * (`-294967296 (4000000000)`), since either may be the value. Numbers, bigints for BIGINT.
 */
export interface EitherSignCell {
  signed: number | bigint;
  unsigned: number | bigint;
}

/**
 * A value with numbers of its cell that it does not say itself, by name (a cell's `with`): binary JSON's
 * Json_decimal, its text with its precision and scale.
 */
export interface WithCell {
  value: CellValue;
  with: Readonly<Record<string, number>>;
}

export type CellValue =
  | null
  | number
  | bigint
  | string
  | Uint8Array
  | Text[]
  | number[]
  | CompressedCell
  | JsonCell
  | JsonDiffCell
  | EitherSignCell
  | WithCell;

/** What a cell codec reads of a column: its metadata, its CellLayouts entry, what the optional metadata says. */
export interface CellColumn {
  type: number;
  meta: Record<string, unknown>;
  layout: object;
  unsigned?: boolean;
  members?: Text[];
  charset?: string;
}

/**
 * A column's values as text (its charset; MariaDB's column compression), each after its length, made once
 * per column: what a cell's `text` part reads and writes.
 */
export interface TextCodec {
  read: CellReader;
  skip: CellSkipper;
  write: CellWriter;
  json: CellJsonWriter;
}

/** Reads one value of a column. */
export type CellReader = (r: Reader) => CellValue;
/** Steps over one value of a column, checking only that its bytes are there (lazy rows: runtime/rows/lazy.ts). */
export type CellSkipper = (r: Reader) => void;
/** Writes one value of a column, or refuses it (EncodeError, naming the column's path). */
export type CellWriter = (w: Writer, v: CellValue) => void;
/**
 * Reads one value of a column and writes its JSON form, as the dump writes the value the reader gives
 * (bin/dump-lines.ts).
 */
export type CellJsonWriter = (r: Reader, w: JsonBytes) => void;

/**
 * A column type's values both ways (schemas/cells.yaml, or a runtime codec): the reader and the writer are
 * made once per column of a row layout, `path` the schema path their errors name, so that the column's
 * metadata is looked up then rather than for every value.
 */
export interface CellCodec<C extends CellColumn = CellColumn> {
  reader(c: C, path: string): CellReader;
  skipper(c: C, path: string): CellSkipper;
  writer(c: C, path: string): CellWriter;
  /** The bytes of every value of the column, where they are fixed: lazy rows then step over a value without a call. */
  width?(c: C): number;
  /**
   * A writer of the value's JSON straight from its bytes, where the codec has one faster than its reader's value
   * written.
   */
  json?(c: C, path: string): CellJsonWriter;
}

/** A row image: column name (or `@N`) → value; NULL is null. */
export type Row = Record<string, CellValue>;

export interface RowChange {
  before?: Row;
  after?: Row;
  /**
   * The unused bits of an image's null bitmap, where they are not all set (servers set them; some
   * older ones did not), so that encoding gives them back.
   */
  nullSpare?: { before?: number; after?: number };
  /**
   * PARTIAL_UPDATE_ROWS (MySQL): value_options (1 when some JSON column of the after image is a diff)
   * and which JSON columns of the table are (one flag each, in column order).
   */
  jsonOptions?: number;
  partialJson?: boolean[];
}

export type RowChangeInput = RowChange;

/** A v0 row change: v1's, with what the images hold beside the row's values. */
export interface OldRowChange extends RowChange {
  /**
   * The values written for NULL columns (the table's defaults), where they are not the column's empty
   * value (0, '', the zero date), so that encoding gives them back.
   */
  nullValues?: { before?: Row; after?: Row };
  /**
   * An image's null bytes, where the columns' null bits and BIT odd bits in them are not what its row
   * gives (bits of columns absent from the image).
   */
  nullBytes?: { before?: Uint8Array; after?: Uint8Array };
}
