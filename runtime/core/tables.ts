/**
 * What the generated row-event codecs need of the tables read so far (`ctx.tables` in the schemas). The
 * rows layer (runtime/rows/) gives it, over the table registry, so that generated code imports only
 * runtime/core.
 */
import type { Reader } from './reader.js';
import type { OldRowChange, RowChange, RowChangeInput } from './values.js';
import type { Writer } from './writer.js';

/**
 * What a rows event says of its images' layout, made once per event by the generated codec and passed
 * whole to the rows layer: the table, the columns present in the images, which parts a change has, and
 * the schema path that errors name.
 */
export interface RowLayout {
  /** The TABLE_MAP's table id. */
  tableId: number;
  /** The columns present in the images (in an UPDATE with columnsAfter, the before image's). */
  columns: boolean[];
  /** An UPDATE's after image's columns, where the event has a bitmap of its own for them. */
  columnsAfter?: boolean[] | undefined;
  /** schemas/rows.yaml's RowImages bits: which parts each change has. */
  images: number;
  path: string;
}

/** What a form of rows gives a rows event (v1/v2) and a rows v0 event: the rows the decode makes. */
export interface RowsGiven {
  rows: unknown;
  oldRows: unknown;
}

/** The eager form's rows: every cell decoded into the row objects, the type the generated codecs hold. */
export interface EagerRows {
  rows: RowChange[];
  oldRows: OldRowChange[];
}

/**
 * The tables as the generated row-event codecs see them, the rows given in the form `G` says (the
 * generated codecs are typed with the eager form's).
 */
export interface RowTables<G extends RowsGiven = EagerRows> {
  /** `schema.table` of a table id, for the dump (empty when no TABLE_MAP named it). */
  name(tableId: number): string;
  /** Whether the caller defined the table of this id: rows v0 are then decoded with the definition. */
  hasDefinition(tableId: number): boolean;
  /** Rows v1/v2; where the images cannot be split into rows, why, and their bytes (the rest of `r`). */
  splitRows(r: Reader, layout: RowLayout): RowsSplit<G['rows']>;
  /** `digits`: the fraction digits the split inferred (`RowsSplit.inferred`), which the rows are written with. */
  encodeRows(w: Writer, rows: RowChangeInput[], layout: RowLayout, digits?: Readonly<Record<string, number>>): void;
  /** Rows v0, which only a table definition can split into values. */
  decodeOldRows(r: Reader, layout: RowLayout): G['oldRows'];
  encodeOldRows(w: Writer, rows: OldRowChange[], layout: RowLayout): void;
}

/**
 * A row event's images: split into rows (`inferred`: with the fraction digits, by column, inferred for
 * columns the binlog does not size), or kept as their bytes with the reason they could not be.
 */
export type RowsSplit<Rows = RowChange[]> =
  | { rows: Rows; inferred?: Record<string, number>; undecoded?: undefined; bytes?: undefined }
  | { rows?: undefined; inferred?: undefined; undecoded: string; bytes: Uint8Array };

/** The schemas' `tableName(ctx.tables, tableId)`: their expressions call functions, not methods. */
export function tableName(tables: RowTables, tableId: number): string {
  return tables.name(tableId);
}

/** The schemas' `hasTableDefinition(ctx.tables, tableId)`. */
export function hasTableDefinition(tables: RowTables, tableId: number): boolean {
  return tables.hasDefinition(tableId);
}

/** The servers whose TABLE_MAP metadata may differ (the FORMAT_DESCRIPTION's version says which wrote a file). */
export type Flavor = 'mysql' | 'mariadb';

/**
 * Which columns a TABLE_MAP optional metadata entry covers (the schemas' `covers:`): every one, or those of
 * the column types in the set of the server that wrote the table.
 */
export type ColumnCover = 'all' | Readonly<Record<Flavor, ReadonlySet<number>>>;
