/**
 * mysql2 behind one door. The replica (replication/wire.ts) and the source (server/) use mysql2 for what
 * it does well, connecting and authenticating, and send and read the replication packets of
 * schemas/replication.yaml themselves. That needs parts of mysql2 its typings leave out; they are all
 * used here, and test/mysql2-adapter.test.ts checks each of them against the installed mysql2, which
 * package.json pins to one exact version.
 *
 * The client side: a command of ours is queued on mysql2's own command queue, as its binlogDump and
 * registerSlave commands are. mysql2 calls the command's execute(packet, connection) first without a
 * packet (the command is written then, numbered from 0 by connection._resetSequenceId()), then with each
 * packet that answers it until execute returns true, and calls onResult(error) when the connection fails.
 * connection.writePacket takes an object with the packet's buffer, its 4 header bytes first, which
 * writeHeader(sequenceId) fills. mysql2's destroy() ends only our half of the socket (connection.stream).
 *
 * The server side: mysql2's Server keeps its net.Server as _server; each connection does the handshake
 * (serverHandshake, whose command's `next` reads the client's reply, and is wrapped here so that the
 * commands after it come to us); its socket is connection.stream, whose 'data' listener feeds
 * connection.packetParser (which a PacketIntake here stands in front of); sequenceId numbers the next
 * packet written.
 */
import { once } from 'node:events';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type {
  authPlugins as Mysql2AuthPlugins,
  AuthPlugin,
  Connection,
  ConnectionOptions,
  QueryError,
  SslOptions,
} from 'mysql2';
import { ConnectionError, ServerError } from '../runtime/core/errors.js';

/** A packet as mysql2 hands it over: its payload is buffer[offset, end), after the 4 header bytes at start. */
interface Mysql2Packet {
  buffer: Buffer;
  start: number;
  offset: number;
  end: number;
}

/** What mysql2 writes: a buffer whose first 4 bytes writeHeader fills with the length and sequence number. */
interface Mysql2OutgoingPacket {
  buffer: Buffer;
  length(): number;
  writeHeader(sequenceId: number): void;
}

/** The connection mysql2 passes to a command's execute. */
interface Mysql2CommandConnection {
  _resetSequenceId(): void;
  writePacket(packet: Mysql2OutgoingPacket): void;
}

/** A command on mysql2's queue: mysql2 also emits events on it, which nothing here listens to. */
interface Mysql2Command {
  execute(packet: Mysql2Packet | undefined, connection: Mysql2CommandConnection): boolean;
  onResult(e: Error & { code?: string }): void;
  emit(): boolean;
  on(): Mysql2Command;
  once(): Mysql2Command;
}

/** The members of mysql2's client connection that its typings leave out. */
interface ClientInternals {
  addCommand(command: Mysql2Command): void;
  stream?: Socket;
  /** What the socket's bytes (over TLS: the decrypted bytes) are fed to, looked up at each read. */
  packetParser: { execute(data: Buffer): void };
  /** Fails the command in progress and every later one with `e`, and stops reading. */
  _handleFatalError(e: Error): void;
}

/** mysql2's packet parser: fed the socket's bytes, it calls onPacket with each whole packet. */
interface Mysql2PacketParser {
  execute(data: Buffer): void;
  onPacket: unknown;
  constructor: new (onPacket: unknown, packetHeaderLength: number) => Mysql2PacketParser;
}

/** The handshake command serverHandshake returns: `next` is the step that reads the client's reply. */
interface Mysql2Handshake {
  next: Mysql2Step;
}

/** A step of a mysql2 command: it reads one packet and returns the step that reads the next. */
type Mysql2Step = (this: unknown, packet: Mysql2Packet, connection: unknown) => unknown;

/** The members of mysql2's server-side connection beyond its typings, and those typed too loosely (any). */
interface ServedInternals {
  stream: Socket;
  /** mysql2's parser, which its socket's 'data' listener feeds; replaced by a PacketIntake in front of it. */
  packetParser: { execute(data: Buffer): void };
  sequenceId: number;
  serverHandshake(args: object): Mysql2Handshake;
  writePacket(packet: Mysql2OutgoingPacket): void;
  writeOk(): void;
  writeEof(): void;
  writeColumns(columns: object[]): void;
  writeTextRow(row: (string | null)[]): void;
  on(event: string, listener: (...args: never[]) => void): void;
  close(): void;
}

/** mysql2's Server keeps the net.Server it listens with. */
interface ServerInternals {
  _server: NetServer;
}

/**
 * The one assertion mysql2's missing typings need: `value` is taken to have the members `X` declares,
 * which its typings leave out. test/mysql2-adapter.test.ts checks that each one exists.
 */
function beyondTypings<X>(value: object): X {
  return value as X;
}

/** A payload as mysql2's writePacket takes it. */
function outgoing(payload: Uint8Array): Mysql2OutgoingPacket {
  const buffer = Buffer.alloc(4 + payload.length);
  buffer.set(payload, 4);
  return {
    buffer,
    length: () => buffer.length,
    writeHeader(sequenceId: number) {
      buffer.writeUIntLE(payload.length, 0, 3);
      buffer[3] = sequenceId;
    },
  };
}

/**
 * A packet's payload: a view of the socket's chunk (or of the buffer a long packet was joined into),
 * which mysql2 never reuses.
 */
function payloadOf(p: Mysql2Packet): Uint8Array {
  return p.buffer.subarray(p.offset, p.end);
}

// The client's side of the adapter follows.

export type { SslOptions };

/** What a client connection is opened with. */
export interface ClientConfig {
  host?: string;
  port?: number;
  socketPath?: string;
  user?: string;
  password?: string;
  ssl?: string | SslOptions;
  /** Milliseconds for the connection, the server's greeting and the login together (0: no limit). */
  connectTimeout: number;
  /**
   * The server's RSA public key (PEM) to send the password with, when caching_sha2_password or
   * sha256_password asks for it in full over a connection that is neither TLS nor a unix socket.
   */
  serverPublicKey?: string;
  /** Whether the server may send its public key for that, when none is given (a server in the middle could). */
  getServerPublicKey?: boolean;
  /** Bytes: a packet from the server longer than this is refused as its frames announce it, unread (none: no limit). */
  maxAllowedPacket?: number;
}

/** A command of ours, sent on a client connection. */
export interface RawCommand {
  payload: Uint8Array;
  /** Takes each packet of the answer, as it comes; true when it is the last. */
  answered(packet: Uint8Array): boolean;
  /** Told when the connection fails before the answer ends. */
  failed(e: ConnectionError): void;
}

/** A client connection, authenticated by mysql2, that runs statements and commands of ours. */
export class ClientConnection {
  private constructor(private readonly conn: Connection) {}

  /** Connects and authenticates; a failure is a ServerError (the server refused) or a ConnectionError. */
  static async open(config: ClientConfig): Promise<ClientConnection> {
    const { host, port, socketPath, user, password, ssl, connectTimeout } = config;
    // mysql2 is loaded when a connection is first made, so that a program that reads only files never pays for it.
    const { createConnection, authPlugins } = await import('mysql2');
    const options: ConnectionOptions = {
      // Only these are passed, as a caller's object may hold more, which mysql2 warns of on stderr.
      ...{ host, port, socketPath, user, password, ssl },
      authPlugins: guardedPlugins(authPlugins, config),
      // mysql2's own timer says only ETIMEDOUT; ours (below) says which step the server left unanswered.
      connectTimeout: 0,
      // Positions and ids past 2^53 come as exact strings, which are never rounded.
      supportBigNumbers: true,
      bigNumberStrings: true,
    };
    const conn = createConnection(options);
    // A failure while no command waits (the server going away between commands) must not crash the process.
    conn.on('error', () => {});
    if (config.maxAllowedPacket) limitPackets(beyondTypings<ClientInternals>(conn), config.maxAllowedPacket);
    const connected = new Promise<void>((resolve, reject) => {
      conn.connect((e) => (e ? reject(fromDriver(e, where(config))) : resolve()));
    });
    const client = new ClientConnection(conn);
    await client.inTime(connected, connectTimeout, connectionStep(conn, where(config)));
    return client;
  }

  /**
   * `answer`, or, when it takes longer than `ms` (0: no limit), a ConnectionError that says what was
   * waited for (`waitingFor` tells it when the time is up), the connection closed.
   */
  async inTime<T>(answer: Promise<T>, ms: number, waitingFor: () => string): Promise<T> {
    if (!ms) return answer;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const what = waitingFor();
        this.destroy();
        reject(new ConnectionError(`${what}: no answer from the server within ${ms / 1000} s`));
      }, ms);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A value as an SQL literal, quoted by the driver. */
  escape(value: string): string {
    return this.conn.escape(value);
  }

  /** Runs a statement; resolves with its rows (objects by column name), or none for an OK result. */
  query(sql: string): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      this.conn.query(sql, (e: QueryError | null, rows: unknown) => {
        if (e) reject(fromDriver(e));
        else resolve(Array.isArray(rows) ? rows : []);
      });
    });
  }

  /**
   * Runs a SELECT whose rows are read one at a time: its columns as the server describes them, then each
   * row's cells as the bytes of the text protocol (null for NULL). The socket is paused while rows wait
   * unread, so a table of any size streams in bounded memory.
   *
   * mysql2 tells a command without a callback, as a streamed query is, nothing of a lost connection: it
   * emits the loss on the connection only (at once, when the connection was lost before the query was
   * queued). So the connection's error ends the rows here, or they would wait for ever.
   */
  async selectRows(sql: string): Promise<RowStream> {
    let rows: Readable | undefined;
    let lostBefore: Error | undefined;
    const onLost = (e: QueryError) => (rows ? rows.destroy(e) : (lostBefore = e));
    this.conn.on('error', onLost);
    const query = this.conn.query({ sql, rowsAsArray: true, typeCast: false });
    rows = query.stream({ highWaterMark: ROWS_HIGH_WATER });
    if (lostBefore) rows.destroy(lostBefore);
    const stopWatching = () => this.conn.off('error', onLost);
    rows.once('close', stopWatching).once('error', stopWatching);
    const columns = await new Promise<ResultColumn[]>((resolve, reject) => {
      rows.once('fields', (fields: ResultColumn[]) => resolve(fields.map(resultColumn)));
      rows.once('error', (e: QueryError) => reject(fromDriver(e)));
      // A statement with no result set (no fields) ends before any.
      rows.once('end', () => resolve([]));
    });
    return { columns, rows: driverRows(rows) };
  }

  /** Queues a command of ours behind any of mysql2's. */
  send(command: RawCommand): void {
    const queued: Mysql2Command = {
      execute(packet, connection) {
        if (!packet) {
          // A command's packets are numbered from 0, which mysql2's own commands reset the count to as well.
          connection._resetSequenceId();
          connection.writePacket(outgoing(command.payload));
          return false;
        }
        return command.answered(payloadOf(packet));
      },
      onResult: (e) => command.failed(lost(e)),
      emit: () => false,
      on: () => queued,
      once: () => queued,
    };
    beyondTypings<ClientInternals>(this.conn).addCommand(queued);
  }

  pause(): void {
    this.conn.pause();
  }

  resume(): void {
    this.conn.resume();
  }

  /** Closes the connection and its socket. */
  destroy(): void {
    this.conn.destroy();
    // mysql2's destroy only ends our half: a dump thread waiting for events never closes its own, and
    // the socket would keep the process alive.
    beyondTypings<ClientInternals>(this.conn).stream?.destroy();
  }
}

/** Rows a streamed SELECT may hold unread before the socket is paused. */
const ROWS_HIGH_WATER = 256;

/** A column of a result set, as its column definition packet says it. */
export interface ResultColumn {
  name: string;
  /** The column type code (ColumnType). */
  columnType: number;
  /** The column's flags (UNSIGNED_FLAG is 32, BINARY_FLAG 128). */
  flags: number;
  /** The collation id the cells are sent in (63: binary). */
  characterSet: number;
  decimals: number;
}

/** A SELECT's columns and its rows, read as they come. */
export interface RowStream {
  columns: ResultColumn[];
  rows: AsyncIterable<(Buffer | null)[]>;
}

function resultColumn(f: ResultColumn): ResultColumn {
  const { name, columnType, flags, characterSet, decimals } = f;
  return { name, columnType, flags, characterSet, decimals };
}

/** The stream's rows, its failure as our error (the server's, or the connection lost). */
async function* driverRows(rows: AsyncIterable<unknown>): AsyncGenerator<(Buffer | null)[]> {
  try {
    for await (const row of rows) yield row as (Buffer | null)[];
  } catch (e) {
    throw fromDriver(e as QueryError);
  }
}

/** mysql2's plugins that send the password itself, when the server asks for it. */
type PasswordPlugins = Pick<typeof Mysql2AuthPlugins, 'caching_sha2_password' | 'sha256_password'>;

/** caching_sha2_password's data that asks for the password in full (after the scramble failed the cache). */
const FULL = 4;

/**
 * The two plugins that send the password itself, as libmysqlclient has them: over TLS or a unix socket
 * as it is; otherwise encrypted with a public key the user gave, or one the server sends only when the
 * user allowed fetching it (mysql2 would take any server's key, and a server in the middle then reads
 * the password). Without either the login is refused, and nothing of the password is sent.
 */
function guardedPlugins(plugins: PasswordPlugins, config: ClientConfig): Record<string, AuthPlugin> {
  const key = config.serverPublicKey;
  const plain = !config.ssl && !config.socketPath && !key && !config.getServerPublicKey;
  const refusal = (plugin: string) =>
    new Error(
      `the server asks ${plugin} for the password over a connection that is not encrypted: it is sent ` +
        'only over TLS (--ssl-mode), a unix socket, or encrypted with the key of --server-public-key-path ' +
        '(or, trusting the server to send its own, --get-server-public-key)',
    );
  const guarded = (name: keyof PasswordPlugins, asksInFull: (data: Buffer, step: number) => boolean): AuthPlugin => {
    return (ctx) => {
      const step = plugins[name]({ serverPublicKey: key })(ctx);
      let n = 0;
      return (data: Buffer) => {
        if (plain && asksInFull(data, n++)) throw refusal(name);
        return step(data);
      };
    };
  };
  return {
    caching_sha2_password: guarded('caching_sha2_password', (d, n) => n > 0 && d.length === 1 && d[0] === FULL),
    // sha256_password sends the password (or asks for the key) at its first step, given the scramble.
    sha256_password: guarded('sha256_password', (_data, n) => n === 0),
  };
}

/** A frame's payload is at most this long; one this long is followed by another frame of the same packet. */
const MAX_FRAME = 0xffffff;

/**
 * mysql2 joins a packet's frames however many come: a server sending one packet as endless 16 MB frames
 * would grow the client until it failed. So the bytes are read here before mysql2's parser gets them,
 * and a packet whose frames announce more than `limit` bytes fails the connection at that frame's
 * header: no more than one socket read of it is ever held.
 */
function limitPackets(conn: ClientInternals, limit: number): void {
  const parser = conn.packetParser;
  const frames = new FrameLengths();
  conn.packetParser = {
    execute(data: Buffer) {
      if (frames.fed(data) <= limit) return parser.execute(data);
      const most = 'the most allowed (max_allowed_packet)';
      const e = new ConnectionError(`the server sent a packet of more than ${limit} bytes, ${most}`);
      conn._handleFatalError(e);
      conn.stream?.destroy();
    },
  };
}

/** The lengths of the frames in the bytes read: how long the packet being read is said to be so far. */
class FrameLengths {
  /** The header being read: its bytes so far. */
  private readonly header: number[] = [];
  /** Payload bytes of the current frame still to come. */
  private left = 0;
  /** Whether the current frame is followed by another of the same packet. */
  private continued = false;
  /** The payload bytes the current packet's frames have announced. */
  private announced = 0;

  /** Takes the next bytes read; gives the length the packet being read is announced to have so far. */
  fed(data: Uint8Array): number {
    let most = this.announced;
    for (let at = 0; at < data.length;) {
      if (this.left > 0) {
        const skipped = Math.min(this.left, data.length - at);
        this.left -= skipped;
        at += skipped;
      } else {
        this.header.push(data[at++]!);
        if (this.header.length < 4) continue;
        const length = this.header[0]! | (this.header[1]! << 8) | (this.header[2]! << 16);
        this.header.length = 0;
        // A packet's first frame starts the count again.
        if (!this.continued) this.announced = 0;
        this.announced += length;
        most = Math.max(most, this.announced);
        this.left = length;
        this.continued = length === MAX_FRAME;
      }
    }
    return most;
  }
}

/** The step of a connection being made, as a sentence's start, followed on its socket's events. */
function connectionStep(conn: Connection, at: string): () => string {
  let step = `cannot connect to ${at}`;
  const socket = beyondTypings<ClientInternals>(conn).stream;
  socket?.once('connect', () => (step = `connected to ${at}, the server's greeting (the handshake) never came`));
  socket?.once('data', () => (step = `cannot log in to ${at}`));
  return () => step;
}

function where(c: ClientConfig): string {
  return c.socketPath ? `socket ${c.socketPath}` : `${c.host ?? 'localhost'}:${c.port ?? 3306}`;
}

/** mysql2's error as ours: the server's (it has an errno and a message) or the connection's. */
function fromDriver(e: QueryError, at?: string): Error {
  // mysql2 sets sqlMessage on a server's error, which its typings leave out.
  const { sqlMessage } = beyondTypings<{ sqlMessage?: string }>(e);
  if (typeof e.errno === 'number' && sqlMessage !== undefined) {
    return new ServerError(e.errno, e.sqlState ?? 'HY000', sqlMessage);
  }
  return lost(e, at);
}

/**
 * mysql2's codes of a connection the server closed: its own, and a socket's write after the close (EPIPE) or
 * one the server reset, which a command sent just as the server killed the connection meets.
 */
const CLOSED = new Set(['PROTOCOL_CONNECTION_LOST', 'EPIPE', 'ECONNRESET']);
/**
 * mysql2's refusal, with no code, of a command queued once the connection is closed: what the next query meets
 * when the server closed the connection between two.
 */
const CLOSED_STATE = "Can't add new command when connection is in closed state";

function lost(e: Error & { code?: string }, at?: string): ConnectionError {
  const closed = CLOSED.has(e.code ?? '') || e.message === CLOSED_STATE;
  const message = closed ? 'the server closed the connection' : e.message;
  return new ConnectionError(at ? `cannot connect to ${at}: ${message}` : message);
}

// The server's side of the adapter follows.

/** A listening server: where it listens, and how to stop it. */
export interface Listening {
  port: number;
  host: string;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** Listens on `host`:`port` (0: one the system picks) and hands each connection to `accept`. */
export async function listen(port: number, host: string, accept: (conn: ServedConnection) => void): Promise<Listening> {
  const sockets = new Set<Socket>();
  // mysql2 is loaded when a server starts, so that a program that only reads files never pays for it.
  const { createServer } = await import('mysql2');
  const server = createServer((conn) => {
    // A client that goes away makes the connection emit an error, which must not crash the process.
    conn.on('error', () => {});
    const served = new ServedConnection(beyondTypings<ServedInternals>(conn));
    const socket = served.socket;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    accept(served);
  });
  const net = beyondTypings<ServerInternals>(server)._server;
  await new Promise<void>((resolve, reject) => {
    net.once('error', reject);
    net.listen(port, host, () => resolve());
  });
  const address = net.address() as AddressInfo;
  return {
    port: address.port,
    host: address.address,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => net.close(() => resolve()));
    },
  };
}

/** What a client sent to authenticate, as mysql_native_password checks it. */
export interface Authentication {
  user: string;
  /** The scramble the greeting sent, in its two parts. */
  authPluginData1: Buffer;
  authPluginData2: Buffer;
  authToken: Buffer;
}

/** How the server goes over to TLS when a client's reply to the greeting asks for it. */
export interface TlsTakeover {
  /** Whether the reply (its payload) is an SSLRequest. */
  asks(reply: Uint8Array): boolean;
  /** The TLS socket to go on over, on the raw socket whose bytes after the request begin with `already`. */
  secure(raw: Socket, already: Uint8Array): TLSSocket;
}

/** What the server's greeting says, and how it admits a client. */
export interface Greeting {
  serverVersion: string;
  connectionId: number;
  statusFlags: number;
  characterSet: number;
  capabilityFlags: number;
  /** Whether the client may in: undefined, or the ERR packet's payload that refuses it. */
  refuses(auth: Authentication): Uint8Array | undefined;
  /** With CLIENT_SSL offered: the takeover that answers an SSLRequest. */
  tls?: TlsTakeover;
  /** How long the handshake may take and how large a packet may be (default: no limits). */
  limits?: ConnectionLimits;
}

/** What a connection may cost the server before and after its client is admitted. */
export interface ConnectionLimits {
  /** Milliseconds from the greeting to the client's admission, after which the connection ends. */
  connectTimeout: number;
  /** The largest packet (its continuation frames joined) a client may send before it is admitted. */
  packetBeforeLogin: number;
  /** The largest packet after. */
  packetAfterLogin: number;
  /** The ERR packet's payload a larger packet gets before the connection ends. */
  tooLarge: Uint8Array;
}

/** The payload length of a frame that a continuation frame follows (the protocol's largest). */
const FULL_FRAME = 0xffffff;

/** How long a connection that is ending waits for its client to close before it closes itself. */
const CLOSING_GRACE_MS = 1000;

/**
 * The socket's bytes on their way to mysql2's packet parser, framed here first: a packet larger than the
 * limit is never buffered (the connection ends instead), nothing is parsed once the connection is ending,
 * and the bytes after a packet whose reading hands the socket over (to TLS) go to the new owner.
 */
class PacketIntake {
  limit = Number.POSITIVE_INFINITY;
  private header = Buffer.alloc(4);
  private headerHave = 0;
  private remaining = 0;
  private lastFrame = true;
  private packetSize = 0;
  private stopped = false;
  private handOver?: (rest: Buffer) => void;

  constructor(
    public parser: Mysql2PacketParser,
    private readonly tooLarge: () => void,
  ) {}

  /** What mysql2 calls with each of the socket's chunks. */
  execute(chunk: Buffer): void {
    let fed = 0;
    let at = 0;
    while (at < chunk.length && !this.stopped) {
      if (this.headerHave < 4) {
        const n = Math.min(4 - this.headerHave, chunk.length - at);
        chunk.copy(this.header, this.headerHave, at, at + n);
        this.headerHave += n;
        at += n;
        if (this.headerHave < 4) break;
        if (!this.frameStarts(this.header.readUIntLE(0, 3))) return this.tooLarge();
      }
      const n = Math.min(this.remaining, chunk.length - at);
      this.remaining -= n;
      at += n;
      if (this.remaining > 0) break;
      this.frameEnds();
      this.parser.execute(chunk.subarray(fed, at));
      fed = at;
      if (this.handOver) return this.handOverRest(chunk.subarray(at));
    }
    if (fed < at && !this.stopped) this.parser.execute(chunk.subarray(fed, at));
  }

  /** Takes a frame of `length` bytes on; false when it makes its packet larger than the limit. */
  private frameStarts(length: number): boolean {
    this.packetSize += length;
    this.remaining = length;
    this.lastFrame = length < FULL_FRAME;
    return this.packetSize <= this.limit;
  }

  private frameEnds(): void {
    this.headerHave = 0;
    if (this.lastFrame) this.packetSize = 0;
  }

  private handOverRest(rest: Buffer): void {
    const handOver = this.handOver!;
    this.handOver = undefined;
    handOver(rest);
  }

  /** After the packet being parsed: the rest of the socket's bytes go to `to`, then a new parser reads. */
  handOverAfterPacket(parser: Mysql2PacketParser, to: (rest: Buffer) => void): void {
    this.handOver = to;
    this.parser = parser;
  }

  /** Nothing more is parsed: the connection is ending. */
  stop(): void {
    this.stopped = true;
  }
}

/** A client's connection to the server, mysql2 doing the handshake and the commands it knows. */
export class ServedConnection {
  private readonly raw: Socket;
  private readonly intake: PacketIntake;
  private ending = false;
  private command?: (code: number | undefined, payload: Uint8Array) => void;

  constructor(private readonly conn: ServedInternals) {
    this.raw = conn.stream;
    const parser = beyondTypings<Mysql2PacketParser>(conn.packetParser);
    this.intake = new PacketIntake(parser, () => this.refuse(this.tooLarge));
    conn.packetParser = this.intake;
  }

  private tooLarge: Uint8Array = new Uint8Array();

  /** The socket the connection started on (TLS, if taken over, runs over it). */
  get socket(): Socket {
    return this.raw;
  }

  /**
   * Sends the greeting and admits the client or not; its commands come after, to `onCommand`'s listener.
   * A refused client gets the refusal's ERR and the connection ends, whatever it sent after its reply.
   */
  greet(g: Greeting): void {
    const conn = this.conn;
    const limits = g.limits;
    if (limits) {
      this.tooLarge = limits.tooLarge;
      this.intake.limit = limits.packetBeforeLogin;
    }
    const connectTimer = limits && setTimeout(() => this.end(), limits.connectTimeout);
    let admitted = false;
    const handshake = conn.serverHandshake({
      protocolVersion: 10,
      serverVersion: g.serverVersion,
      connectionId: g.connectionId,
      statusFlags: g.statusFlags,
      characterSet: g.characterSet,
      capabilityFlags: g.capabilityFlags,
      authCallback: (auth: Authentication, done: (e: null) => void) => {
        const refusal = g.refuses(auth);
        // mysql2's own refusal has no SQL state and only half-closes the socket, so it is never asked for.
        if (refusal) return this.refuse(refusal);
        clearTimeout(connectTimer);
        if (limits) this.intake.limit = limits.packetAfterLogin;
        admitted = true;
        done(null);
        // mysql2 counts the OK it wrote on, but the client's first command starts again from 0.
        conn.sequenceId = 0;
      },
    });
    this.raw.on('close', () => clearTimeout(connectTimer));
    this.readReplyThen(handshake, () => admitted, g.tls);
  }

  /**
   * Wraps the handshake's step that reads the client's reply (mysql2's command `next`): an SSLRequest
   * goes over to TLS and the reply is read again; after the reply, every command of an admitted client
   * goes to `onCommand`'s listener, none to mysql2's dispatch (which reads a code past the end of an
   * empty packet, fails on a short COM_STMT_EXECUTE, and answers some commands besides the listener),
   * and a refused client's go nowhere.
   */
  private readReplyThen(handshake: Mysql2Handshake, admitted: () => boolean, tls: TlsTakeover | undefined): void {
    const readReply = handshake.next;
    const ignore = () => ignore;
    const self = this;
    const dispatch = (packet: Mysql2Packet): Mysql2Step => {
      // The payload is copied, because the listener may read it later, when the socket's chunk is gone.
      const payload = payloadOf(packet).slice();
      self.command?.(payload[0], payload);
      return dispatch;
    };
    const reply: Mysql2Step = function (this: unknown, packet, connection) {
      if (tls?.asks(payloadOf(packet))) {
        self.takeOverTls(tls);
        return reply;
      }
      readReply.call(this, packet, connection);
      return admitted() ? dispatch : ignore;
    };
    handshake.next = reply;
  }

  /**
   * mysql2's server side has no TLS: its handshake reads the client's first packet as the handshake
   * response, with no case for an SSLRequest, and its startTLS is the client's. So once the request is
   * read, the socket is taken over by a server-side TLS socket (over the bytes after the request, which
   * may hold the client's TLS hello), a new mysql2 packet parser reads what TLS gives, and mysql2's
   * writes go to it, as startTLS does for a client.
   */
  private takeOverTls(tls: TlsTakeover): void {
    const conn = this.conn;
    const parser = new this.intake.parser.constructor(this.intake.parser.onPacket, 4);
    this.intake.handOverAfterPacket(parser, (rest) => {
      this.raw.removeAllListeners('data');
      const secure = tls.secure(this.raw, rest);
      secure.on('data', (data: Buffer) => this.intake.execute(data));
      secure.on('error', () => this.raw.destroy());
      conn.stream = secure;
    });
  }

  /** Sends `err` (an ERR packet's payload) and ends the connection, reading nothing more. */
  refuse(err: Uint8Array): void {
    if (this.ending) return;
    this.write(err);
    this.end();
  }

  /**
   * Ends the connection as a server does: nothing more is read, what was written goes out, and the
   * socket closes when the client closes its side or after a grace period.
   */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.intake.stop();
    this.conn.close();
    const raw = this.raw;
    const destroyLater = () => setTimeout(() => raw.destroy(), CLOSING_GRACE_MS).unref();
    if (raw.writableFinished) destroyLater();
    else raw.once('finish', destroyLater);
  }

  /** Hands every command to `listener` as its code (none for an empty packet) and its payload. */
  onCommand(listener: (code: number | undefined, payload: Uint8Array) => void): void {
    this.command = listener;
  }

  /** Told when the socket closes, or the connection fails. */
  onClose(listener: () => void): void {
    this.conn.stream.on('close', listener);
    this.conn.on('error', listener);
  }

  /** Numbers the next packet written (0 for a command's, 1 for the first of its answer). */
  numberFrom(sequenceId: number): void {
    this.conn.sequenceId = sequenceId;
  }

  /** Writes one packet. */
  write(payload: Uint8Array): void {
    this.conn.writePacket(outgoing(payload));
  }

  /** Writes one packet and waits while the socket's buffer is full, until `gone` aborts. */
  async send(payload: Uint8Array, gone: AbortSignal): Promise<void> {
    this.write(payload);
    const socket = this.conn.stream;
    if (socket.writableNeedDrain) await once(socket, 'drain', { signal: gone }).catch(() => {});
  }

  writeOk(): void {
    this.conn.writeOk();
  }

  writeEof(): void {
    this.conn.writeEof();
  }

  /**
   * A result set's column count, its column definitions (the fields of schemas/replication.yaml's
   * ColumnDefinitionPacket) and an EOF.
   */
  writeColumns(columns: object[]): void {
    this.conn.writeColumns(columns);
  }

  /** A row of a result set in the text protocol (null: NULL). */
  writeTextRow(row: (string | null)[]): void {
    this.conn.writeTextRow(row);
  }

  /** Ends the connection (see end). */
  close(): void {
    this.end();
  }
}
