/**
 * What a server writes that no statement changes: the FORMAT_DESCRIPTION of its files and the session
 * state of its QUERY events, per server the builder imitates.
 */
import type { FormatDescriptionEventInput } from '../generated/control.js';
import { EventServers } from '../generated/events.js';
import type { QueryEventStatusVarsEntryInput } from '../generated/query.js';
import { EncodeError } from '../runtime/core/errors.js';
import type { Flavor } from '../runtime/core/tables.js';

/** The server a builder imitates. */
export type ServerProfileName = 'mariadb-10.11';

export interface ServerProfile {
  /** Which server it is, as the event catalogue's `server:` names them. */
  flavor: Flavor;
  serverVersion: string;
  postHeaderLengths: readonly number[];
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
    // The FORMAT_DESCRIPTION post-header lengths (by type code - 1, 171 types up to PARTIAL_ROW_DATA) of a
    // real MariaDB 10.11.19 server: copied from the FDE of test/fixtures/sample.bin
    // (`binlog dump test/fixtures/sample.bin | head -1`).
    postHeaderLengths: [
      56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10,
      0, 0, 0, 0, 0, 0, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10,
    ],
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
    headerLength: 19,
    postHeaderLengths: [...profile.postHeaderLengths],
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
