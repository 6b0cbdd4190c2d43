/**
 * A table's column as its values are read and written: the type TABLE_MAP logs, its metadata, and what
 * the optional metadata (or the caller) adds. The table registry (runtime/tables/) makes them.
 */
import type { CellLayoutsEntry, FractionLayoutsEntry } from '../../generated/columns.js';
import type { Text } from '../core/reader.js';
import type { CellColumn } from '../core/values.js';

export type { Flavor } from '../core/tables.js';

export interface Column extends CellColumn {
  /** 0-based position in the table. */
  index: number;
  /** From COLUMN_NAME, else `@N` (1-based). */
  name: string;
  /** The type TABLE_MAP logs, and the real type behind STRING (ENUM, SET or STRING itself). */
  type: number;
  realType: number;
  /** The type's layout; MariaDB's own fractional temporals' where a definition says the column is one. */
  layout: CellLayoutsEntry | FractionLayoutsEntry;
  nullable: boolean;
  /** From SIGNEDNESS (or the caller); undefined for non-numeric columns or without the metadata. */
  unsigned?: boolean;
  /** Collation id from COLUMN_CHARSET / DEFAULT_CHARSET (or their ENUM_AND_SET forms), and its charset. */
  collation?: number;
  charset?: string;
  /** ENUM or SET member names. */
  members?: Text[];
  /**
   * The type's metadata: maxLength, packLength, precision and scale, fsp, bits. A TIME, DATETIME or
   * TIMESTAMP of MariaDB's has fsp only where a definition or a hint said its digits.
   */
  meta: Record<string, unknown>;
}

export interface TableInfo {
  tableId: number;
  schema: Text;
  table: Text;
  columns: Column[];
}

/** What a caller knows that a binlog without full metadata does not say. */
export interface ColumnHints {
  unsigned?: boolean;
  charset?: string;
  /** The column's name, for a TABLE_MAP without COLUMN_NAME (its columns are then `@1`, `@2`, …). */
  name?: string;
  /** ENUM or SET member names, in order, for a TABLE_MAP without them. */
  members?: string[];
  /**
   * A TIME, DATETIME or TIMESTAMP column's fraction digits (0 to 6), which MariaDB's own fractional forms
   * leave unlogged (runtime/rows/fractions.ts infers them without it).
   */
  fractionDigits?: number;
}

export type HintFn = (
  table: { schema: Text; table: Text },
  column: { index: number; name: string; type: number },
) => ColumnHints | undefined;
