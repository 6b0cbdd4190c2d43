/** The library's entry point: reading and writing binlogs, and the types and errors they use. */
export {
  readBinlog,
  iterateBinlog,
  frameBinlog,
  decodeBinlog,
  encodeBinlog,
  Framer,
  type ByteSource,
  type ReadOptions,
  type LazyReadOptions,
  type FrameOptions,
} from './runtime/io/stream.js';
export { EventSelection, type EventFilter } from './runtime/io/filter.js';
export {
  EventDecoder,
  EventEncoder,
  eventTypeName,
  eventFromJson,
  isEventType,
  type BinlogEvent,
  type BinlogEventInput,
  type DecodeOptions,
  type FramedEvent,
  type LazyBinlogEvent,
  type LazyEvents,
  type RowForm,
  type RawBody,
  type RawBodyInput,
  type RawEventType,
} from './runtime/events/event-codec.js';
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
  ServerError,
  ConnectionError,
  GaveUpError,
  type BinlogErrorKind,
  type ErrorSite,
} from './runtime/core/errors.js';
export { Reader, bytesToText, type Text } from './runtime/core/reader.js';
export { Writer, textToBytes } from './runtime/core/writer.js';
export { toJsonLine, toHex } from './runtime/core/dump-json.js';
export { applyJsonDiff } from './runtime/rows/json-diff.js';
export { LazyRow, type LazyRowChange } from './runtime/rows/lazy.js';
export type {
  JsonTree,
  JsonDiff,
  JsonDiffCell,
  JsonCell,
  EitherSignCell,
  CellValue,
  Row,
  RowChange,
  OldRowChange,
} from './runtime/core/values.js';
export {
  BinlogWriter,
  writeBinlog,
  writeBinlogFile,
  createTableSql,
  RowValueError,
  type BinlogWriterOptions,
  type BinlogOp,
  type RowInput,
  type TableRef,
  type GtidOptions,
  type BeginOptions,
  type QueryOptions,
  type RowsOptions,
  type TableOptions,
  type CommitOptions,
  type EventInput,
  type RowMetadata,
} from './builder/index.js';
export { describeTable, Table } from './runtime/tables/table.js';
export { TableDefinitionError, type TableDef, type ColumnDef, type BuiltColumn } from './runtime/tables/table-types.js';
export {
  parseTableSql,
  resolveTableDefinitions,
  type TableDefinitions,
  type TableDefinitionInput,
  type TableDefinition,
} from './runtime/tables/definitions.js';
export { tableDefinitionsFromSql, databaseCharsetsFromSql } from './runtime/tables/schema-file.js';
export {
  SchemaHistory,
  createTableSql as historyTableSql,
  type HistoryEntry,
  type HistoryPosition,
  type SchemaHistoryOptions,
} from './runtime/tables/history.js';
export { readDdl, DdlError, type DdlChange, type AlterClause, type TableName } from './runtime/tables/ddl.js';
export { followBinlog, type FollowOptions } from './runtime/io/follow.js';
export { ASSUMED_FORMAT, type EncodeOptions } from './runtime/events/binlog-encoder.js';
export type { WriterEncryption } from './builder/index.js';
export { parseKeyFile, KeyError } from './runtime/events/encryption.js';
export {
  parseKeyring,
  parseKeyringFile,
  encryptMysqlBinlog,
  type Keyring,
  type MysqlEncryption,
} from './runtime/io/mysql-encryption.js';
export type { EncryptionKeys, EncryptionOptions, EventCipherName } from './runtime/events/encryption.js';
export type { PayloadForm } from './runtime/events/flat-payloads.js';
export type { NotInFile } from './runtime/events/event-codec.js';
export { connectBinlog, type LiveOptions, type BinlogStream } from './replication/client.js';
export {
  serveBinlog,
  UnservableError,
  type ServeOptions,
  type ServedBinlogs,
  type BinlogServer,
} from './server/serve.js';
export type { Checkpoint } from './protocol/checkpoint.js';
export type { DumpOptions, DumpStart } from './replication/replica-dump.js';
export type { ConnectOptions } from './replication/wire.js';
export type { ReconnectOptions } from './protocol/backoff.js';
export { toSql, undoSql, invert, SqlContext, SqlError, type SqlOptions } from './tools/sql.js';
export type { RowKind } from './protocol/row-kinds.js';
export { SqlScript, SCRIPT_HEADER, type SqlScriptOptions } from './tools/sql-script.js';
export { flashback } from './tools/flashback.js';
