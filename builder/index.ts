/**
 * The builder's public API: BinlogWriter and its streamed forms, and the table descriptions they take
 * (described by runtime/tables/, which reading with table definitions shares).
 */
export { BinlogWriter } from './binlog-writer.js';
export { writeBinlog, writeBinlogFile } from './write-binlog.js';
export { createTableSql } from './create-table.js';
export { RowValueError, type RowInput } from './row-values.js';
export type { RowMetadata } from './table-map.js';
export type { ServerProfileName } from './server-profile.js';
export type { WriterEncryption } from './writer-options.js';
export type {
  BinlogWriterOptions,
  BinlogOp,
  TableRef,
  GtidOptions,
  BeginOptions,
  QueryOptions,
  RowsOptions,
  TableOptions,
  CommitOptions,
  EventInput,
} from './writer-options.js';
export { describeTable, Table } from '../runtime/tables/table.js';
export {
  TableDefinitionError,
  type TableDef,
  type ColumnDef,
  type BuiltColumn,
} from '../runtime/tables/table-types.js';
