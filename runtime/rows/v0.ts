/**
 * Rows v0 (PRE_GA_WRITE/UPDATE/DELETE_ROWS, MySQL 5.1.0 to 5.1.17), decoded with the caller's table
 * definition (runtime/tables/definitions.ts). MySQL 5.1's pack_row_old (sql/rpl_record_old.cc) writes each image
 * as a copy of the record's null bytes, then every present column in its Field::pack form, a NULL column
 * as the value the table's default record holds. Which bit of the null bytes is which, and how long a
 * packed string may be, is schemas/rows.yaml's oldRowImages section, whose generated layout this file
 * takes per table. The Field::pack forms are the v1 row-image forms of the same types (sql/field.cc), so
 * the cell codecs of runtime/values/cells.ts read them, with the pre-5.6 temporal types the TABLE_MAP names.
 */
import {
  oldBitDiffering,
  type OldColumnBits,
  oldDecidedBits,
  oldLongestPacked,
  oldNullBit,
  type OldNullBytes,
  oldNullBytesLayout,
  type RowImageName,
  setOldColumnBits,
  stepsByImage,
  walkRowChange,
} from '../../generated/rows.js';
import { cellColumn } from '../tables/sqltypes.js';
import { placedAt } from '../core/schema-helpers.js';
import { cellCodec } from '../values/cells.js';
import { EncodeError, InvalidValueError } from '../core/errors.js';
import { type Reader, sameBytes } from '../core/reader.js';
import type { TableDefinition } from '../tables/definitions.js';
import type { RowLayout } from '../core/tables.js';
import type { TableRegistry } from '../tables/registry.js';
import { Writer } from '../core/writer.js';
import type { CellValue, OldRowChange, Row } from '../core/values.js';
import type { Column, TableInfo } from '../values/column.js';
import type { BuiltColumn } from '../tables/table-types.js';
import type { CellCodec, CellReader, CellWriter } from '../values/cell-codec.js';

/** A column of the table as its v0 images hold it. */
interface OldColumn {
  column: Column;
  read: CellReader;
  write: CellWriter;
  path: string;
  /** Its Field::pack form when Field::reset() left it: what a NULL column writes unless it has a default. */
  empty: Uint8Array;
  /** Where its bits are in the null bytes: its null bit when it may be NULL, and any bits of its packed form. */
  bits: OldColumnBits;
  /** The most bytes its value packs to, where the schema says (CHAR, VARCHAR). */
  longest?: number;
}

interface OldLayout {
  columns: OldColumn[];
  nullBytes: OldNullBytes;
}

const layouts = new WeakMap<TableInfo, OldLayout>();

/** The layout of a table's v0 images, from its TABLE_MAP and the caller's definition (once per TABLE_MAP). */
function layoutOf(tables: TableRegistry, tableId: number, problem: (p: string) => Error, path: string): OldLayout {
  const t = tables.get(tableId);
  const def = tables.definition(tableId);
  if (!t || !def) throw problem(`no TABLE_MAP for table id ${tableId}`);
  let layout = layouts.get(t);
  if (!layout) layouts.set(t, (layout = buildLayout(t, def, path)));
  return layout;
}

/** The definition's columns are the TABLE_MAP's (the registry checked them, runtime/tables/defined-columns.ts). */
function buildLayout(t: TableInfo, def: TableDefinition, path: string): OldLayout {
  const cells = def.table.columns.map((b, i) => cellOf(b, t.columns[i]!.type, `${path}.${b.name}`));
  const facts = def.table.columns.map((b, i) => ({ ...b, packedEmpty: cells[i]!.empty.length }));
  const nullBytes = oldNullBytesLayout(def, facts);
  const columns = cells.map((c, i): OldColumn => ({
    ...c,
    bits: nullBytes.columns[i]!,
    longest: oldLongestPacked(facts[i]!),
  }));
  return { columns, nullBytes };
}

/**
 * A column's cell codec, under the TABLE_MAP's type: a TIME, DATETIME or TIMESTAMP without fraction is logged as its
 * pre-5.6 type.
 */
function cellOf(b: BuiltColumn, logged: number, path: string): Omit<OldColumn, 'bits' | 'longest'> {
  const column = cellColumn(b, logged);
  const codec = cellCodec(column);
  return {
    column,
    read: codec.reader(column, path),
    write: codec.writer(column, path),
    path,
    empty: emptyForm(column, codec),
  };
}

function emptyForm(c: Column, codec: CellCodec): Uint8Array {
  const w = new Writer(16);
  // What Field::reset() stores, from the column type's CellLayouts entry (schemas/columns.yaml).
  codec.writer(c, c.name)(w, (c.layout as { empty?: CellValue }).empty ?? null);
  return w.view().slice();
}

/** The null bytes a row gives: the bits every record sets, and the present columns' bits. */
function nullBytesOf(
  layout: OldLayout,
  present: OldColumn[],
  isNull: (c: OldColumn) => boolean,
  packed: (c: OldColumn) => Uint8Array,
): Uint8Array {
  const out = layout.nullBytes.alwaysSet.slice();
  for (const c of present) setOldColumnBits(out, c.bits, isNull(c), packed(c));
  return out;
}

function presentColumns(layout: OldLayout, present: boolean[], problem: (p: string) => Error): OldColumn[] {
  if (present.length !== layout.columns.length)
    throw problem(`the row event has ${present.length} columns, the definition ${layout.columns.length}`);
  return layout.columns.filter((_, i) => present[i]);
}

function readImage(
  r: Reader,
  layout: OldLayout,
  present: OldColumn[],
  change: OldRowChange,
  image: RowImageName,
  path: string,
): Row {
  const at = r.offset;
  const { alwaysSet } = layout.nullBytes;
  const nullBytes = r.bytes(layout.nullBytes.bytes, `${path}.nullBytes`);
  const clear = oldBitDiffering(alwaysSet, alwaysSet, nullBytes);
  if (clear !== undefined) {
    // Every record sets these bits: a clear one means the definition places the null bits elsewhere.
    throw new InvalidValueError(
      `null bit ${clear} is clear where every record of the defined table sets it: the definition does not fit`,
      { offset: at, schemaPath: `${path}.nullBytes` },
    );
  }
  const row: Row = {};
  const packed = new Map<OldColumn, Uint8Array>();
  for (const c of present) {
    const start = r.pos;
    const v = c.read(r);
    packed.set(c, r.buf.subarray(start, r.pos));
    checkFits(c, v, packed.get(c)!, r.base + start);
    const isNull = c.bits.nullBit !== undefined && oldNullBit(nullBytes, c.bits.nullBit);
    row[c.column.name] = isNull ? null : v;
    if (isNull && !sameBytes(packed.get(c)!, c.empty)) ((change.nullValues ??= {})[image] ??= {})[c.column.name] = v;
  }
  const expected = nullBytesOf(
    layout,
    present,
    (c) => row[c.column.name] === null,
    (c) => packed.get(c)!,
  );
  if (!sameBytes(expected, nullBytes)) (change.nullBytes ??= {})[image] = nullBytes.slice();
  return row;
}

/**
 * A value the definition's column holds, whose bytes it writes back as they are: else the definition is
 * not the table's (a BIT(3) of 255, a CHAR(2) of 3 bytes, DECIMAL digits out of range).
 */
function checkFits(c: OldColumn, v: CellValue, bytes: Uint8Array, offset: number): void {
  let problem: string | undefined;
  if (c.longest !== undefined && bytes.length > c.longest)
    problem = `${bytes.length} bytes, longer than the definition's ${c.column.name} holds`;
  else {
    const again = new Writer(bytes.length + 8);
    try {
      c.write(again, v);
      if (!sameBytes(again.view(), bytes)) problem = `${c.column.name}'s bytes are not a value of its definition`;
    } catch (e) {
      if (!(e instanceof EncodeError)) throw e;
      problem = `${c.column.name}: ${e.problem}`;
    }
  }
  if (problem) throw new InvalidValueError(`${problem}: the definition does not fit`, { offset, schemaPath: c.path });
}

export function decodeOldRows(r: Reader, tables: TableRegistry, rows: RowLayout): OldRowChange[] {
  const { tableId, columns, images, path } = rows;
  const problem = (p: string) => new InvalidValueError(p, { offset: r.offset, schemaPath: path });
  const layout = layoutOf(tables, tableId, problem, path);
  const present = presentColumns(layout, columns, problem);
  const out: OldRowChange[] = [];
  // Each image has at least its null bytes, or a present column: an image of neither would never end.
  if (layout.nullBytes.bytes === 0 && present.length === 0 && r.pos < r.end)
    throw problem('row images of no bytes, with bytes after them');
  const steps = stepsByImage<Reader, OldRowChange>(
    (r, change, image) => void (change[image] = readImage(r, layout, present, change, image, `${path}.${image}`)),
    () => {
      throw problem('rows v0 have no value options');
    },
  );
  while (r.pos < r.end) {
    const change: OldRowChange = {};
    walkRowChange(r, images, change, steps);
    out.push(change);
  }
  return out;
}

/**
 * Writes one image of a change of the rows at `rows`, whose cells' errors name `rows.column`: they are placed in the
 * image.
 */
function writeImage(
  w: Writer,
  layout: OldLayout,
  present: OldColumn[],
  change: OldRowChange,
  image: RowImageName,
  rows: string,
): void {
  const path = `${rows}.${image}`;
  const row = change[image];
  if (!row) throw new EncodeError('a row image this event needs is missing', path);
  for (const name of Object.keys(row)) {
    if (!present.some((c) => c.column.name === name))
      throw new EncodeError(`column '${name}' is not present in this image`, path);
  }
  const at = w.reserve(layout.nullBytes.bytes);
  const packed = new Map<OldColumn, Uint8Array>();
  for (const c of present) {
    if (!(c.column.name in row))
      throw new EncodeError(`column '${c.column.name}' is present in the image but has no value`, path);
    let v: CellValue = row[c.column.name]!;
    if (v === null) {
      if (c.bits.nullBit === undefined)
        throw new EncodeError(`column '${c.column.name}' is NOT NULL in the definition`, `${path}.${c.column.name}`);
      v = change.nullValues?.[image]?.[c.column.name] ?? null;
    }
    const start = w.view().length;
    if (v === null) w.bytes(c.empty);
    else {
      placedAt(() => c.write(w, v), rows, path);
    }
    packed.set(c, w.view().slice(start));
  }
  const expected = nullBytesOf(
    layout,
    present,
    (c) => row[c.column.name] === null,
    (c) => packed.get(c)!,
  );
  w.buf.set(
    keptNullBytes(change.nullBytes?.[image], expected, layout, present, `${rows}.nullBytes.${image}`) ?? expected,
    at,
  );
}

/**
 * Kept null bytes, checked: as many as the table has, with the fixed bits and the row's NULLs as the row gives them.
 */
function keptNullBytes(
  kept: Uint8Array | undefined,
  expected: Uint8Array,
  layout: OldLayout,
  present: OldColumn[],
  path: string,
): Uint8Array | undefined {
  if (!kept) return undefined;
  if (kept.length !== layout.nullBytes.bytes)
    throw new EncodeError(`${kept.length} null bytes, where the table has ${layout.nullBytes.bytes}`, path);
  const disagreeing = oldBitDiffering(
    oldDecidedBits(
      layout.nullBytes,
      present.map((c) => c.bits),
    ),
    kept,
    expected,
  );
  if (disagreeing !== undefined) throw new EncodeError(`null bit ${disagreeing} disagrees with the row`, path);
  return kept;
}

export function encodeOldRows(
  w: Writer,
  rows: OldRowChange[],
  tables: TableRegistry,
  { tableId, columns, images, path }: RowLayout,
): void {
  const problem = (p: string) => new EncodeError(p, path);
  const layout = layoutOf(tables, tableId, problem, path);
  const present = presentColumns(layout, columns, problem);
  const steps = stepsByImage<Writer, OldRowChange>(
    (w, change, image) => writeImage(w, layout, present, change, image, path),
    () => {
      throw problem('rows v0 have no value options');
    },
  );
  // The paths name the change's parts: placed at the change.
  rows.forEach((change, i) => placedAt(() => walkRowChange(w, images, change, steps), path, `${path}[${i}]`));
}
