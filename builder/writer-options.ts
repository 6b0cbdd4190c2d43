/**
 * What the builder's calls take: the writer's options, each call's options, and the operations of
 * `writeBinlog` (builder/write-binlog.ts), the calls as data.
 */
import type { EventBodyInput } from '../generated/events.js';
import type { GtidListEntryInput } from '../generated/mariadb.js';
import type { QueryEventStatusVarsEntryInput } from '../generated/query.js';
import type { BinlogEventInput } from '../runtime/events/event-codec.js';
import type { EncryptionOptions } from '../runtime/events/encryption.js';
import type { MysqlEncryption } from '../runtime/io/mysql-encryption.js';
import type { Table } from '../runtime/tables/table.js';
import type { TableDef } from '../runtime/tables/table-types.js';
import type { RowInput } from './row-values.js';
import type { ServerProfileName } from './server-profile.js';
import type { RowMetadata } from './table-map.js';

export interface BinlogWriterOptions {
  /** The server imitated (default 'mariadb-10.11'). */
  server?: ServerProfileName;
  /**
   * Also write events the imitated server never writes (by the catalogue's `server:`: MySQL's, a fork's),
   * as for testing a reader with them (default false: `event()` refuses them).
   */
  foreignEvents?: boolean;
  /** FORMAT_DESCRIPTION's server version (default '10.11.19-MariaDB-log'). */
  serverVersion?: string;
  /** server_id in every event header (default 1). */
  serverId?: number;
  /** binlog_checksum: CRC32 (default) or NONE. */
  checksum?: 'CRC32' | 'NONE';
  /** Event timestamps, Unix seconds (default: when the writer is made); change it with `setTimestamp`. */
  timestamp?: number;
  /** The file's creation time in FORMAT_DESCRIPTION (default: the timestamp; 0 as after a rotation). */
  createTimestamp?: number;
  /** The file BINLOG_CHECKPOINT names (default 'binlog.000001'). */
  checkpointFile?: string;
  /** GTID_LIST's entries: the last GTID of each domain in earlier files (default none). */
  gtidList?: GtidListEntryInput[];
  /** gtid_domain_id (default 0). */
  domainId?: number;
  /** Sequence number of the first GTID (default 1, or one after the highest in gtidList). */
  firstSeqNo?: number | bigint;
  /** The first table id (default 1). */
  firstTableId?: number;
  /** The first XID (default 1). */
  firstXid?: number | bigint;
  /** QUERY's thread id (default 1). */
  threadId?: number;
  /** binlog_row_metadata (default FULL). */
  rowMetadata?: RowMetadata;
  /** binlog_row_event_max_size (default 8192): rows go into a new event past it. */
  maxRowsEventSize?: number;
  /**
   * Receives each event's bytes (the magic first) as soon as it is written; nothing is kept, so memory
   * stays constant. `toBytes` and `writeTo` are then unavailable.
   */
  sink?: (chunk: Uint8Array) => void;
  /**
   * Write the file as MariaDB's encrypt_binlog does: a START_ENCRYPTION event after the FORMAT_DESCRIPTION,
   * then every event encrypted with key 1 of `keys` (default cipher AES_CBC), under `nonce` (default random).
   * With `{ mysql }`, as MySQL 8's binlog_encryption does: the file header with the file password encrypted
   * by the keyring key `mysql.key` (named `mysql.keyId`), then the whole binlog, magic on, under AES-256-CTR.
   */
  encryption?: WriterEncryption | { mysql: MysqlEncryption };
}

/** An encrypted file is written with these keys and cipher, and its START_ENCRYPTION with these fields. */
export interface WriterEncryption extends EncryptionOptions {
  nonce?: Uint8Array;
  /** The key's version START_ENCRYPTION names (default 1, file_key_management's only one). */
  keyVersion?: number;
}

export interface GtidOptions {
  domainId?: number;
  /** The group's server id (header serverId of its events; default the writer's). */
  serverId?: number;
  seqNo?: number | bigint;
  /** Group-commit id (FL_GROUP_COMMIT_ID). */
  commitId?: number | bigint;
  /** The GTID flags byte, instead of the one the builder derives. */
  flags?: number;
}

export interface BeginOptions extends GtidOptions {
  /** Whether the transaction changes transactional tables (XID at commit) or not (QUERY COMMIT). */
  transactional?: boolean;
}

export interface QueryOptions {
  /** The default database the statement runs in. */
  schema?: string;
  /** Whether the statement is DDL (default: by its first word: CREATE, ALTER, DROP, RENAME, TRUNCATE …). */
  ddl?: boolean;
  threadId?: number;
  execTime?: number;
  errorCode?: number;
  /** Header flags (default LOG_EVENT_SUPPRESS_USE_F for database statements, else 0). */
  flags?: number;
  /** The status variables, instead of the server's. */
  statusVars?: QueryEventStatusVarsEntryInput[];
  /** DDL's Q_XID (default: the next XID). */
  xid?: number | bigint;
}

export interface TableOptions {
  /** The table id (default: the next one; later tables count on from it). */
  tableId?: number;
}

export interface CommitOptions {
  /** The XID (default: the next one; later ones count on from it). */
  xid?: number | bigint;
}

export interface RowsOptions {
  /** The statement, written as ANNOTATE_ROWS before the TABLE_MAP (binlog_annotate_row_events). */
  statement?: string;
}

/** An event of any type, its header filled in from the writer's state where not given. */
export type EventInput = (EventBodyInput | { type: string; raw: Uint8Array }) & {
  header?: Partial<BinlogEventInput['header']>;
};

/** A table given as a Table, as its definition, or (once the builder knows it) as 'schema.name'. */
export type TableRef = Table | TableDef | string;

/** Rows given one at a time, synchronously or not. */
export type Rows<T> = Iterable<T> | AsyncIterable<T>;

/** One step of a binlog, as data: what `writeBinlog` takes. */
export type BinlogOp =
  | ({ op: 'query'; sql: string } & QueryOptions)
  | { op: 'createDatabase'; name: string }
  | ({ op: 'table' | 'createTable'; table: Table | TableDef } & TableOptions)
  | { op: 'begin'; options?: BeginOptions }
  | ({ op: 'gtid' } & GtidOptions)
  | { op: 'insert' | 'delete'; table: TableRef; rows: Rows<RowInput>; statement?: string }
  | { op: 'update'; table: TableRef; rows: Rows<readonly [RowInput, RowInput]>; statement?: string }
  | ({ op: 'commit' } & CommitOptions)
  | { op: 'timestamp'; timestamp: number }
  | { op: 'rotate'; nextFile: string; position?: number | bigint }
  | { op: 'stop' }
  | { op: 'event'; event: EventInput };
