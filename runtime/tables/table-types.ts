/**
 * Tables in SQL terms, as the caller describes them (ColumnDef, TableDef) and as they are described
 * (BuiltColumn): the shared vocabulary of reading with table definitions (runtime/tables/definitions.ts,
 * runtime/rows/v0.ts) and of the builder (builder/).
 */
import { EncodeError } from '../core/errors.js';
import type { CellValue } from '../core/values.js';
import type { TableMapEventInput } from '../../generated/rows.js';

export interface ColumnDef {
  name: string;
  /**
   * The SQL type as CREATE TABLE writes it: 'int unsigned', 'decimal(10,2)', 'varchar(255)',
   * "enum('a','b')", 'datetime(6)', 'json', 'point' … It may carry UNSIGNED, ZEROFILL, CHARACTER SET,
   * COLLATE, NULL and NOT NULL as well.
   */
  type: string;
  /** May the column be NULL (default: yes, unless it is part of the primary key). */
  nullable?: boolean;
  unsigned?: boolean;
  /** Character set of a character column (default: the table's). */
  charset?: string;
  /** Collation of a character column, by name or id (default: its character set's default). */
  collation?: string | number;
  /** The value of a row that leaves the column out (default: NULL, when the column may be NULL). */
  default?: CellValue;
}

export interface TableDef {
  schema: string;
  name: string;
  columns: ColumnDef[];
  /** Column name(s) of the primary key, in key order. */
  primaryKey?: string | string[];
  /** Default character set of the table's character columns (default utf8mb4). */
  charset?: string;
  collation?: string | number;
  /** Storage engine (default InnoDB). MyISAM, Aria and MEMORY tables are not transactional. */
  engine?: string;
}

/** How a type's parameters are read and its values checked: the `kind` of schemas/sqltypes.yaml's SqlTypes. */
export type SqlKind =
  | 'int'
  | 'float'
  | 'decimal'
  | 'date'
  | 'time'
  | 'datetime'
  | 'timestamp'
  | 'year'
  | 'bit'
  | 'enum'
  | 'set'
  | 'char'
  | 'varchar'
  | 'blob'
  | 'geometry';

/** A column described: its SQL definition and everything TABLE_MAP says about it. */
export interface BuiltColumn {
  index: number;
  name: string;
  /** The SQL type, canonical: 'VARCHAR(40)', 'INT UNSIGNED', "ENUM('a','b')". */
  sqlType: string;
  kind: SqlKind;
  /** The type TABLE_MAP logs, and the real type (ENUM, SET, STRING) behind STRING. */
  columnType: number;
  realType: number;
  /** The column's TABLE_MAP metadata. */
  metadata: NonNullable<TableMapEventInput['columnMetadata']>[number];
  nullable: boolean;
  unsigned: boolean;
  /** Counted by SIGNEDNESS. */
  numeric: boolean;
  /** Counted by DEFAULT_CHARSET / COLUMN_CHARSET (character and binary strings, geometry). */
  character: boolean;
  /** Collation id and character set of character, ENUM and SET columns (63, binary, for bytes). */
  collation?: number;
  charset?: string;
  /**
   * Whether that character set is the column's own (its definition names it, or its type fixes it), not its table's or
   * the default.
   */
  ownCharset?: boolean;
  /** ENUM and SET members. */
  members?: string[];
  geometryType?: number;
  default?: CellValue;
  /** The column's limits: characters or bytes of a string, precision and scale, fsp, bits. */
  length?: number;
  maxBytes?: number;
  precision?: number;
  scale?: number;
  fsp?: number;
  bits?: number;
  json?: boolean;
}

/** A table definition that cannot be described (an unknown type, a bad parameter, a bad key). */
export class TableDefinitionError extends EncodeError {
  readonly table: string;
  readonly column: string | undefined;
  /** The problem alone, without the table and column the message names. */
  readonly reason: string;
  constructor(reason: string, table: string, column?: string) {
    super(
      `table ${table}${column !== undefined ? `, column ${column}` : ''}: ${reason}`,
      column !== undefined ? `${table}.${column}` : table,
    );
    this.table = table;
    this.column = column;
    this.reason = reason;
  }
}
