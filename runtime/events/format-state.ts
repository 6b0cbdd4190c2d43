/**
 * What a FORMAT_DESCRIPTION event says about every event after it: the common-header length, each type's
 * post-header length and whether events end with a CRC32. Decoder and encoder share it, so both read the
 * FDE the same way.
 */
import type { Context } from '../../generated/context.js';
import { ChecksumAlg, FormatDescriptionEventOffsets, type FormatDescriptionEvent } from '../../generated/control.js';
import { EventEffects, EventTypeNames, EventTypes, type EventEffect } from '../../generated/events.js';
import type { TableMapEvent } from '../../generated/rows.js';
import {
  CHECKSUM_AWARE_SINCE_MARIADB,
  CHECKSUM_AWARE_SINCE_MYSQL,
  CHECKSUM_LENGTH,
  DROP_TREE_EVENT_TYPE_PERMUTATION,
  DROP_TREE_EVENT_TYPES,
  DROP_TREE_SERVER_VERSIONS,
  EVENT_HEADER_LENGTH,
  EventFlags,
  EventHeaderOffsets,
  V1_HEADER_LENGTH,
  V3_POST_HEADER_LENGTHS,
} from '../../generated/header.js';
import { Reader, type Text } from '../core/reader.js';
import { versionAtLeast } from '../core/schema-helpers.js';
import { textToBytes } from '../core/writer.js';
import { InvalidValueError } from '../core/errors.js';
import { resolveTableDefinitions, type TableDefinitions } from '../tables/definitions.js';
import { TableRegistry } from '../tables/registry.js';
import type { AlterPhase, SchemaHistory } from '../tables/history.js';
import { GtidExtraFlags } from '../../generated/mariadb.js';
import type { HintFn } from '../values/column.js';
import { rowTables, type RowsOptions } from '../rows/row-tables.js';
import { FileEncryption, type EncryptionOptions, type StartEncryption } from './encryption.js';
import { dashedUuid } from '../core/uuid.js';

/** What the caller knows about the tables that a binlog does not say. */
export interface TableKnowledge {
  /** Signedness and charsets for columns whose TABLE_MAP does not carry them (binlog_row_metadata=NO_LOG). */
  columnHints?: HintFn;
  /** Definitions of tables by 'schema.table', with which rows v0 are decoded (runtime/tables/definitions.ts). */
  tableDefinitions?: TableDefinitions;
  /**
   * The definitions as they change along the binlog (runtime/tables/history.ts): each QUERY event's DDL
   * updates it, and each TABLE_MAP is read with the definition of its point. It takes the place of
   * `tableDefinitions`, which it is seeded with.
   */
  schemaHistory?: SchemaHistory;
}

/**
 * An event as the state takes it: decoded, or an input to encode (a FORMAT_DESCRIPTION's as its bytes read
 * back). Its type says which effect it has; the fields that effect reads are checked before they are read.
 */
type StateEvent = { type: string; pos?: number };

/** What an effect does to the state, from the event (and a TABLE_MAP's body bytes). */
type EffectOnState = (state: FormatState, event: StateEvent, body?: Uint8Array) => void;

/** A FORMAT_DESCRIPTION with the fields the state takes from it. */
function isFormatDescription(e: StateEvent): e is StateEvent & FormatDescriptionEvent {
  return e.type === 'FORMAT_DESCRIPTION_EVENT' && 'headerLength' in e && 'postHeaderLengths' in e;
}

/** A TABLE_MAP with the fields the table registry takes from it. */
function isTableMap(e: StateEvent): e is StateEvent & TableMapEvent {
  return e.type === 'TABLE_MAP_EVENT' && 'tableId' in e && 'columnTypes' in e;
}

/** A START_ENCRYPTION with the fields a file's encryption takes from it. */
function isStartEncryption(e: StateEvent): e is StateEvent & StartEncryption {
  return (
    (e.type === 'START_ENCRYPTION_EVENT' || e.type === 'START_5_7_ENCRYPTION_EVENT') && 'scheme' in e && 'nonce' in e
  );
}

/**
 * A MariaDB primary decrypts its binlog for its replicas and sends the file's START_ENCRYPTION with
 * LOG_EVENT_IGNORABLE_F added (sql_repl.cc, send_format_descriptor_event), which a server never writes into a
 * file: the events after such a one arrive in clear, and nothing decrypts them again.
 */
function sentDecrypted(e: StateEvent): boolean {
  const flags = (e as { header?: { flags?: number } }).header?.flags ?? 0;
  return (flags & EventFlags.LOG_EVENT_IGNORABLE_F) !== 0;
}

export const FDE_CODE = EventTypes.FORMAT_DESCRIPTION_EVENT;

export class FormatState {
  /** Tables described by TABLE_MAP events so far; an FDE names the flavor of server that wrote them. */
  readonly tables: TableRegistry;
  binlogVersion = 4;
  headerLength = EVENT_HEADER_LENGTH;
  /** Post-header lengths by real event type code less one (an FDE's own list, permuted when it must be). */
  postHeaderLengths: readonly number[] = [];
  /**
   * Stored event type code → real one, after the FDE of a 5.1-wl2325 "drop" tree, which numbered the
   * events after 15 otherwise; undefined when codes are what they say.
   */
  permutation: Uint8Array | undefined;
  checksums = false;
  serverVersion = '';
  /** The keys that encrypted events are read and written with (MariaDB's encrypt_binlog), when given. */
  readonly keys: EncryptionOptions | undefined;
  /** After MariaDB's START_ENCRYPTION every later event of the file is encrypted: this says how, and with what key. */
  encryption: FileEncryption | undefined;

  /** Set by an encryption start without the fields of its body (one made by hand): nothing after it reads. */
  private unknownEncryption = false;

  /** Whether the events from here on are encrypted and no key reads them: they are kept as bytes. */
  get encrypted(): boolean {
    return this.unknownEncryption || (this.encryption !== undefined && this.encryption.key === undefined);
  }

  /** The state before any FDE; its row tables give rows in the form the options ask for. */
  constructor(options: TableKnowledge & RowsOptions = {}, keys?: EncryptionOptions) {
    this.keys = keys;
    this.history = options.schemaHistory;
    const definitions = this.history ?? resolveTableDefinitions(options.tableDefinitions);
    this.tables = new TableRegistry(options.columnHints, definitions);
    this.ctx = {
      tables: rowTables(this.tables, options),
      binlogVersion: 4,
      headerLength: EVENT_HEADER_LENGTH,
      postHeaderLength: 0,
      hasChecksum: false,
    };
  }

  /** The schema history that QUERY events update, when the caller keeps one. */
  private readonly history: SchemaHistory | undefined;

  /** One context object, refilled for each event: decoders only read it, and only during their event. */
  private readonly ctx: Context;

  /** The context for an event of type `code`; `fdeAware` says whether an FDE itself carries a CRC32. */
  context(code: number, fdeAware: boolean): Context {
    const ctx = this.ctx;
    ctx.binlogVersion = this.binlogVersion;
    ctx.headerLength = this.headerLength;
    ctx.postHeaderLength = this.postHeaderLengths[code - 1] ?? 0;
    ctx.hasChecksum = code === FDE_CODE ? fdeAware : this.checksums;
    return ctx;
  }

  /** The event type a stored type code stands for under the FDE in force. */
  realCode(stored: number): number {
    return this.permutation?.[stored] ?? stored;
  }

  /** The type code to store for an event of real type `code` (the permutation is one to one). */
  storedCode(code: number): number {
    const at = this.permutation?.indexOf(code) ?? -1;
    return at < 0 ? code : at;
  }

  /** Runs `fn` with checksums off: the events inside a TRANSACTION_PAYLOAD carry none, whatever the FDE says. */
  withoutChecksums<T>(fn: () => T): T {
    const saved = this.checksums;
    this.checksums = false;
    try {
      return fn();
    } finally {
      this.checksums = saved;
    }
  }

  /**
   * What each effect an event may have (the catalogue's `effect:`, schemas/events.yaml) does to the state,
   * from the event's body (`body`, a TABLE_MAP's bytes after the header, lets the same TABLE_MAP again
   * keep its table); undefined for an effect on what lies beyond the state.
   */
  private static readonly EFFECTS: Readonly<Record<EventEffect, EffectOnState | undefined>> = {
    'sets-format': (state, event) => {
      if (isFormatDescription(event)) state.apply(event, event.pos ?? 0);
    },
    'sets-v3-format': (state, event) => {
      if (!('raw' in event)) state.postHeaderLengths = [...V3_POST_HEADER_LENGTHS];
    },
    'starts-encryption': (state, event) => {
      if (sentDecrypted(event)) return;
      if (isStartEncryption(event)) state.encryption = new FileEncryption(event, state.keys, event.pos ?? 0);
      else state.unknownEncryption = true;
    },
    'maps-table': (state, event, body) => {
      if (isTableMap(event)) state.tables.register(event, body);
    },
    // The file ends: the FORMAT_DESCRIPTION that begins the next says how it reads.
    rotates: undefined,
  };

  /** The type codes whose events change what later events mean: those with an effect on the state. */
  private static readonly CHANGING: ReadonlySet<number> = new Set(
    Object.entries(EventEffects).flatMap(([name, effect]) =>
      FormatState.EFFECTS[effect!] ? [EventTypes[name as keyof typeof EventTypes] as number] : [],
    ),
  );

  /** The effect of events of a real type code on what follows them (the catalogue's `effect:`). */
  static effectOf(code: number): EventEffect | undefined {
    return EventEffects[EventTypeNames[code] ?? ''];
  }

  /**
   * Whether events of this type change what later events mean (FDE, START_EVENT_V3, START_ENCRYPTION and TABLE_MAP do).
   */
  static changesFormat(code: number): boolean {
    return FormatState.CHANGING.has(code);
  }

  /**
   * Whether events of this type change what later events mean for this state: those that change the
   * format, and, when a schema history is kept, the QUERY events whose DDL changes it and the GTIDs
   * that place them.
   */
  follows(code: number): boolean {
    return FormatState.changesFormat(code) || (this.history !== undefined && SCHEMA_EVENTS.has(code));
  }

  /** What an event changes for the events after it: its effect on the state, if it has one. */
  after(event: StateEvent, body?: Uint8Array): void {
    const effect = EventEffects[event.type];
    if (effect) FormatState.EFFECTS[effect]?.(this, event, body);
    else if (this.history) followSchema(this.history, event);
  }

  /**
   * A START_EVENT_V3 begins a v1 or a v3 file, whose header lengths differ: set before the event itself
   * is read or written.
   */
  startV3(v1: boolean): void {
    this.binlogVersion = v1 ? 1 : 3;
    this.headerLength = v1 ? V1_HEADER_LENGTH : EVENT_HEADER_LENGTH;
  }

  /** mysqlbinlog's test: a v1 START_EVENT_V3 is too short to hold a v3 header and its post-header. */
  static isV1Start(eventSize: number): boolean {
    return eventSize < EVENT_HEADER_LENGTH + V3_POST_HEADER_LENGTHS[0]!;
  }

  private apply(fde: FormatDescriptionEvent, pos: number): void {
    // A FORMAT_DESCRIPTION begins a file, whose events are clear until its own START_ENCRYPTION.
    this.encryption = undefined;
    this.unknownEncryption = false;
    this.binlogVersion = 4;
    this.headerLength = fde.headerLength;
    this.checksums =
      fde.checksumAlg === 'BINLOG_CHECKSUM_ALG_CRC32' || fde.checksumAlg === ChecksumAlg.BINLOG_CHECKSUM_ALG_CRC32;
    this.serverVersion = typeof fde.serverVersion === 'string' ? fde.serverVersion : '';
    this.tables.newFormat(/mariadb/i.test(this.serverVersion) ? 'mariadb' : 'mysql', this.serverVersion);
    this.permutation = DROP_TREE_VERSION.test(this.serverVersion) ? DROP_TREE_EVENT_TYPE_PERMUTATION : undefined;
    this.postHeaderLengths = this.permutation
      ? permutedLengths(fde.postHeaderLengths, this.permutation, pos)
      : fde.postHeaderLengths;
  }
}

/**
 * What the schema history takes from an event: a QUERY's statement (DDL changes it) and a GTID, the
 * transaction the statements after it belong to. Only events with a file position can change it: those
 * inside a TRANSACTION_PAYLOAD are DML.
 */
function followSchema(history: SchemaHistory, event: PlacedEvent): void {
  if (isQuery(event)) {
    const query = event;
    // A table or database created without a character set takes the server's (its database's when known).
    const serverCollation = query.statusVars?.find((v) => v.code === 'Q_CHARSET_CODE')?.collationServer;
    const at = { ...(event.file === undefined ? {} : { file: event.file }), pos: event.pos ?? 0 };
    history.query(text(query.query), text(query.schema), at, serverCollation);
  } else if (isMariadbGtid(event)) {
    history.gtid(`${event.domainId}-${event.header.serverId}-${event.seqNo}`, alterPhaseOf(event.flagsExtra ?? 0));
  } else if (isMysqlGtid(event)) {
    history.gtid(mysqlGtidText(event));
  } else if (event.type === 'ANONYMOUS_GTID_LOG_EVENT') {
    history.gtid(undefined);
  }
}

/** A MySQL GTID with the fields that name its transaction (a tagged one's tag too, MySQL 8.3 on). */
function isMysqlGtid(e: PlacedEvent): e is PlacedEvent & { sid: Uint8Array; gno: bigint; tag?: Text } {
  return (e.type === 'GTID_LOG_EVENT' || e.type === 'GTID_TAGGED_LOG_EVENT') && 'sid' in e && 'gno' in e;
}

/** A MySQL GTID as the server prints it: the source's UUID in its 8-4-4-4-12 form, the tag if any, the number. */
function mysqlGtidText(e: { sid: Uint8Array; gno: bigint; tag?: Text }): string {
  const uuid = dashedUuid(Buffer.from(e.sid).toString('hex'));
  const tag = e.tag === undefined ? [] : [text(e.tag)];
  return [uuid, ...tag, String(e.gno)].join(':');
}

/** What a MariaDB GTID event's extra flags say of its QUERY under binlog_alter_two_phase. */
function alterPhaseOf(flagsExtra: number): AlterPhase | undefined {
  if (flagsExtra & GtidExtraFlags.FL_START_ALTER_E1) return 'start';
  if (flagsExtra & GtidExtraFlags.FL_COMMIT_ALTER_E1) return 'commit';
  if (flagsExtra & GtidExtraFlags.FL_ROLLBACK_ALTER_E1) return 'rollback';
  return undefined;
}

/** An event with its place in the file, as the schema history takes it. */
type PlacedEvent = { type: string; pos?: number; file?: string };

/** A QUERY (or MariaDB's compressed QUERY) with the fields the schema history reads. */
function isQuery(e: PlacedEvent): e is PlacedEvent & QueryFields {
  return (e.type === 'QUERY_EVENT' || e.type === 'QUERY_COMPRESSED_EVENT') && 'query' in e && 'schema' in e;
}

/** A MariaDB GTID with the fields that name its transaction. */
function isMariadbGtid(
  e: PlacedEvent,
): e is PlacedEvent & { domainId: number; seqNo: number | bigint; flagsExtra?: number; header: { serverId: number } } {
  return e.type === 'GTID_EVENT' && 'domainId' in e && 'seqNo' in e && 'header' in e;
}

/** The events the schema history follows. */
const SCHEMA_EVENTS: ReadonlySet<number> = new Set([
  EventTypes.QUERY_EVENT,
  EventTypes.QUERY_COMPRESSED_EVENT,
  EventTypes.GTID_EVENT,
  EventTypes.GTID_LOG_EVENT,
  EventTypes.GTID_TAGGED_LOG_EVENT,
  EventTypes.ANONYMOUS_GTID_LOG_EVENT,
]);

/** What the schema history reads of a QUERY event. */
interface QueryFields {
  query: Text;
  schema: Text;
  statusVars?: { code: string; collationServer?: number }[];
}

const text = (v: Text) => (typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));

const DROP_TREE_VERSION = new RegExp(DROP_TREE_SERVER_VERSIONS);

/**
 * A drop tree's post-header lengths, which it lists by stored code, moved to their real codes as MySQL
 * moves them; MySQL finds the FDE invalid unless it lists exactly the tree's event types.
 */
function permutedLengths(stored: readonly number[], permutation: Uint8Array, pos: number): number[] {
  if (stored.length !== DROP_TREE_EVENT_TYPES) {
    throw new InvalidValueError(
      `a 5.1-wl2325 server's FORMAT_DESCRIPTION lists ${stored.length} event types, not ${DROP_TREE_EVENT_TYPES}`,
      {
        offset: pos,
        schemaPath: 'FormatDescriptionEvent.postHeaderLengths',
      },
    );
  }
  const real = new Array<number>(stored.length);
  stored.forEach((length, i) => (real[permutation[i + 1]! - 1] = length));
  return real;
}

/** Whether a server of this version ends every FORMAT_DESCRIPTION event with an algorithm byte and a CRC32. */
export function checksumAware(serverVersion: string | Uint8Array): boolean {
  return versionAtLeast(serverVersion, CHECKSUM_AWARE_SINCE_MYSQL, CHECKSUM_AWARE_SINCE_MARIADB);
}

/** The bytes of an FDE's NUL-padded server version field. */
const SERVER_VERSION_LENGTH =
  FormatDescriptionEventOffsets.createTimestamp - FormatDescriptionEventOffsets.serverVersion;

/** The server version inside an FDE's raw bytes (header included), read without decoding the event. */
export function fdeServerVersion(event: Uint8Array, headerLength: number): Uint8Array {
  const at = headerLength + FormatDescriptionEventOffsets.serverVersion;
  const field = event.subarray(at, at + SERVER_VERSION_LENGTH);
  const nul = field.indexOf(0);
  return nul < 0 ? field : field.subarray(0, nul);
}

/**
 * A server version as a decoder reads it back from the padded field it is written to (Reader.padded): the
 * text before the first NUL, or the field's bytes when they are not UTF-8 or something follows that NUL.
 */
export function storedServerVersion(version: Text): Text {
  const field = new Uint8Array(SERVER_VERSION_LENGTH);
  field.set(textToBytes(version));
  return new Reader(field).padded(SERVER_VERSION_LENGTH, 'FormatDescriptionEvent.serverVersion');
}

/**
 * CRC32 of an event's bytes before its checksum. A server computes an FDE's CRC with the in-use flag
 * clear and sets the flag afterwards, so the flag is cleared here for the computation.
 */
export function eventCrc(event: Uint8Array, end: number, crc32: (b: Uint8Array, seed?: number) => number): number {
  const flagsAt = EventHeaderOffsets.flags;
  const inUse = EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
  if (event[EventHeaderOffsets.typeCode] !== FDE_CODE || !(event[flagsAt]! & inUse))
    return crc32(event.subarray(0, end));
  const head = crc32(event.subarray(0, flagsAt));
  const flag = crc32(Uint8Array.of(event[flagsAt]! & ~inUse), head);
  return crc32(event.subarray(flagsAt + 1, end), flag);
}

export { CHECKSUM_LENGTH, V1_HEADER_LENGTH };
