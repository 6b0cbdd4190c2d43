/**
 * `serveBinlog`: a MySQL/MariaDB-protocol server that serves binlogs, files or events made into one, to
 * replicas and CDC clients, each connection at its own place. What it says of itself (version, server
 * id, binlog_checksum) comes from the first binlog's FORMAT_DESCRIPTION unless given.
 */
import { randomUUID } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { isIPv4 } from 'node:net';
import { listen, type ServedConnection } from '../protocol/mysql2-adapter.js';
import { ServerErrorCode } from '../generated/replication.js';
import type { EncodeOptions } from '../runtime/events/binlog-encoder.js';
import type { EncryptionKeys } from '../runtime/events/encryption.js';
import type { TableDefinitions } from '../runtime/tables/definitions.js';
import type { BinlogEventInput } from '../runtime/events/event-codec.js';
import { ServedVariables, type ServedVariable, type ServedVariableSource } from '../generated/servers.js';
import { text } from '../protocol/packets.js';
import { encryptionProblem, logFormat, UnservableError, type LogFormat } from './source-frames.js';
import { rowMetadataOf, servedTables, tableColumns } from './source-columns.js';
import { rowImageOf, serverCollationOf } from './source-settings.js';
import { gtidStateAt } from './source-gtids.js';
import { eventLogs, fileLogs, type ServedLog, type ServedLogs } from './logs.js';
import { errPacket, serveConnection, TOO_LARGE, type ServerState } from './session.js';

/** What is served: binlog files (or folders of them), or events encoded into a binlog as they come. */
export type ServedBinlogs = { files: string[] } | { events: AsyncIterable<BinlogEventInput> };

export interface ServeOptions extends EncodeOptions {
  /** TCP port (default 0: one the system picks, given back). */
  port?: number;
  /** The address to listen on (default 127.0.0.1: this machine only). */
  host?: string;
  /** The account clients must give (mysql_native_password); without, any account is let in. */
  user?: string;
  password?: string;
  /** The source's server id (default: the first binlog's FORMAT_DESCRIPTION's, the server that wrote it). */
  serverId?: number;
  /** Files: a dump at the end of the last binlog waits for it to grow, and for new files in folders. */
  follow?: boolean;
  /** The version the server gives (default: the first binlog's). */
  version?: string;
  /** Told of what goes wrong with a connection, and of events that could not be encoded (default: stderr). */
  log?: (message: string) => void;
  /** A PEM certificate and its key: TLS is offered (CLIENT_SSL), for clients that ask for it (default: none). */
  tls?: { cert: string | Uint8Array; key: string | Uint8Array };
  /** Milliseconds to wait for events to make the first binlog's FORMAT_DESCRIPTION (default 10 000). */
  firstEventTimeout?: number;
  /** The largest packet an admitted client may send, in bytes (default 16 MB, MariaDB's max_allowed_packet). */
  maxAllowedPacket?: number;
  /** Seconds the handshake may take (default 10, MariaDB's connect_timeout). */
  connectTimeout?: number;
  /** Seconds a client may stay without a command (default 28 800, MariaDB's wait_timeout). */
  waitTimeout?: number;
  /** Clients connected at once; the next gets ER_CON_COUNT_ERROR (default 151, MariaDB's max_connections). */
  maxConnections?: number;
  /** Listen on an address other machines reach without `user` (default: refused, as anyone could read the binlogs). */
  allowAnonymous?: boolean;
  /**
   * The keys of MariaDB encrypt_binlog files (a file_key_management key file's, parseKeyFile): their events are
   * served decrypted, as a primary serves them. Such a file is refused without the key, or with one that does not
   * decrypt it.
   */
  keys?: EncryptionKeys;
}

/** MariaDB's defaults (mariadbd --verbose --help) for what a connection may cost. */
export const SERVER_DEFAULTS = {
  maxAllowedPacket: 16 * 1024 * 1024,
  connectTimeout: 10,
  waitTimeout: 28_800,
  maxConnections: 151,
} as const;

/**
 * The largest packet before a client is admitted: a handshake response holds a user name, a token and a
 * few connection attributes, and MariaDB's net_buffer_length (16 KB) holds it.
 */
const PACKET_BEFORE_LOGIN = 16 * 1024;

export { UnservableError };

export interface BinlogServer {
  port: number;
  host: string;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

const DEFAULT_FIRST_EVENT_TIMEOUT = 10_000;

export async function serveBinlog(binlogs: ServedBinlogs, options: ServeOptions = {}): Promise<BinlogServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.user === undefined && !options.allowAnonymous && !isLoopback(host)) throw new AnonymousServerError(host);
  const log = options.log ?? ((m: string) => process.stderr.write(`binlog serve: ${m}\n`));
  let failure: unknown;
  const logs: ServedLogs =
    'files' in binlogs
      ? fileLogs(binlogs.files, options.follow ?? false, options.keys)
      : eventLogs(binlogs.events, options, (e) => {
          failure = e;
          log(`the events stopped being served: ${(e as Error).message}`);
        });
  const format = await firstFormat(logs, options.firstEventTimeout ?? DEFAULT_FIRST_EVENT_TIMEOUT, () => failure);
  await refuseUnreadable(await logs.list());
  const version = options.version ?? serverVersion(format);
  const serverId = options.serverId ?? format.event.header.serverId;
  const state: ServerState = {
    logs,
    serverId,
    // MariaDB 10 and later give old clients a 5.5.5- prefix, which MariaDB's clients take off.
    handshakeVersion: /mariadb/i.test(version) && !version.startsWith('5.5.5-') ? `5.5.5-${version}` : version,
    account: options.user !== undefined ? { user: options.user, password: options.password ?? '' } : undefined,
    queries: queryContext(
      logs,
      {
        version,
        serverId,
        checksums: format.checksums,
        maxAllowedPacket: options.maxAllowedPacket ?? SERVER_DEFAULTS.maxAllowedPacket,
        waitTimeout: options.waitTimeout ?? SERVER_DEFAULTS.waitTimeout,
      },
      options.tableDefinitions,
    ),
    replicas: new Map(),
    connections: new Map(),
    tls: options.tls && createSecureContext({ cert: Buffer.from(options.tls.cert), key: Buffer.from(options.tls.key) }),
    log,
    limits: {
      connectTimeout: 1000 * (options.connectTimeout ?? SERVER_DEFAULTS.connectTimeout),
      packetBeforeLogin: PACKET_BEFORE_LOGIN,
      packetAfterLogin: options.maxAllowedPacket ?? SERVER_DEFAULTS.maxAllowedPacket,
      tooLarge: TOO_LARGE,
    },
    waitTimeout: 1000 * (options.waitTimeout ?? SERVER_DEFAULTS.waitTimeout),
  };
  const maxConnections = options.maxConnections ?? SERVER_DEFAULTS.maxConnections;
  const admit = capped(maxConnections, (conn) => serveConnection(conn, state));
  const listening = await listen(options.port ?? 0, host, admit);
  return {
    port: listening.port,
    host: listening.host,
    async close() {
      await listening.close();
      await logs.close();
    },
  };
}

/** MariaDB's answer to a connection past max_connections, sent instead of the greeting. */
const TOO_MANY = errPacket(ServerErrorCode.ER_CON_COUNT_ERROR, '08004', 'Too many connections');

/** Serves at most `max` connections at once; the one past them gets ER_CON_COUNT_ERROR and is closed. */
function capped(max: number, serve: (conn: ServedConnection) => void): (conn: ServedConnection) => void {
  let open = 0;
  return (conn) => {
    if (open >= max) return conn.refuse(TOO_MANY);
    open++;
    conn.onClose(once(() => open--));
    serve(conn);
  };
}

/** `f`, which runs the first time it is called only (a connection tells of its end more than once). */
function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (!done) f();
    done = true;
  };
}

/** Thrown when serve would let anyone on the network in: an address others reach, no account. */
export class AnonymousServerError extends Error {
  constructor(readonly host: string) {
    super(`${host} is reachable from other machines, and without an account anyone could read the binlogs served`);
  }
}

/** Whether `host` is reachable from this machine only: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^::ffff:/, '');
  return h === 'localhost' || h === '::1' || (isIPv4(h) && h.startsWith('127.'));
}

/** The first binlog's FORMAT_DESCRIPTION, waiting for events to make it. */
async function firstFormat(logs: ServedLogs, timeout: number, failure: () => unknown): Promise<LogFormat> {
  const until = Date.now() + timeout;
  for (;;) {
    const first = (await logs.list())[0];
    const format = first && (await logFormat(first));
    if (format) return format;
    if (failure() !== undefined) throw failure();
    if (!logs.growing)
      throw new UnservableError(
        first ? `${first.name} is too short to hold its FORMAT_DESCRIPTION_EVENT` : 'there is no binlog to serve',
      );
    if (Date.now() > until)
      throw new UnservableError(
        `no FORMAT_DESCRIPTION_EVENT came in ${timeout / 1000} s: the events to serve must begin with one`,
      );
    await sleep(20);
  }
}

/** Binlogs whose events cannot be served in clear (encrypted, without their key or with a wrong one) are refused. */
async function refuseUnreadable(list: ServedLog[]): Promise<void> {
  for (const log of list) {
    const format = await logFormat(log);
    const problem = format && (await encryptionProblem(log, format));
    if (problem) throw new UnservableError(problem);
  }
}

/** The version the first binlog's server wrote into its FORMAT_DESCRIPTION. */
function serverVersion(format: LogFormat): string {
  const e = format.event;
  return e.type === 'FORMAT_DESCRIPTION_EVENT' ? text(e.serverVersion) : 'binlog-serve';
}

/** The server's variables, as replicas and clients ask for them, and its binlogs. */
function queryContext(
  logs: ServedLogs,
  id: ServerIdentity,
  definitions: TableDefinitions | undefined,
): ServerState['queries'] {
  const gtidAtEnd = async () => {
    const list = await logs.list();
    return list.length ? gtidStateAt(list, { log: list.length - 1, pos: Number.MAX_SAFE_INTEGER }) : '';
  };
  const flavor = /mariadb/i.test(id.version) ? 'mariadb' : 'mysql';
  // schemas/servers.yaml names the variables; a variable of the other server's is one this server lacks.
  const served = new Map(Object.entries(ServedVariables).filter(([, v]) => v.server === 'both' || v.server === flavor));
  const sources = variableSources(id, gtidAtEnd, logs);
  const tables = scanCached(logs, (list) => servedTables(list, definitions));
  const valueOf = async (v: ServedVariable): Promise<string | null> =>
    'from' in v ? ((await sources[v.from]()) ?? v.value ?? null) : v.value;
  return {
    async variable(name) {
      const v = served.get(name);
      return v && valueOf(v);
    },
    async variables() {
      const names = [...served.keys()].sort();
      return Promise.all(names.map(async (n): Promise<[string, string | null]> => [n, await valueOf(served.get(n)!)]));
    },
    async binlogs() {
      return Promise.all((await logs.list()).map(async (l) => ({ name: l.name, size: await l.size() })));
    },
    async gtidAt(file, pos) {
      const list = await logs.list();
      const index = list.findIndex((l) => l.name === file);
      return index < 0 ? null : gtidStateAt(list, { log: index, pos });
    },
    columns: async (schema, table) => tableColumns(await tables(), schema, table),
    tables,
  };
}

/** What the served binlogs say of the server they came from, or the options instead, and serve's own limits. */
interface ServerIdentity {
  version: string;
  serverId: number;
  checksums: boolean;
  /** Bytes. */
  maxAllowedPacket: number;
  /** Seconds. */
  waitTimeout: number;
}

/**
 * The values of the variables that come `from` what is served (schemas/servers.yaml); undefined where the binlogs do
 * not say.
 */
type Sources = Record<ServedVariableSource, () => Promise<string | undefined>>;
function variableSources(id: ServerIdentity, gtidAtEnd: () => Promise<string>, logs: ServedLogs): Sources {
  // A server has one UUID while it runs, as a real one has from its first start.
  const uuid = randomUUID();
  const collation = scanCached(logs, serverCollationOf);
  return {
    serverId: async () => String(id.serverId),
    version: async () => id.version,
    checksum: async () => (id.checksums ? 'CRC32' : 'NONE'),
    uuid: async () => uuid,
    gtidPosition: gtidAtEnd,
    rowMetadata: scanCached(logs, rowMetadataOf),
    rowImage: scanCached(logs, rowImageOf),
    characterSetServer: async () => (await collation())?.characterSet,
    collationServer: async () => (await collation())?.collation,
    maxAllowedPacket: async () => String(id.maxAllowedPacket),
    waitTimeout: async () => String(id.waitTimeout),
  };
}

/**
 * A scan of every served binlog, made once and kept while the binlogs stay as they are (the same files, the same
 * sizes): clients ask for the same variables on every connection, and a scan reads every byte served.
 */
function scanCached<T>(logs: ServedLogs, scan: (list: ServedLog[]) => Promise<T>): () => Promise<T> {
  let kept: { key: string; value: Promise<T> } | undefined;
  return async () => {
    const list = await logs.list();
    const key = (await Promise.all(list.map(async (l) => `${l.name}\0${await l.size()}`))).join('\0');
    if (kept?.key !== key) kept = { key, value: scan(list) };
    return kept.value;
  };
}
