/**
 * What a server writes that no statement changes: the FORMAT_DESCRIPTION of its files and the session
 * state of its QUERY events, per server the builder imitates.
 */
import { FormatDescriptionEventOffsets, type FormatDescriptionEventInput } from '../generated/control.js';
import { EventPostHeaderLengths, EventServers, EventTypeNames, EventTypes } from '../generated/events.js';
import { EVENT_HEADER_LENGTH } from '../generated/header.js';
import type { QueryEventStatusVarsEntryInput } from '../generated/query.js';
import { EncodeError } from '../runtime/core/errors.js';
import type { Flavor } from '../runtime/core/tables.js';

/** The server a builder imitates. */
export type ServerProfileName = 'mariadb-10.11';

export interface ServerProfile {
  /** Which server it is, as the event catalogue's `server:` names them. */
  flavor: Flavor;
  serverVersion: string;
  /** How many event types its FORMAT_DESCRIPTION lists post-header lengths for (codes 1 to this). */
  eventTypes: number;
  /**
   * The post-header lengths it lists that the schemas do not give (EventPostHeaderLengths): where they
   * fix none, and where the server lists another (0 for an event it never writes). Any other code the
   * schemas fix no length for, the server lists as 0.
   */
  postHeaderLengths: Partial<Record<keyof typeof EventTypes, number>>;
  /** QUERY's Q_FLAGS2_CODE, Q_SQL_MODE_CODE, Q_CATALOG_NZ_CODE and Q_CHARSET_CODE values. */
  flags2: number;
  sqlMode: bigint;
  catalog: string;
  charset: { characterSetClient: number; collationConnection: number; collationServer: number };
}

const PROFILES: Record<ServerProfileName, ServerProfile> = {
  'mariadb-10.11': {
    flavor: 'mariadb',
    serverVersion: '10.11.19-MariaDB-log',
    // What the FORMAT_DESCRIPTION of a real MariaDB 10.11.19 server (test/fixtures/sample.bin) lists
    // beside the schemas' lengths: its 171 types (LOG_EVENT_TYPES, to DELETE_ROWS_COMPRESSED_EVENT), and
    // these (sql/log_event.cc, Format_description_log_event).
    eventTypes: 171,
    postHeaderLengths: {
      // LOAD_HEADER_LEN, CREATE_FILE_HEADER_LEN (its file id alone), NEW_LOAD_HEADER_LEN: LoadEvent
      // fixes none, as CREATE_FILE's does not count the LOAD post-header before it.
      LOAD_EVENT: 18,
      CREATE_FILE_EVENT: 4,
      NEW_LOAD_EVENT: 18,
      // Rows v0, which no server writes since MySQL 5.1.17: listed as 0.
      PRE_GA_WRITE_ROWS_EVENT: 0,
      PRE_GA_UPDATE_ROWS_EVENT: 0,
      PRE_GA_DELETE_ROWS_EVENT: 0,
      // MySQL's Group Replication events, which MariaDB never writes.
      TRANSACTION_CONTEXT_EVENT: 0,
      VIEW_CHANGE_EVENT: 0,
      // MySQL's codes 40 and 41, which 10.11 lists as it does 39 (PARTIAL_UPDATE_ROWS, a rows v2 event),
      // though neither has that post-header (MariaDB 10.5 listed 0 for all three).
      TRANSACTION_PAYLOAD_EVENT: 10,
      HEARTBEAT_LOG_EVENT_V2: 10,
      // GTID_HEADER_LEN, which GtidEvent's fields fill variously (a commit id, or flags_extra and zeros).
      GTID_EVENT: 19,
    },
    // The session state every QUERY event of test/fixtures/sample.bin carries: flags2 (the OPTION_* bits
    // a default session has), the default sql_mode of 10.11 (STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO,
    // NO_AUTO_CREATE_USER, NO_ENGINE_SUBSTITUTION), the catalog, and the client's utf8mb4 (45) with the
    // server's compiled-in latin1 (8).
    flags2: 16777216,
    sqlMode: 1411383296n,
    catalog: 'std',
    charset: { characterSetClient: 45, collationConnection: 45, collationServer: 8 },
  },
};

/** The profile of a server by its name (refused when the builder does not know it). */
export function serverProfile(name: ServerProfileName): ServerProfile {
  const profile = PROFILES[name];
  if (!profile) throw new EncodeError(`unknown server '${name}'`, 'BinlogWriterOptions.server');
  return profile;
}

/**
 * Refuses an event type the server never writes, by the catalogue's `server:` (schemas/events.yaml): a
 * MySQL or a fork's event. A type the catalogue does not list (a raw UNKNOWN_<code>) is the caller's.
 */
export function checkWrites(profile: ServerProfile, type: string): void {
  const server = EventServers[type];
  if (server === undefined || server === 'both' || server === profile.flavor) return;
  const whose = server === 'vendor' ? "a fork's (not MySQL's or MariaDB's)" : `${server}'s`;
  throw new EncodeError(`${type} is ${whose}: the ${profile.flavor} server this writer imitates never writes it (foreignEvents: true writes it all the same)`, 'BinlogWriter.event');
}

/**
 * The post-header lengths the server's FORMAT_DESCRIPTION lists, by type code - 1: the profile's, else
 * the schemas'; the FORMAT_DESCRIPTION's own runs through this list, after the fields before it.
 */
export function postHeaderLengths(profile: ServerProfile): number[] {
  return Array.from({ length: profile.eventTypes }, (_, i) => {
    const code = i + 1;
    const listed = profile.postHeaderLengths[EventTypeNames[code] as keyof typeof EventTypes];
    if (listed !== undefined) return listed;
    if (code === EventTypes.FORMAT_DESCRIPTION_EVENT) return FormatDescriptionEventOffsets.end + profile.eventTypes;
    return EventPostHeaderLengths[code] ?? 0;
  });
}

/** What a file's FORMAT_DESCRIPTION may say otherwise than the server's. */
export interface FormatDescriptionOptions {
  serverVersion?: string;
  createTimestamp: number;
  checksum?: 'CRC32' | 'NONE';
}

/** The FORMAT_DESCRIPTION that starts each of the server's files. */
export function formatDescription(profile: ServerProfile, options: FormatDescriptionOptions): FormatDescriptionEventInput & { type: 'FORMAT_DESCRIPTION_EVENT' } {
  const checksum = options.checksum ?? 'CRC32';
  if (checksum !== 'CRC32' && checksum !== 'NONE') {
    throw new EncodeError(`binlog_checksum is CRC32 or NONE, not '${String(checksum)}'`, 'BinlogWriterOptions.checksum');
  }
  return {
    type: 'FORMAT_DESCRIPTION_EVENT',
    binlogVersion: 4,
    serverVersion: options.serverVersion ?? profile.serverVersion,
    createTimestamp: options.createTimestamp,
    headerLength: EVENT_HEADER_LENGTH,
    postHeaderLengths: postHeaderLengths(profile),
    checksumAlg: checksum === 'CRC32' ? 'BINLOG_CHECKSUM_ALG_CRC32' : 'BINLOG_CHECKSUM_ALG_OFF',
  };
}

/** The status variables of the server's QUERY events: its session state, and a DDL statement's Q_XID. */
export function statusVars(profile: ServerProfile, xid: bigint | undefined): QueryEventStatusVarsEntryInput[] {
  const vars: QueryEventStatusVarsEntryInput[] = [
    { code: 'Q_FLAGS2_CODE', flags2: profile.flags2 },
    { code: 'Q_SQL_MODE_CODE', sqlMode: profile.sqlMode },
    { code: 'Q_CATALOG_NZ_CODE', catalog: profile.catalog },
    { code: 'Q_CHARSET_CODE', ...profile.charset },
  ];
  if (xid !== undefined) vars.push({ code: 'Q_XID', xid });
  return vars;
}
