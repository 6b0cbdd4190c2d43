/**
 * The connection a replica holds: mysql2 connects (TCP or a unix socket, TLS) and authenticates (every
 * auth plugin it knows, mysql_native_password and caching_sha2_password among them), through
 * protocol/mysql2-adapter.ts; this file sends the replication commands our schemas encode and hands back
 * the packets that answer them, whole (mysql2 joins an event longer than one packet), with the socket
 * paused while the consumer is behind.
 */
import { ClientConnection, type ClientConfig } from '../protocol/mysql2-adapter.js';
import { errFrom } from '../protocol/packets.js';
import { ConnectionError } from '../runtime/core/errors.js';

/**
 * Where and how a replica connects: the adapter's client settings, each optional. The host is localhost and
 * the port 3306 unless given, and a socketPath is used instead of TCP when given; the two limits below have
 * defaults of their own.
 */
export interface ConnectOptions extends Partial<ClientConfig> {
  /**
   * Milliseconds to wait for each step before a dump: the connection, the server's greeting and the login
   * together, then each query and command's answer (default 10 000; 0: no limit).
   */
  connectTimeout?: number;
  /**
   * Bytes: a packet from the server longer than this (an event, or a result row) is refused, the connection
   * failing with a ConnectionError before it is read (default 1 GiB, the largest event a server sends).
   */
  maxAllowedPacket?: number;
}

/** The packets of a command's answer, as they come, with the connection paused while too many wait. */
export interface PacketSource extends AsyncIterable<Uint8Array> {
  /** Ends the answer early: the connection is closed. */
  close(): void;
}

/**
 * How many bytes of packets may wait for the consumer before the socket is paused. Memory held is this,
 * plus one socket read (64 KiB) and one event (the one being joined), however far behind the consumer is.
 */
export const QUEUE_HIGH_WATER = 4 << 20;

/** What a dump's packet queue held: diagnostics, and what shows the bound above holds. */
export interface QueueStats {
  /** Bytes of packets waiting for the consumer now. */
  bytes: number;
  /** The most bytes that ever waited: QUEUE_HIGH_WATER at most, plus the rest of the socket read that passed it. */
  peak: number;
  /** How many times the socket was paused for a consumer that fell behind. */
  pauses: number;
}

/** How a command's answer is streamed. */
export interface StreamOptions {
  /** Milliseconds: a wait for the next packet that lasts longer loses the connection. */
  silence?: number;
  /** Where the queue's figures are kept (shared by the connections of one dump). */
  stats?: QueueStats;
}
const DEFAULT_CONNECT_TIMEOUT = 10_000;
const DEFAULT_MAX_ALLOWED_PACKET = 1 << 30;

/** A connection with the binlog reader's few needs: SQL, and raw commands whose answers are streamed. */
export class Wire {
  private constructor(
    private readonly conn: ClientConnection,
    /** Milliseconds a query or a command's answer may take. */
    private readonly timeout: number,
  ) {}

  static async open(options: ConnectOptions): Promise<Wire> {
    const connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
    const maxAllowedPacket = options.maxAllowedPacket ?? DEFAULT_MAX_ALLOWED_PACKET;
    return new Wire(await ClientConnection.open({ ...options, connectTimeout, maxAllowedPacket }), connectTimeout);
  }

  /** The answer being read, the last command's. */
  private answer: PacketQueue | undefined;

  /** A value as an SQL literal, quoted by the driver. */
  escape(value: string): string {
    return this.conn.escape(value);
  }

  /** Runs a statement; resolves with its rows (objects by column name), or none for its OK result. */
  query(sql: string): Promise<Record<string, unknown>[]> {
    return this.conn.inTime(this.conn.query(sql), this.timeout, () => `the query ${sql}`);
  }

  /** Sends a command that the server answers with one OK (or ERR) packet; `what` names it in a timeout's error. */
  async command(payload: Uint8Array, what = 'a command'): Promise<void> {
    // The answer is one packet, and an ERR throws as it is read.
    const answered = async () => {
      for await (const _ of this.stream(payload)) return;
    };
    await this.conn.inTime(answered(), this.timeout, () => what);
  }

  /** Sends a command and gives each packet that answers it, until `last` says one ends the answer. */
  stream(
    payload: Uint8Array,
    last: (packet: Uint8Array) => boolean = () => true,
    options: StreamOptions = {},
  ): PacketSource {
    const stats = options.stats ?? { bytes: 0, peak: 0, pauses: 0 };
    const queue = (this.answer = new PacketQueue(this.conn, options.silence, stats));
    this.conn.send({
      payload,
      answered(packet) {
        const done = packet[0] === 0xff || last(packet);
        queue.push(packet, done);
        return done;
      },
      failed: (e) => queue.fail(e),
    });
    return queue;
  }

  /** Closes the connection; a consumer waiting for the answer's next packet is told that it ended. */
  close(): void {
    this.answer?.close();
    this.conn.destroy();
  }
}

/** Packets waiting for the consumer, the socket paused above QUEUE_HIGH_WATER bytes and resumed when drained. */
class PacketQueue implements PacketSource {
  private readonly packets: Uint8Array[] = [];
  private ended = false;
  private error: Error | undefined;
  private paused = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly conn: ClientConnection,
    private readonly silence: number | undefined,
    private readonly stats: QueueStats,
  ) {
    stats.bytes = 0;
  }

  push(packet: Uint8Array, last: boolean): void {
    this.packets.push(packet);
    const stats = this.stats;
    stats.bytes += packet.length;
    if (stats.bytes > stats.peak) stats.peak = stats.bytes;
    if (last) this.ended = true;
    else if (stats.bytes > QUEUE_HIGH_WATER && !this.paused) {
      this.paused = true;
      stats.pauses++;
      this.conn.pause();
    }
    this.notify();
  }

  fail(e: Error): void {
    if (this.ended) return;
    this.error = e;
    this.ended = true;
    this.notify();
  }

  close(): void {
    this.ended = true;
    this.conn.destroy();
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next packet's arrival (or the end), or, past `silence`, the connection given up as dead. */
  private async arrival(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      const ms = this.silence;
      if (ms === undefined) return;
      const silent = `nothing came from the server for ${ms / 1000} s, twice its heartbeat period`;
      timer = setTimeout(() => this.fail(new ConnectionError(`${silent}: the connection is taken as lost`)), ms);
    });
    clearTimeout(timer);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const packet = this.packets.shift();
        if (packet) {
          this.stats.bytes -= packet.length;
          if (this.paused && this.stats.bytes < QUEUE_HIGH_WATER / 4) {
            this.paused = false;
            this.conn.resume();
          }
          if (packet[0] === 0xff) throw errFrom(packet);
          yield packet;
          continue;
        }
        if (this.error) throw this.error;
        if (this.ended) return;
        await this.arrival();
      }
    } finally {
      // A consumer that left early (or failed) wants nothing more from the connection, so it is closed.
      if (!this.ended || this.packets.length) this.close();
    }
  }
}
