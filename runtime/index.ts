/** The library's entry point: reading and writing binlogs, and the types and errors they use. */
export { readBinlog, iterateBinlog, frameBinlog, decodeBinlog, encodeBinlog, Framer, type ByteSource, type ReadOptions } from './stream.js';
export { EventDecoder, EventEncoder, eventTypeName, eventFromJson, isEventType, type BinlogEvent, type BinlogEventInput, type DecodeOptions, type FramedEvent, type RawBody } from './event.js';
export {
  BinlogError,
  TruncatedError,
  BadMagicError,
  ChecksumError,
  LengthError,
  InvalidValueError,
  SchemaCheckError,
  EncodeError,
  InternalError,
  UnknownTableError,
  type BinlogErrorKind,
  type ErrorSite,
} from './errors.js';
export { Reader, bytesToText, type Text } from './reader.js';
export { Writer, textToBytes } from './writer.js';
export { toJsonLine, toHex } from './json.js';
export { applyJsonDiff } from './jsondiff.js';
export type { JsonTree } from './jsonb.js';
export type { JsonDiff, JsonDiffCell, JsonCell } from './cells.js';
export { BinlogWriter, writeBinlog, writeBinlogFile, describeTable, createTableSql, Table, RowValueError, TableDefinitionError, type BinlogWriterOptions, type BinlogOp, type TableDef, type ColumnDef, type BuiltColumn, type RowInput, type TableRef, type GtidOptions, type BeginOptions, type QueryOptions, type RowsOptions, type TableOptions, type CommitOptions, type EventInput, type RowMetadata } from './builder.js';
export { parseTableSql, resolveTableDefinitions, type TableDefinitions, type TableDefinitionInput, type TableDefinition } from './tabledefs.js';
export type { OldRowChange } from './rows-v0.js';
