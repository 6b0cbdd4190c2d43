/**
 * What the generated row-event codecs need of the tables read so far (`ctx.tables` in the schemas): the
 * rows layer (runtime/rows/) gives it, over the table registry, so that generated code imports only
 * runtime/core.
 */
import type { Reader } from './reader.js';
import type { OldRowChange, RowChange, RowChangeInput } from './values.js';
import type { Writer } from './writer.js';

export interface RowTables {
  /** `schema.table` of a table id, for the dump (empty when no TABLE_MAP named it). */
  name(tableId: number): string;
  /** Whether the caller defined the table of this id: rows v0 are then decoded with the definition. */
  hasDefinition(tableId: number): boolean;
  /**
   * Rows v1/v2: the images of `columns` (and `columnsAfter`), `images` schemas/rows.yaml's RowImages bits;
   * where they cannot be split into rows, why, and their bytes (the rest of `r`).
   */
  splitRows(r: Reader, tableId: number, columns: boolean[], columnsAfter: boolean[] | undefined, images: number, path: string): RowsSplit;
  /** `digits`: the fraction digits the split inferred (`RowsSplit.inferred`), which the rows are written with. */
  encodeRows(w: Writer, rows: RowChangeInput[], tableId: number, columns: boolean[], columnsAfter: boolean[] | undefined, images: number, path: string, digits?: Readonly<Record<string, number>>): void;
  /** Rows v0, which only a table definition can split into values. */
  decodeOldRows(r: Reader, tableId: number, columns: boolean[], images: number, path: string): OldRowChange[];
  encodeOldRows(w: Writer, rows: OldRowChange[], tableId: number, columns: boolean[], images: number, path: string): void;
}

/**
 * A row event's images: split into rows (`inferred`: with the fraction digits, by column, inferred for
 * columns the binlog does not size), or kept as their bytes with the reason they could not be.
 */
export type RowsSplit =
  | { rows: RowChange[]; inferred?: Record<string, number>; undecoded?: undefined; bytes?: undefined }
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
