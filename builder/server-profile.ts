/**
 * What a server writes that no statement changes: the FORMAT_DESCRIPTION of its files and the session
 * state of its QUERY events, per server the builder imitates. The servers' facts are schemas/servers.yaml's
 * (generated ServerProfiles); this module makes events of them.
 */
import { FormatDescriptionEventOffsets, type FormatDescriptionEventInput } from '../generated/control.js';
import { EventPostHeaderLengths, EventServers, EventTypes } from '../generated/events.js';
import { EVENT_HEADER_LENGTH } from '../generated/header.js';
import type { QueryEventStatusVarsEntryInput } from '../generated/query.js';
import { ServerProfiles, type ServerProfile, type ServerProfileName } from '../generated/servers.js';
import { EncodeError } from '../runtime/core/errors.js';

export type { ServerProfile, ServerProfileName };

/** The profile of a server by its name (refused when the builder does not know it). */
export function serverProfile(name: ServerProfileName): ServerProfile {
  // A caller without TypeScript may give any name, an inherited key of an object among them.
  if (!Object.hasOwn(ServerProfiles, name)) {
    throw new EncodeError(`unknown server '${name}'`, 'BinlogWriterOptions.server');
  }
  return ServerProfiles[name];
}

/**
 * Refuses an event type the server never writes, by the catalogue's `server:` (schemas/events.yaml): a
 * MySQL or a fork's event. A type the catalogue does not list (a raw UNKNOWN_<code>) is the caller's.
 */
export function checkWrites(profile: ServerProfile, type: string): void {
  const server = EventServers[type];
  if (server === undefined || server === 'both' || server === profile.flavor) return;
  const whose = server === 'vendor' ? "a fork's (not MySQL's or MariaDB's)" : `${server}'s`;
  throw new EncodeError(
    `${type} is ${whose}: the ${profile.flavor} server this writer imitates never writes it (foreignEvents: ` +
      `true writes it all the same)`,
    'BinlogWriter.event',
  );
}

/**
 * The post-header lengths the server's FORMAT_DESCRIPTION lists, by type code - 1: the profile's, else
 * the schemas'. The FORMAT_DESCRIPTION's own length covers its fields and this list, which it ends with.
 */
export function postHeaderLengths(profile: ServerProfile): number[] {
  return Array.from({ length: profile.eventTypes }, (_, i) => {
    const code = i + 1;
    const listed = profile.postHeaderLengths[code];
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
export function formatDescription(
  profile: ServerProfile,
  options: FormatDescriptionOptions,
): FormatDescriptionEventInput & { type: 'FORMAT_DESCRIPTION_EVENT' } {
  const checksum = options.checksum ?? 'CRC32';
  if (checksum !== 'CRC32' && checksum !== 'NONE') {
    throw new EncodeError(
      `binlog_checksum is CRC32 or NONE, not '${String(checksum)}'`,
      'BinlogWriterOptions.checksum',
    );
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
