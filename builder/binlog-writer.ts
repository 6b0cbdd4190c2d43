/**
 * Writing binlogs from a description in SQL terms, for tests: tables given by their SQL column types,
 * rows as plain objects in the value forms the decoder returns, and statements, written as a MariaDB 10.11
 * server writes them (FORMAT_DESCRIPTION, GTID_LIST, BINLOG_CHECKPOINT, then per transaction GTID,
 * QUERY or ANNOTATE_ROWS + TABLE_MAP + row events v1, XID). The builder derives the column types, their
 * metadata and the full optional metadata (binlog_row_metadata=FULL), table ids, GTIDs and XIDs; the
 * EventEncoder derives event sizes, positions and checksums. With `encryption`, START_ENCRYPTION follows the
 * FORMAT_DESCRIPTION and every later event is encrypted, as encrypt_binlog=ON has the server do.
 *
 * The tables are described by runtime/tables/ (from the SQL type facts of schemas/sqltypes.yaml); the
 * builder adds their CREATE TABLE (create-table.ts), their TABLE_MAP (table-map.ts), the checks of their
 * rows (row-values.ts) and the server's constant events (server-profile.ts).
 *
 * Three ways to get the bytes: `toBytes()` / `writeTo(path)` keep the whole file in memory; a `sink`
 * receives each event's bytes as it is written and nothing is kept; `writeBinlog(ops)`
 * (write-binlog.ts) turns an (async) iterable of operations into an async iterable of byte chunks,
 * holding one event at a time.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { type EventBodyInput, EventPostHeaderLengths, EventTypes } from '../generated/events.js';
import { BINLOG_MAGIC, EventFlags } from '../generated/header.js';
import { type GtidEventInput, GtidFlags } from '../generated/mariadb.js';
import { RowImages, type RowsEventInput, RowsFlags } from '../generated/rows.js';
import { EncodeError } from '../runtime/core/errors.js';
import type { Text } from '../runtime/core/reader.js';
import type { Row, RowChange } from '../runtime/core/values.js';
import { packedWidth } from '../runtime/core/writer.js';
import { type BinlogEventInput, EventEncoder } from '../runtime/events/event-codec.js';
import { Table } from '../runtime/tables/table.js';
import type { TableDef } from '../runtime/tables/table-types.js';
import type { HintFn } from '../runtime/values/column.js';
import { createTableSql, ident } from './create-table.js';
import { type CheckedImage, type RowInput, RowValueError, rowChecker, show } from './row-values.js';
import { checkWrites, formatDescription, type ServerProfile, serverProfile, statusVars } from './server-profile.js';
import { type RowMetadata, tableMapEvent } from './table-map.js';
import { MARIADB_ENCRYPTION_SCHEME, MARIADB_NONCE_LENGTH } from '../generated/encryption.js';
import type {
  BeginOptions,
  BinlogOp,
  BinlogWriterOptions,
  CommitOptions,
  EventInput,
  GtidOptions,
  QueryOptions,
  RowsOptions,
  TableOptions,
  TableRef,
} from './writer-options.js';
import type { WriterEncryption } from './writer-options.js';
import { MysqlFileEncryption } from '../runtime/io/mysql-encryption.js';

/** binlog_row_event_max_size's default: a row event is closed before it would grow past this. */
const ROWS_EVENT_MAX_SIZE = 8192;
/** ROWS_HEADER_LEN_V1, the post-header of the v1 row events written: table id and flags. */
const ROWS_POST_HEADER_V1 = EventPostHeaderLengths[EventTypes.WRITE_ROWS_EVENT_V1]!;

type RowsKind = 'insert' | 'update' | 'delete';

const ROWS_EVENTS: Record<
  RowsKind,
  { type: 'WRITE_ROWS_EVENT_V1' | 'UPDATE_ROWS_EVENT_V1' | 'DELETE_ROWS_EVENT_V1'; images: number }
> = {
  insert: { type: 'WRITE_ROWS_EVENT_V1', images: RowImages.AFTER },
  update: { type: 'UPDATE_ROWS_EVENT_V1', images: RowImages.BOTH },
  delete: { type: 'DELETE_ROWS_EVENT_V1', images: RowImages.BEFORE },
};

const DDL_RE = /^\s*(?:\/\*.*?\*\/\s*)*(CREATE|ALTER|DROP|RENAME|TRUNCATE|GRANT|REVOKE|ANALYZE|OPTIMIZE|REPAIR)\b/is;
const DATABASE_RE = /^\s*(?:CREATE|ALTER|DROP)\s+(?:DATABASE|SCHEMA)\b/i;

/** A table the writer knows, under its id; its CREATE TABLE tells whether a definition is the same table. */
interface KnownTable {
  table: Table;
  tableId: number;
  ddl?: string;
}

interface OpenTransaction {
  transactional: boolean;
  serverId: number;
  schema: string;
}

/** The row statement being written: its table, the rows of its pending event, their size. */
interface PendingRows {
  kind: RowsKind;
  table: Table;
  tableId: number;
  site: string;
  statement: string | undefined;
  started: boolean;
  rows: RowChange[];
  dataSize: number;
  count: number;
}

/**
 * Builds a binlog event by event, as a MariaDB 10.11 server writes it. Every method that writes returns
 * the writer; the bytes are `toBytes()` (or `writeTo(path)`), or go to `options.sink` as they are made.
 */
export class BinlogWriter {
  private readonly profile: ServerProfile;
  private readonly foreignEvents: boolean;
  private readonly encoder: EventEncoder;
  private readonly sink: ((chunk: Uint8Array) => void) | undefined;
  /** A MySQL encrypted file's cipher, which the whole file passes through (it adds the header). */
  private readonly fileEncryption: MysqlFileEncryption | undefined;
  private readonly chunks: Uint8Array[] = [];
  private readonly serverId: number;
  private readonly domainId: number;
  private readonly rowMetadata: RowMetadata;
  private readonly maxRowsEventSize: number;
  private readonly threadId: number;
  private readonly tables = new Map<string, KnownTable>();
  private nextTableId: number;
  private lastSeqNo: bigint;
  private nextXid: bigint;
  private nextGtid: GtidOptions | undefined;
  private tx: OpenTransaction | undefined;
  private pending: PendingRows | undefined;
  private offset = 0;
  private closedBy: string | undefined;
  timestamp: number;

  constructor(options: BinlogWriterOptions = {}) {
    this.profile = serverProfile(options.server ?? 'mariadb-10.11');
    this.foreignEvents = options.foreignEvents ?? false;
    const mysql = options.encryption && 'mysql' in options.encryption ? options.encryption.mysql : undefined;
    const mariadb = mysql ? undefined : (options.encryption as WriterEncryption | undefined);
    this.fileEncryption = mysql ? new MysqlFileEncryption(mysql) : undefined;
    this.encoder = new EventEncoder({ columnHints: this.columnHints, encryption: mariadb });
    this.sink = options.sink;
    this.serverId = options.serverId ?? 1;
    this.domainId = options.domainId ?? 0;
    this.rowMetadata = options.rowMetadata ?? 'FULL';
    this.maxRowsEventSize = options.maxRowsEventSize ?? ROWS_EVENT_MAX_SIZE;
    this.threadId = options.threadId ?? 1;
    this.timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    this.nextTableId = options.firstTableId ?? 1;
    this.nextXid = BigInt(options.firstXid ?? 1);
    const gtidList = options.gtidList ?? [];
    const listed = gtidList.reduce((m, g) => (BigInt(g.seqNo) > m ? BigInt(g.seqNo) : m), 0n);
    this.lastSeqNo = options.firstSeqNo !== undefined ? BigInt(options.firstSeqNo) - 1n : listed;

    this.output(BINLOG_MAGIC);
    this.emit(
      formatDescription(this.profile, { ...options, createTimestamp: options.createTimestamp ?? this.timestamp }),
    );
    if (mariadb) this.emit(startEncryption(mariadb));
    this.emit({
      type: 'GTID_LIST_EVENT',
      countAndFlags: gtidList.length,
      gtids: gtidList.map((g) => ({ domainId: g.domainId, serverId: g.serverId, seqNo: BigInt(g.seqNo) })),
      // MariaDB pads an empty list with two zero bytes.
      ...(gtidList.length === 0 ? { padding: new Uint8Array(2) } : {}),
    });
    this.emit({ type: 'BINLOG_CHECKPOINT_EVENT', checkpointFile: options.checkpointFile ?? 'binlog.000001' });
  }

  /**
   * Signedness and character sets of the known tables' columns, for reading a binlog written with
   * rowMetadata MINIMAL or NO_LOG: `decodeBinlog(bytes, { columnHints: writer.columnHints })`.
   */
  readonly columnHints: HintFn = (table, column) => {
    const t = this.tables.get(`${textOf(table.schema)}.${textOf(table.table)}`)?.table;
    const c = t?.columns[column.index];
    if (!c) return undefined;
    return {
      ...(c.numeric ? { unsigned: c.unsigned } : {}),
      ...(c.charset !== undefined ? { charset: c.charset } : {}),
    };
  };

  /** File offset of the next event. */
  get position(): number {
    return this.offset;
  }

  /** Whether a transaction is open (rows written, not yet committed). */
  get inTransaction(): boolean {
    return this.tx !== undefined;
  }

  /** The timestamp of the events written from now on (Unix seconds). */
  setTimestamp(seconds: number): this {
    this.timestamp = seconds;
    return this;
  }

  /**
   * Makes the table known under 'schema.name' (nothing is written). A definition that differs from the
   * one known under its name is a new table, with a new table id (as after ALTER TABLE).
   */
  table(def: Table | TableDef, options: TableOptions = {}): Table {
    this.writable();
    const table = def instanceof Table ? def : new Table(def);
    const known = this.tables.get(table.qualified);
    let ddl: string | undefined;
    const same = known && (known.table === table || this.ddl(known) === (ddl = createTableSql(table)));
    if (same && (options.tableId === undefined || options.tableId === known.tableId)) return known.table;
    const tableId = options.tableId ?? this.nextTableId++;
    if (options.tableId !== undefined && options.tableId >= this.nextTableId) this.nextTableId = options.tableId + 1;
    this.tables.set(table.qualified, { table, tableId, ddl });
    return table;
  }

  /** The table id the writer gives a known table. */
  tableId(ref: TableRef): number {
    return this.tables.get(this.resolve(ref).qualified)!.tableId;
  }

  /** CREATE DATABASE as a QUERY event (the server's form: the new database as its schema, no USE). */
  createDatabase(name: string): this {
    return this.query(`CREATE DATABASE ${ident(name)}`, { schema: name, ddl: true });
  }

  /** CREATE TABLE as a QUERY event, from the definition; the table is known from then on. */
  createTable(def: Table | TableDef, options: TableOptions & Pick<QueryOptions, 'xid'> = {}): Table {
    const table = this.table(def, options);
    this.query(this.ddl(this.tables.get(table.qualified)!), {
      schema: table.schema,
      ddl: true,
      ...(options.xid !== undefined ? { xid: options.xid } : {}),
    });
    return table;
  }

  /**
   * A statement as a QUERY event. DDL is an event group of its own (GTID FL_DDL | FL_STANDALONE), after an
   * implicit commit of any open transaction; other statements join the open transaction, or make one of
   * their own, committed at once (autocommit).
   */
  query(sql: string, options: QueryOptions = {}): this {
    this.writable();
    if (typeof sql !== 'string' && !((sql as unknown) instanceof Uint8Array))
      throw new EncodeError(`a statement is text, not ${show(sql)}`, 'BinlogWriter.query');
    const ddl = options.ddl ?? DDL_RE.test(sql);
    const database = DATABASE_RE.test(sql);
    const schema = options.schema ?? '';
    const body = (xid: bigint | undefined) => ({
      type: 'QUERY_EVENT' as const,
      threadId: options.threadId ?? this.threadId,
      execTime: options.execTime ?? 0,
      errorCode: options.errorCode ?? 0,
      statusVars: options.statusVars ?? statusVars(this.profile, xid),
      schema,
      query: sql,
    });
    const flags = options.flags ?? (database ? EventFlags.LOG_EVENT_SUPPRESS_USE_F : 0);
    if (ddl) {
      if (this.tx) this.commit();
      const gtid = this.writeGtid(GtidFlags.FL_STANDALONE | GtidFlags.FL_ALLOW_PARALLEL | GtidFlags.FL_DDL);
      // DDL on tables is logged with an XID (Q_XID) for crash recovery; database statements are not.
      this.emit(body(database ? undefined : this.takeXid(options.xid)), { flags, serverId: gtid.serverId });
      return this;
    }
    const autocommit = !this.tx;
    if (autocommit) this.begin({ transactional: true });
    this.tx!.schema ||= schema;
    this.emit(body(undefined), { flags, serverId: this.tx!.serverId });
    if (autocommit) this.commit();
    return this;
  }

  /** Sets the GTID of the next event group; later groups count on from its sequence number. */
  gtid(options: GtidOptions): this {
    this.writable();
    this.nextGtid = { ...this.nextGtid, ...options };
    return this;
  }

  /** Opens a transaction (its GTID event); row operations open one themselves when none is. */
  begin(options: BeginOptions = {}): this {
    this.writable();
    if (this.tx) throw new EncodeError('a transaction is already open: commit() it first', 'BinlogWriter.begin');
    const { transactional = true, ...gtid } = options;
    if (Object.keys(gtid).length) this.gtid(gtid);
    const flags = transactional
      ? GtidFlags.FL_TRANSACTIONAL | GtidFlags.FL_ALLOW_PARALLEL
      : GtidFlags.FL_ALLOW_PARALLEL;
    const written = this.writeGtid(flags);
    this.tx = { transactional, serverId: written.serverId, schema: '' };
    return this;
  }

  /** Ends the open transaction: XID, or for non-transactional tables QUERY 'COMMIT'. */
  commit(options: CommitOptions = {}): this {
    this.writable();
    if (this.pending) throw new EncodeError('commit() while a row statement is being written', 'BinlogWriter.commit');
    const tx = this.tx;
    if (!tx) throw new EncodeError('commit() with no transaction open', 'BinlogWriter.commit');
    if (tx.transactional) {
      this.emit({ type: 'XID_EVENT', xid: this.takeXid(options.xid) }, { serverId: tx.serverId });
    } else {
      this.emit(
        {
          type: 'QUERY_EVENT',
          threadId: this.threadId,
          execTime: 0,
          errorCode: 0,
          statusVars: statusVars(this.profile, undefined),
          schema: tx.schema,
          query: 'COMMIT',
        },
        { flags: EventFlags.LOG_EVENT_SUPPRESS_USE_F, serverId: tx.serverId },
      );
    }
    this.tx = undefined;
    return this;
  }

  /** INSERT: ANNOTATE_ROWS (with a statement), TABLE_MAP and WRITE_ROWS events. */
  insert(table: TableRef, rows: Iterable<RowInput>, options: RowsOptions = {}): this {
    const s = this.startRows('insert', table, options);
    for (const row of rows) s.add(row);
    s.end();
    return this;
  }

  /** UPDATE: each row as [before, after]. */
  update(table: TableRef, rows: Iterable<readonly [RowInput, RowInput]>, options: RowsOptions = {}): this {
    const s = this.startRows('update', table, options);
    for (const pair of rows) s.add(pair);
    s.end();
    return this;
  }

  delete(table: TableRef, rows: Iterable<RowInput>, options: RowsOptions = {}): this {
    const s = this.startRows('delete', table, options);
    for (const row of rows) s.add(row);
    s.end();
    return this;
  }

  /**
   * A row statement written row by row (for rows that arrive one at a time): `add` each row (for an
   * update, [before, after]), then `end`. Full events go out as they fill.
   */
  startRows(
    kind: 'update',
    table: TableRef,
    options?: RowsOptions,
  ): { add(row: readonly [RowInput, RowInput]): void; end(): void };
  startRows(
    kind: 'insert' | 'delete',
    table: TableRef,
    options?: RowsOptions,
  ): { add(row: RowInput): void; end(): void };
  startRows(
    kind: RowsKind,
    table: TableRef,
    options?: RowsOptions,
  ): { add(row: RowInput | readonly [RowInput, RowInput]): void; end(): void };
  startRows(
    kind: RowsKind,
    ref: TableRef,
    options: RowsOptions = {},
  ): { add(row: RowInput | readonly [RowInput, RowInput]): void; end(): void } {
    this.writable();
    if (this.pending) throw new EncodeError('another row statement is still being written', `BinlogWriter.${kind}`);
    const table = this.resolve(ref);
    const p: PendingRows = {
      kind,
      table,
      tableId: this.tables.get(table.qualified)!.tableId,
      site: table.qualified,
      statement: options.statement,
      started: false,
      rows: [],
      dataSize: 0,
      count: 0,
    };
    this.pending = p;
    return {
      add: (row) => {
        if (this.pending !== p) throw new EncodeError('the row statement has ended', `BinlogWriter.${kind}`);
        try {
          this.addRow(p, row);
        } catch (e) {
          // A refused row ends its statement unwritten (but for the full events already out).
          this.pending = undefined;
          throw e;
        }
      },
      end: () => {
        if (this.pending !== p) return;
        if (p.rows.length) this.flushRows(p, true);
        this.pending = undefined;
      },
    };
  }

  /** ROTATE to the next file: the last event of this one. */
  rotate(nextFile: string, position: number | bigint = 4): this {
    this.finishable('rotate');
    this.emit({ type: 'ROTATE_EVENT', position: BigInt(position), nextFile });
    this.closedBy = 'ROTATE';
    return this;
  }

  /** STOP, as a server that shuts down writes last. */
  stop(): this {
    this.finishable('stop');
    this.emit({ type: 'STOP_EVENT' });
    this.closedBy = 'STOP';
    return this;
  }

  /** Any event, as given; the header's timestamp, type code, server id and flags default to the writer's. */
  event(event: EventInput): this {
    this.writable();
    const { header, ...body } = event as EventInput & { header?: Partial<BinlogEventInput['header']> };
    this.emit(body as EventBodyInput, header);
    return this;
  }

  /** Checks that nothing is left open (a transaction, a row statement). */
  end(): this {
    if (this.pending) throw new EncodeError('a row statement is still being written', 'BinlogWriter.end');
    if (this.tx) throw new EncodeError('a transaction is still open: commit() it', 'BinlogWriter.end');
    return this;
  }

  /** The whole binlog file so far. */
  toBytes(): Uint8Array {
    if (this.sink) throw new EncodeError('the events went to the sink; none are kept', 'BinlogWriter.toBytes');
    this.end();
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of this.chunks) (out.set(c, at), (at += c.length));
    return out;
  }

  async writeTo(path: string): Promise<void> {
    await writeFile(path, this.toBytes());
  }

  /** Runs one operation of `writeBinlog`'s list (rows given as a synchronous iterable). */
  apply(op: BinlogOp): this {
    switch (op.op) {
      case 'query': {
        const { op: _, sql, ...options } = op;
        return this.query(sql, options);
      }
      case 'createDatabase':
        return this.createDatabase(op.name);
      case 'table':
        this.table(op.table, op);
        return this;
      case 'createTable':
        this.createTable(op.table, op);
        return this;
      case 'begin':
        return this.begin(op.options);
      case 'gtid': {
        const { op: _, ...options } = op;
        return this.gtid(options);
      }
      case 'insert':
      case 'delete':
      case 'update': {
        if (!isIterable(op.rows))
          throw new EncodeError(
            'apply() takes rows as a synchronous iterable; writeBinlog takes async ones',
            `BinlogOp.${op.op}`,
          );
        const s = this.startRows(op.op, op.table, { statement: op.statement });
        for (const row of op.rows as Iterable<RowInput | readonly [RowInput, RowInput]>) s.add(row);
        s.end();
        return this;
      }
      case 'commit':
        return this.commit(op);
      case 'timestamp':
        return this.setTimestamp(op.timestamp);
      case 'rotate':
        return this.rotate(op.nextFile, op.position);
      case 'stop':
        return this.stop();
      case 'event':
        return this.event(op.event);
      default:
        throw new EncodeError(`unknown operation ${JSON.stringify((op as { op: unknown }).op)}`, 'BinlogOp.op');
    }
  }

  // ---- internals ----

  private writable(): void {
    if (this.closedBy)
      throw new EncodeError(`the binlog has ended (after ${this.closedBy}): no more events`, 'BinlogWriter');
  }

  private finishable(what: string): void {
    this.writable();
    if (this.pending || this.tx)
      throw new EncodeError(`${what}() inside an open transaction: commit() it first`, `BinlogWriter.${what}`);
  }

  /** A known table's CREATE TABLE, made when first asked for. */
  private ddl(known: KnownTable): string {
    return (known.ddl ??= createTableSql(known.table));
  }

  private resolve(ref: TableRef): Table {
    if (typeof ref === 'string') {
      const known = this.tables.get(ref);
      if (!known)
        throw new EncodeError(`no table '${ref}' is known: define it with table() or createTable()`, 'BinlogWriter');
      return known.table;
    }
    return this.table(ref);
  }

  /** The next XID, or the one given (and the count goes on from it). */
  private takeXid(given: number | bigint | undefined): bigint {
    const xid = given !== undefined ? BigInt(given) : this.nextXid;
    this.nextXid = xid + 1n;
    return xid;
  }

  private writeGtid(flags: number): { serverId: number } {
    const next = this.nextGtid ?? {};
    this.nextGtid = undefined;
    const seqNo = next.seqNo !== undefined ? BigInt(next.seqNo) : this.lastSeqNo + 1n;
    this.lastSeqNo = seqNo;
    const serverId = next.serverId ?? this.serverId;
    let f = next.flags ?? flags;
    if (next.commitId !== undefined) f |= GtidFlags.FL_GROUP_COMMIT_ID;
    const body: GtidEventInput & { type: 'GTID_EVENT' } = {
      type: 'GTID_EVENT',
      seqNo,
      domainId: next.domainId ?? this.domainId,
      flags: f,
    };
    if (f & GtidFlags.FL_GROUP_COMMIT_ID) body.commitId = BigInt(next.commitId ?? 0);
    else {
      // Gtid_log_event::write fills the 19-byte post-header with zeros: flags_extra 0, then 5 more.
      body.flagsExtra = 0;
      body.padding = new Uint8Array(5);
    }
    // MariaDB's GTID events carry LOG_EVENT_SUPPRESS_USE_F (as test/fixtures/sample.bin's do).
    this.emit(body, { serverId, flags: EventFlags.LOG_EVENT_SUPPRESS_USE_F });
    return { serverId };
  }

  private addRow(p: PendingRows, row: RowInput | readonly [RowInput, RowInput]): void {
    const t = p.table;
    const index = p.count++;
    const images = this.checkedImages(p, row, index);
    if (!p.started) this.startStatement(p);
    const change: RowChange = {};
    let size = 0;
    for (const [image, checked] of images) {
      change[image] = this.named(t, checked.row);
      size += checked.size;
    }
    if (p.rows.length && p.dataSize + size > this.maxRowsEventSize) this.flushRows(p, false);
    if (!p.rows.length) p.dataSize = rowsHeaderSize(t.columns.length, p.kind === 'update');
    p.rows.push(change);
    p.dataSize += size;
  }

  /** A row's images, checked before anything of its statement is written: an UPDATE's both, else one. */
  private checkedImages(
    p: PendingRows,
    row: RowInput | readonly [RowInput, RowInput],
    index: number,
  ): ['before' | 'after', CheckedImage][] {
    const checker = rowChecker(p.table);
    if (p.kind !== 'update') {
      const image = p.kind === 'insert' ? 'after' : 'before';
      return [[image, checker.image(row as RowInput, { table: p.site, row: index })]];
    }
    if (!Array.isArray(row) || row.length !== 2) {
      throw new RowValueError('an UPDATE row is a pair [before, after]', { table: p.site, row: index }, '*', row);
    }
    return (['before', 'after'] as const).map((image, k) => [
      image,
      checker.image(row[k] as RowInput, { table: p.site, row: index, image }),
    ]);
  }

  /** The statement's first row: its transaction, ANNOTATE_ROWS and TABLE_MAP. */
  private startStatement(p: PendingRows): void {
    if (!this.tx) this.begin({ transactional: p.table.transactional });
    this.tx!.schema ||= p.table.schema;
    const serverId = this.tx!.serverId;
    if (p.statement !== undefined) this.emit({ type: 'ANNOTATE_ROWS_EVENT', query: p.statement }, { serverId });
    this.emit(tableMapEvent(p.table, p.tableId, this.rowMetadata), { serverId });
    p.started = true;
  }

  /** A row image under the names the decoder gives the columns: `@1`, `@2` … without COLUMN_NAME. */
  private named(t: Table, row: Row): Row {
    if (this.rowMetadata === 'FULL') return row;
    return Object.fromEntries(t.columns.map((c) => [`@${c.index + 1}`, row[c.name]!]));
  }

  private flushRows(p: PendingRows, last: boolean): void {
    const { type, images } = ROWS_EVENTS[p.kind];
    const n = p.table.columns.length;
    const present = new Array<boolean>(n).fill(true);
    const body: RowsEventInput & { type: typeof type } = {
      type,
      tableId: p.tableId,
      flags: last ? RowsFlags.STMT_END_F : 0,
      columnCount: n,
      columnsPresent: present,
      rows: p.rows,
    };
    if (images === RowImages.BOTH) body.columnsPresentAfter = present;
    this.emit(body as EventBodyInput, { serverId: this.tx!.serverId });
    p.rows = [];
    p.dataSize = 0;
  }

  private emit(
    body: EventBodyInput | { type: string; raw: Uint8Array },
    header: Partial<BinlogEventInput['header']> = {},
  ): void {
    const typeCode =
      header.typeCode ??
      (EventTypes as Record<string, number>)[body.type] ??
      Number(/^UNKNOWN_(\d+)$/.exec(body.type)?.[1]);
    if (!Number.isInteger(typeCode)) throw new EncodeError(`unknown event type '${body.type}'`, 'BinlogWriter.event');
    if (!this.foreignEvents) checkWrites(this.profile, body.type);
    const event = {
      ...body,
      header: {
        timestamp: header.timestamp ?? this.timestamp,
        typeCode,
        serverId: header.serverId ?? this.tx?.serverId ?? this.serverId,
        flags: header.flags ?? 0,
        ...(header.logPos !== undefined ? { logPos: header.logPos } : {}),
        ...(header.extra !== undefined ? { extra: header.extra } : {}),
      },
    } as BinlogEventInput;
    // The events after START_ENCRYPTION are encrypted; it is itself in clear.
    const encryption = this.encoder.format.encryption;
    const bytes = this.encoder.encode(event, this.offset);
    this.output(encryption ? encryption.encrypt(bytes, this.offset) : bytes);
  }

  /** The bytes at the writer's offset, which counts the plain binlog's bytes (a MySQL file's header is not in it). */
  private output(bytes: Uint8Array): void {
    this.offset += bytes.length;
    for (const chunk of this.fileEncryption ? this.fileEncryption.push(bytes) : [bytes]) {
      if (this.sink) this.sink(chunk);
      else this.chunks.push(chunk);
    }
  }
}

/** The START_ENCRYPTION event of an encrypted file: MariaDB's scheme, the key's version and a nonce. */
function startEncryption(options: WriterEncryption): EventBodyInput {
  return {
    type: 'START_ENCRYPTION_EVENT',
    scheme: MARIADB_ENCRYPTION_SCHEME,
    keyVersion: options.keyVersion ?? 1,
    nonce: options.nonce ?? new Uint8Array(randomBytes(MARIADB_NONCE_LENGTH)),
  };
}

/** get_data_size() of an empty v1 row event: post-header, column count, the present-columns bitmap(s). */
function rowsHeaderSize(columns: number, update: boolean): number {
  return ROWS_POST_HEADER_V1 + packedWidth(columns) + ((columns + 7) >> 3) * (update ? 2 : 1);
}

function textOf(v: Text): string {
  return typeof v === 'string' ? v : new TextDecoder().decode(v);
}

function isIterable(x: unknown): x is Iterable<unknown> {
  return x !== null && typeof x === 'object' && Symbol.iterator in x;
}
