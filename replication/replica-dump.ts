/**
 * The replication conversation, after the connection is made: what a replica tells the source before it
 * asks for the binlog (that it reads checksums, how often it wants a heartbeat, MariaDB's capability and
 * GTID start), its registration, and the dump command, whose answer is one packet per event.
 */
import {
  BinlogDumpFlags,
  encodeBinlogDumpGtidPacket,
  encodeBinlogDumpPacket,
  encodeRegisterSlavePacket,
  MARIADB_SLAVE_CAPABILITY_GTID,
} from '../generated/replication.js';
import { MariadbGtidState, MysqlGtidSet, type GtidState } from '../protocol/gtid-sets.js';
import { packet } from '../protocol/packets.js';
import { ServerError } from '../runtime/core/errors.js';
import type { PacketSource, QueueStats, Wire } from './wire.js';

/** Where a dump starts and how far it goes. */
export interface DumpOptions {
  /**
   * The replica's server id (default 65535): unique among the source's replicas, or the source ends the
   * older dump of the same id, and different from the source's own.
   */
  serverId?: number;
  /**
   * The binlog file to start in (its base name). With neither `file` nor `gtid`, the dump starts at the end of the
   * current binlog: now.
   */
  file?: string;
  /** The offset in `file` of the first event to read (default 4: the file's first event). */
  position?: number;
  /**
   * A GTID state to start after: MariaDB's ('0-1-100,1-2-7': each domain's last transaction read) or
   * MySQL's GTID set (every transaction read). The source sends every transaction after it.
   */
  gtid?: string;
  /**
   * MariaDB: a start GTID the source has not got is an error (default true, as mariadb-binlog's --gtid-strict-mode).
   */
  gtidStrictMode?: boolean;
  /**
   * Where the dump ends: 'file' at the end of the start file, 'logs' at the end of the last binlog the
   * source has when it gets there, 'never' (the default) goes on waiting for new events.
   */
  until?: 'file' | 'logs' | 'never';
  /**
   * Seconds between the heartbeats an idle source sends (default 30; 0: none). Nothing at all for twice
   * that (at least 1 s) while waiting for the next event, and the connection is taken as lost (a
   * ConnectionError, and a reconnect when asked for): a MariaDB replica's slave_net_timeout is twice its
   * default heartbeat period in the same way.
   */
  heartbeatPeriod?: number;
}

export type Flavor = 'mariadb' | 'mysql';

/** Where the dump began, as the source was asked. */
export interface DumpStart {
  flavor: Flavor;
  /** The file the dump starts in ('' for a GTID start: the source's fake ROTATE names it). */
  file: string;
  position: number;
  /**
   * Whether the source's events end with a CRC32 (its binlog_checksum), the fake ROTATE before any FORMAT_DESCRIPTION
   * included.
   */
  checksums: boolean;
  /** The GTID state at the start, as far as the source can tell. */
  gtid: GtidState;
}

export interface Dump {
  start: DumpStart;
  packets: PacketSource;
}

const DEFAULT_SERVER_ID = 65535;
const DEFAULT_HEARTBEAT_SECONDS = 30;

/** Sets the session up, registers the replica and sends the dump command. */
export async function startDump(wire: Wire, options: DumpOptions, stats?: QueueStats): Promise<Dump> {
  const [info] = await wire.query('SELECT VERSION() AS version, @@global.binlog_checksum AS checksum');
  const flavor: Flavor = /mariadb/i.test(String(info?.version)) ? 'mariadb' : 'mysql';
  // Events then reach us as the file holds them, CRC32 included; without it the source strips them.
  await wire.query('SET @master_binlog_checksum = @@global.binlog_checksum');
  const heartbeat = options.heartbeatPeriod ?? DEFAULT_HEARTBEAT_SECONDS;
  // The period is given in nanoseconds, as both servers take it.
  await wire.query(`SET @master_heartbeat_period = ${BigInt(Math.round(heartbeat * 1e9))}`);
  if (flavor === 'mariadb') await mariadbSession(wire, options);
  const serverId = options.serverId ?? DEFAULT_SERVER_ID;
  const replica = { serverId, host: '', user: '', password: '', port: 0, replicationRank: 0, masterId: 0 };
  const register = packet(encodeRegisterSlavePacket, replica);
  await wire.command(register, 'registering as a replica (COM_REGISTER_SLAVE)').catch((e: unknown) => {
    throw e instanceof ServerError
      ? e.refusing('registering as a replica (COM_REGISTER_SLAVE, which needs the REPLICATION SLAVE privilege)')
      : e;
  });

  const checksums = String(info?.checksum).toUpperCase() === 'CRC32';
  const nonBlock = (options.until ?? 'never') === 'never' ? 0 : BinlogDumpFlags.BINLOG_DUMP_NON_BLOCK;
  const endsAnswer = (p: Uint8Array) => p[0] === 0xfe && p.length < 9; // the EOF of a non-blocking dump
  const streamed = { silence: heartbeat > 0 ? Math.max(2 * heartbeat, 1) * 1000 : undefined, stats };
  if (options.gtid !== undefined && flavor === 'mysql') {
    const set = new MysqlGtidSet(options.gtid);
    const payload = packet(encodeBinlogDumpGtidPacket, {
      flags: nonBlock | BinlogDumpFlags.BINLOG_THROUGH_GTID,
      serverId,
      file: '',
      position: 4n,
      gtids: set.encoded(),
    });
    return {
      start: { flavor, file: '', position: 4, checksums, gtid: set },
      packets: wire.stream(payload, endsAnswer, streamed),
    };
  }
  const { file, position } = options.gtid !== undefined ? { file: '', position: 4 } : await startPoint(wire, options);
  const gtid = await startState(wire, flavor, options, file, position);
  // MariaDB sends ANNOTATE_ROWS only when asked, and they are asked for because the file holds them.
  const flags = nonBlock | (flavor === 'mariadb' ? BinlogDumpFlags.BINLOG_SEND_ANNOTATE_ROWS_EVENT : 0);
  const payload = packet(encodeBinlogDumpPacket, { position, flags, serverId, file });
  return { start: { flavor, file, position, checksums, gtid }, packets: wire.stream(payload, endsAnswer, streamed) };
}

/** MariaDB's own variables: the replica knows its events (GTIDs, ANNOTATE_ROWS…), and where a GTID start is. */
async function mariadbSession(wire: Wire, options: DumpOptions): Promise<void> {
  await wire.query(`SET @mariadb_slave_capability = ${MARIADB_SLAVE_CAPABILITY_GTID}`);
  if (options.gtid === undefined) return;
  const state = new MariadbGtidState(options.gtid).toString();
  await wire.query(`SET @slave_connect_state = ${wire.escape(state)}`);
  await wire.query(`SET @slave_gtid_strict_mode = ${options.gtidStrictMode === false ? 0 : 1}`);
  await wire.query('SET @slave_gtid_ignore_duplicates = 0');
}

/** The file and offset asked for, or the end of the current binlog. */
async function startPoint(wire: Wire, options: DumpOptions): Promise<{ file: string; position: number }> {
  if (options.file !== undefined) return { file: options.file, position: options.position ?? 4 };
  const [status] = await masterStatus(wire);
  // No current binlog: log_bin is off. Asked for one anyway, the server says so in its words (MariaDB's
  // BINLOG_GTID_POS: 'You are not using binary logging').
  if (!status) return { file: '', position: 4 };
  return { file: String(status.File), position: Number(status.Position) };
}

/** SHOW MASTER STATUS, which MySQL 8.4 renamed SHOW BINARY LOG STATUS (and MySQL 9 and MariaDB 11 keep one of). */
async function masterStatus(wire: Wire): Promise<Record<string, unknown>[]> {
  try {
    return await wire.query('SHOW MASTER STATUS');
  } catch {
    return await wire.query('SHOW BINARY LOG STATUS');
  }
}

/** The GTID state at the start: the one given, or (MariaDB) the one at that file and offset. */
async function startState(
  wire: Wire,
  flavor: Flavor,
  options: DumpOptions,
  file: string,
  position: number,
): Promise<GtidState> {
  if (flavor === 'mysql') return new MysqlGtidSet(options.gtid);
  if (options.gtid !== undefined) return new MariadbGtidState(options.gtid);
  const [row] = await wire.query(`SELECT BINLOG_GTID_POS(${wire.escape(file)}, ${position}) AS gtid`);
  return new MariadbGtidState(typeof row?.gtid === 'string' ? row.gtid : '');
}
