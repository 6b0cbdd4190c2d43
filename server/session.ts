/**
 * One client of the binlog server, over mysql2's server-side connection (protocol/mysql2-adapter.ts):
 * mysql2 does the handshake (mysql_native_password's scramble); every command reaches this file as its
 * raw payload, decoded by the codecs of schemas/replication.yaml: COM_QUERY, COM_REGISTER_SLAVE,
 * COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID, the prepared statements' commands, COM_PING, COM_INIT_DB and
 * COM_QUIT. A malformed command gets the ERR a server gives for it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { SecureContext } from 'node:tls';
import {
  BinlogDumpFlags,
  ClientCapabilities,
  ServerStatus,
  Command,
  decodeBinlogDumpGtidPacket,
  decodeBinlogDumpPacket,
  decodeQueryPacket,
  decodeRegisterSlavePacket,
  encodeBinlogPacket,
  MariadbSlaveCapability,
  ServerErrorCode,
  type RegisterSlavePacket,
} from '../generated/replication.js';
import { MariadbGtidState, MysqlGtidSet } from '../protocol/gtid-sets.js';
import type { Authentication, ConnectionLimits, ServedConnection } from '../protocol/mysql2-adapter.js';
import { OUTSIDE_ANY_BINLOG, packet, text } from '../protocol/packets.js';
import { Reader } from '../runtime/core/reader.js';
import { BinlogError } from '../runtime/core/errors.js';
import { DumpError, sendDump, type DumpRequest, type PacketSink } from './source-dump.js';
import { gtidStart, mysqlGtidStart, type LogPlace } from './source-gtids.js';
import { MariadbSkipper, mysqlSkipper } from './skip.js';
import type { ServedLogs } from './logs.js';
import { answer, type Answer, type QueryContext, QueryError, quoted, type ResultSet } from './queries.js';
import { binaryRow, PreparedStatements, textColumn, UTF8_GENERAL_CI } from './statements.js';
import { tlsTakeover } from './tls.js';

/** What every session of one server shares. */
export interface ServerState {
  logs: ServedLogs;
  /** The source's server id, which the events it makes up carry. */
  serverId: number;
  /** The version the handshake gives (MariaDB's with the '5.5.5-' old clients expect). */
  handshakeVersion: string;
  /** The account clients must give; any account is let in without. */
  account?: { user: string; password: string };
  /** The server's variables and binlogs, as a session's statements read them. */
  queries: Omit<QueryContext, 'user' | 'replicas' | 'connectionId' | 'account' | 'database' | 'kill'>;
  /** The connections open, by id, each with what ends it (KILL). */
  connections: Map<number, () => void>;
  /** The replicas registered now (COM_REGISTER_SLAVE), by connection. */
  replicas: Map<number, RegisterSlavePacket>;
  /** The certificate and key TLS is offered with (none: no TLS). */
  tls?: SecureContext;
  /** Told of each connection's failure that is not the client's going away. */
  log(message: string): void;
  /** The handshake's time and the packets' sizes a connection is held to. */
  limits: ConnectionLimits;
  /** Milliseconds without a command after which a connection is closed (MariaDB's wait_timeout). */
  waitTimeout: number;
}

/** ER_MALFORMED_PACKET (both servers'): a command too short for its fields gets it. */
const MALFORMED = errPacket(ServerErrorCode.ER_MALFORMED_PACKET, 'HY000', 'Malformed communication packet');

/** A packet larger than the server's max_allowed_packet (MariaDB's ER_NET_PACKET_TOO_LARGE, then the end). */
export const TOO_LARGE = errPacket(
  ServerErrorCode.ER_NET_PACKET_TOO_LARGE,
  '08S01',
  "Got a packet bigger than 'max_allowed_packet' bytes",
);

/** What the handshake offers: every capability of the schema's, TLS only with a certificate. */
const CAPABILITIES = Object.values(ClientCapabilities).reduce((a, b) => a | b, 0) & ~ClientCapabilities.CLIENT_SSL;

let nextConnectionId = 1;

/** Serves one connection until it closes. */
export function serveConnection(conn: ServedConnection, state: ServerState): void {
  const id = nextConnectionId++;
  const gone = new AbortController();
  const user = new Map<string, string | null>();
  // The account as CURRENT_USER() gives it: the name the client logged in with, at any host.
  let account = '@%';
  const context: QueryContext = {
    ...state.queries,
    user,
    connectionId: id,
    get account() {
      return account;
    },
    kill: (victim) => {
      const end = state.connections.get(victim);
      // Gone at once, though the connection tells of its close a moment later: a second KILL finds no thread.
      state.connections.delete(victim);
      end?.();
      return end !== undefined;
    },
    replicas: () =>
      [...state.replicas.values()].map((r) => ({
        serverId: r.serverId,
        host: text(r.host),
        port: r.port,
        masterId: r.masterId,
      })),
  };
  state.connections.set(id, () => conn.close());
  conn.onClose(() => {
    gone.abort();
    state.replicas.delete(id);
    state.connections.delete(id);
  });
  conn.greet({
    serverVersion: state.handshakeVersion,
    connectionId: id,
    statusFlags: ServerStatus.SERVER_STATUS_AUTOCOMMIT,
    characterSet: UTF8_GENERAL_CI,
    capabilityFlags: CAPABILITIES | (state.tls ? ClientCapabilities.CLIENT_SSL : 0),
    refuses: (auth) => {
      account = `${auth.user}@%`;
      return state.account && !admits(state.account, auth) ? accessDenied(auth.user) : undefined;
    },
    tls: state.tls && tlsTakeover(state.tls),
    limits: state.limits,
  });
  const statements = new PreparedStatements();
  const sink: PacketSink = { send: (p) => conn.send(p, gone.signal), gone: gone.signal };
  // Commands are answered one at a time, as a server reads them, so that an answer that takes a while
  // (a GTID lookup) is not overtaken by the next command's.
  let previous = Promise.resolve();
  let waiting = 0;
  const idle = new IdleTimer(state.waitTimeout, () => conn.close());
  conn.onClose(() => idle.stop());
  const queue = (code: number | undefined, payload: Uint8Array) => {
    idle.stop();
    waiting++;
    previous = previous
      .then(() => command(code, payload, conn, state, context, sink, id, statements))
      .catch((e: unknown) => {
        // A command too short for its fields gets MariaDB's ER_MALFORMED_PACKET, and the session goes on.
        if (e instanceof BinlogError) return malformed(conn);
        state.log(`connection ${id}: ${(e as Error).message}`);
        conn.close();
      })
      .finally(() => {
        if (--waiting === 0 && !gone.signal.aborted) idle.start();
      });
  };
  idle.start();
  conn.onCommand(queue);
}

/** A timer that ends a connection left without a command for too long, stopped while a command is answered. */
class IdleTimer {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly ms: number,
    private readonly expired: () => void,
  ) {}

  start(): void {
    this.stop();
    this.timer = setTimeout(this.expired, this.ms);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** MariaDB's refusal of a login: ER_ACCESS_DENIED_ERROR, SQL state 28000. */
function accessDenied(user: string): Uint8Array {
  const message = `Access denied for user '${quoted(user)}' (binlog serve)`;
  return errPacket(ServerErrorCode.ER_ACCESS_DENIED_ERROR, '28000', message);
}

/** mysql_native_password: the token is SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))). */
function admits(account: { user: string; password: string }, p: Authentication): boolean {
  if (p.user !== account.user) return false;
  if (account.password === '') return p.authToken.length === 0;
  const sha1 = (...b: Uint8Array[]) => b.reduce((h, x) => h.update(x), createHash('sha1')).digest();
  const stage1 = sha1(Buffer.from(account.password, 'utf8'));
  const mask = sha1(p.authPluginData1, p.authPluginData2.subarray(0, 12), sha1(stage1));
  const expected = Buffer.from(stage1.map((b, i) => b ^ mask[i]!));
  return p.authToken.length === expected.length && timingSafeEqual(p.authToken, expected);
}

/**
 * Answers one command. An empty packet has no code: MariaDB's do_command reads it as COM_SLEEP, which
 * no client may send, and answers ER_UNKNOWN_COM_ERROR.
 */
async function command(
  code: number | undefined,
  payload: Uint8Array,
  conn: ServedConnection,
  state: ServerState,
  context: QueryContext,
  sink: PacketSink,
  id: number,
  statements: PreparedStatements,
): Promise<void> {
  // The answer's packets are numbered from 1, after the command's 0.
  conn.numberFrom(1);
  const r = new Reader(payload);
  switch (code) {
    case Command.COM_QUIT:
      return conn.close();
    case Command.COM_PING:
      conn.writeOk();
      break;
    // Any database is accepted, and is the session's default one (DATABASE(), a table named without its database).
    case Command.COM_INIT_DB:
      context.database = text(payload);
      conn.writeOk();
      break;
    case Command.COM_QUERY:
      reply(conn, await answer(text(decodeQueryPacket(r, OUTSIDE_ANY_BINLOG).query), context));
      break;
    case Command.COM_REGISTER_SLAVE:
      registerReplica(r, conn, state, id);
      break;
    case Command.COM_BINLOG_DUMP:
    case Command.COM_BINLOG_DUMP_GTID:
      return dump(code, r, state, context, sink, conn);
    case Command.COM_STMT_PREPARE: {
      const prepared = statements.prepare(payload);
      if (prepared instanceof QueryError) reply(conn, prepared);
      else {
        for (const p of prepared.packets) conn.write(p);
        if (prepared.params) conn.writeEof();
      }
      break;
    }
    case Command.COM_STMT_EXECUTE:
      reply(conn, await statements.execute(payload, context), true);
      break;
    case Command.COM_STMT_CLOSE:
      statements.close(payload);
      break;
    default:
      reply(conn, unknownCommand(code));
  }
  conn.numberFrom(0);
}

/** The ERR of a command too short for its fields, numbered as an answer. */
function malformed(conn: ServedConnection): void {
  conn.numberFrom(1);
  conn.write(MALFORMED);
  conn.numberFrom(0);
}

function unknownCommand(code: number | undefined): QueryError {
  const which = code === undefined ? 'an empty command packet' : `command 0x${code.toString(16).padStart(2, '0')}`;
  return new QueryError(ServerErrorCode.ER_UNKNOWN_COM_ERROR, '08S01', `binlog serve does not know ${which}`);
}

/**
 * COM_REGISTER_SLAVE: the replica is listed (SHOW SLAVE HOSTS). One too short for its fields gets the
 * words and the error of MariaDB's register_slave (sql_repl.cc), and the session goes on.
 */
function registerReplica(r: Reader, conn: ServedConnection, state: ServerState, id: number): void {
  const asked = decoded(() => decodeRegisterSlavePacket(r, OUTSIDE_ANY_BINLOG));
  if (asked === undefined) {
    conn.write(errPacket(ServerErrorCode.ER_UNKNOWN_ERROR, 'HY000', 'Wrong parameters to function register_slave'));
    return;
  }
  state.replicas.set(id, asked);
  conn.writeOk();
}

/** A command's fields, or undefined when the packet does not hold them. */
function decoded<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch (e) {
    if (e instanceof BinlogError) return undefined;
    throw e;
  }
}

/** An answer: rows in the text protocol, or the binary one (a prepared statement's). */
function reply(conn: ServedConnection, a: Answer, binary = false): void {
  if (a === 'ok') conn.writeOk();
  else if (a instanceof QueryError) conn.write(errPacket(a.code, a.sqlState, a.message));
  else resultSet(conn, a, binary);
}

function resultSet(conn: ServedConnection, rs: ResultSet, binary: boolean): void {
  conn.writeColumns(rs.columns.map(textColumn));
  for (const row of rs.rows) {
    if (binary) conn.write(binaryRow(row));
    else conn.writeTextRow(row);
  }
  conn.writeEof();
}

/** An ERR packet, the schema's (a BinlogPacket's ERR is every command's). */
export function errPacket(errorCode: number, sqlState: string, message: string): Uint8Array {
  return packet(encodeBinlogPacket, { status: 'BINLOG_PACKET_ERR', body: { errorCode, sqlState, message } });
}

/**
 * COM_BINLOG_DUMP (MariaDB: from @slave_connect_state when set) or COM_BINLOG_DUMP_GTID: the dump, or the ERR that says
 * why not.
 */
async function dump(
  code: number,
  r: Reader,
  state: ServerState,
  context: QueryContext,
  sink: PacketSink,
  conn: ServedConnection,
): Promise<void> {
  const decode = code === Command.COM_BINLOG_DUMP ? decodeBinlogDumpPacket : decodeBinlogDumpGtidPacket;
  const asked = decoded(() => decode(r, OUTSIDE_ANY_BINLOG));
  // MySQL's com_binlog_dump and com_binlog_dump_gtid refuse a packet too short for their fields, and
  // end the connection.
  if (asked === undefined) return conn.refuse(MALFORMED);
  const user = context.user;
  const checksum = String(user.get('master_binlog_checksum') ?? 'NONE').toUpperCase();
  const heartbeatNs = Number(user.get('master_heartbeat_period') ?? 0);
  try {
    // A MySQL GTID start sends from the binlog it needs, with the transactions of the replica's set left out.
    const has = 'gtids' in asked && asked.gtids ? MysqlGtidSet.fromEncoded(asked.gtids) : undefined;
    const connectState = user.get('slave_connect_state');
    const start =
      code === Command.COM_BINLOG_DUMP && connectState != null
        ? await byGtid(state.logs, connectState)
        : has
          ? await byGtidSet(state.logs, has)
          : { place: await byPosition(state.logs, cString(text(asked.file)), Number(asked.position)), skips: {} };
    if (!start.place) throw new DumpError('the served binlogs hold no events yet');
    const request: DumpRequest = {
      start: start.place,
      // MariaDB's dump thread also stops at the end of the last binlog for a replica that says it is server 0:
      // mysqlbinlog and mysql-binlog-connector-java ask for a non-blocking read that way, without the flag.
      nonBlock: (asked.flags & BinlogDumpFlags.BINLOG_DUMP_NON_BLOCK) !== 0 || asked.serverId === 0,
      checksums: checksum === 'CRC32',
      heartbeatMs: Math.round(heartbeatNs / 1e6),
      serverId: state.serverId,
      capability:
        Number(user.get('mariadb_slave_capability') ?? MariadbSlaveCapability.MARIA_SLAVE_CAPABILITY_UNKNOWN) || 0,
      // COM_BINLOG_DUMP_GTID's 0x2 is MySQL's BINLOG_THROUGH_POSITION.
      annotate:
        code === Command.COM_BINLOG_DUMP && (asked.flags & BinlogDumpFlags.BINLOG_SEND_ANNOTATE_ROWS_EVENT) !== 0,
      ...start.skips,
    };
    await sendDump(state.logs, request, sink);
  } catch (e) {
    // The replica is told why its dump ends, whatever ended it (a binlog gone, one that is no binlog…).
    if (!(e instanceof DumpError)) state.log(`a dump ended: ${(e as Error).message}`);
    if (!sink.gone.aborted)
      await sink.send(errPacket(ServerErrorCode.ER_MASTER_FATAL_ERROR_READING_BINLOG, 'HY000', (e as Error).message));
  }
  // A COM_QUIT may come before the connection is closed, and it is numbered from 0.
  conn.numberFrom(0);
  conn.close();
}

/**
 * A file name up to its first NUL, as a server reads it: some clients (mysql2's binlogDump, so zongji) end it with one.
 */
function cString(name: string): string {
  const nul = name.indexOf('\0');
  return nul < 0 ? name : name.slice(0, nul);
}

async function byPosition(logs: ServedLogs, file: string, position: number): Promise<LogPlace | undefined> {
  const list = await logs.list();
  if (list.length === 0) return undefined;
  const index = file === '' ? 0 : list.findIndex((l) => l.name === file);
  if (index < 0)
    throw new DumpError(`${file} is not a binlog served here (those served: ${list.map((l) => l.name).join(', ')})`);
  if (position < 4) throw new DumpError(`position ${position} is before the first event of ${file} (at 4)`);
  return { log: index, pos: position };
}

/** MySQL's GTID start: the binlog to send from its beginning, the transactions of the set left out. */
async function byGtidSet(
  logs: ServedLogs,
  has: MysqlGtidSet,
): Promise<{ place?: LogPlace; skips: Pick<DumpRequest, 'skip' | 'ahead'> }> {
  const list = await logs.list();
  if (list.length === 0) return { skips: {} };
  const found = await mysqlGtidStart(list, has);
  if (typeof found === 'string') throw new DumpError(found);
  return { place: { log: found.log, pos: 4 }, skips: { skip: (f) => mysqlSkipper(has, f), ahead: () => found.ahead } };
}

/** A MariaDB GTID start: the binlog to send from its beginning, and what of it to leave out. */
async function byGtid(
  logs: ServedLogs,
  connectState: string,
): Promise<{ place?: LogPlace; skips: Pick<DumpRequest, 'skip' | 'ahead'> }> {
  let gtids: MariadbGtidState;
  try {
    gtids = new MariadbGtidState(connectState);
  } catch (e) {
    throw new DumpError((e as Error).message);
  }
  const list = await logs.list();
  if (list.length === 0) return { skips: {} };
  const found = await gtidStart(list, gtids);
  if (typeof found === 'string') throw new DumpError(found);
  const seen = new Map<number, Map<number, bigint>>();
  return {
    place: { log: found.log, pos: 4 },
    skips: { skip: (f) => new MariadbSkipper(f, found.skip, seen), ahead: () => found.skip.size > 0 },
  };
}
