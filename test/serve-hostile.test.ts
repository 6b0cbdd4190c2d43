/**
 * `serveBinlog` against clients that do not play by the rules, talking raw protocol over node:net: a
 * refused client's pipelined dump, packets far over max_allowed_packet, a client that sends one byte,
 * one connection too many, an address others reach without an account, malformed commands, and a
 * bounded fuzz of the packets a client sends before and after its login. Each gets what a MariaDB
 * server gives (an ERR with its number and SQL state, a closed connection), and the server goes on.
 */
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBinlog } from '../replication/client.js';
import { AnonymousServerError, serveBinlog, type BinlogServer, type ServeOptions } from '../server/serve.js';
import { runBinlog } from './support/cli.js';

const SAMPLE = join(import.meta.dirname, 'fixtures', 'sample.bin');
const USER = 'repl';
const PASSWORD = 'secret';
const ANSWER_MS = 5000;

type Packet = { seq: number; payload: Buffer };

/** A raw client: the server's packets as they come, and whether the server closed the socket. */
class RawClient {
  private readonly socket: Socket;
  private bytes = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  received = 0;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, d]);
      this.received += d.length;
      this.wake();
    });
    socket.on('close', () => ((this.closed = true), this.wake()));
    // A server that closes while the client still writes resets the connection: that is a close here.
    socket.on('error', () => {});
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** The next packet, or 'closed' when the server closed first, or 'silent' after `ms`. */
  async next(ms = ANSWER_MS): Promise<Packet | 'closed' | 'silent'> {
    const until = Date.now() + ms;
    for (;;) {
      if (this.bytes.length >= 4) {
        const length = this.bytes.readUIntLE(0, 3);
        if (this.bytes.length >= 4 + length) {
          const p = { seq: this.bytes[3]!, payload: this.bytes.subarray(4, 4 + length) };
          this.bytes = this.bytes.subarray(4 + length);
          return p;
        }
      }
      if (this.closed) return 'closed';
      const left = until - Date.now();
      if (left <= 0) return 'silent';
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, left);
      });
    }
  }

  /** Waits for the server to close the socket; false if it did not within `ms`. */
  async closes(ms = ANSWER_MS): Promise<boolean> {
    const until = Date.now() + ms;
    while (!this.closed && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /**
   * Writes `frames` (their lengths), each a header and that many bytes of one 64 KB piece written again
   * and again as the socket drains, so that the client holds little of what it sends; stops when the
   * server closes.
   */
  async pour(frames: number[]): Promise<void> {
    const piece = Buffer.alloc(1 << 16, 0x61);
    for (const [i, length] of frames.entries()) {
      const header = Buffer.alloc(4);
      header.writeUIntLE(length, 0, 3);
      header[3] = i + 1;
      this.write(header);
      for (let left = length; left > 0 && !this.closed; left -= piece.length) {
        if (!this.socket.write(piece.subarray(0, Math.min(left, piece.length)))) await this.drained();
      }
    }
  }

  private drained(): Promise<void> {
    return new Promise((r) => {
      this.socket.once('drain', r);
      this.socket.once('close', r);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** One frame: its 3-byte length, its sequence number, its payload. */
function frame(seq: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = seq;
  return Buffer.concat([header, payload]);
}

const sha1 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha1')).digest();

/** The greeting's 20-byte scramble: 8 bytes after the version and connection id, 12 more after the capabilities. */
function scramble(greeting: Buffer): Buffer {
  const at = greeting.indexOf(0, 1) + 1 + 4;
  const first = greeting.subarray(at, at + 8);
  const secondAt = at + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
  return Buffer.concat([first, greeting.subarray(secondAt, secondAt + 12)]);
}

/** mysql_native_password's token, computed here from its definition. */
function nativeToken(password: string, salt: Buffer): Buffer {
  const stage1 = sha1(Buffer.from(password));
  const mask = sha1(salt, sha1(stage1));
  return Buffer.from(stage1.map((b, i) => b ^ mask[i]!));
}

/** A HandshakeResponse41: CLIENT_PROTOCOL_41 and CLIENT_SECURE_CONNECTION, the user and a token. */
function handshakeResponse(user: string, token: Uint8Array): Buffer {
  const fixed = Buffer.alloc(32);
  fixed.writeUInt32LE(0x200 | 0x8000, 0);
  fixed.writeUInt32LE(1 << 24, 4);
  fixed[8] = 45;
  return Buffer.concat([fixed, Buffer.from(`${user}\0`), Buffer.of(token.length), token]);
}

/** A raw client past the greeting, the response written (and `after` in the same write). */
async function loggingIn(port: number, password: string, after: Uint8Array = new Uint8Array()): Promise<RawClient> {
  const client = await RawClient.open(port);
  const greeting = await client.next();
  if (typeof greeting === 'string') throw new Error(`no greeting: ${greeting}`);
  const response = handshakeResponse(USER, nativeToken(password, scramble(greeting.payload)));
  client.write(Buffer.concat([frame(1, response), after]));
  return client;
}

/** A raw client logged in (its OK read). */
async function loggedIn(port: number): Promise<RawClient> {
  const client = await loggingIn(port, PASSWORD);
  const ok = await client.next();
  if (typeof ok === 'string' || ok.payload[0] !== 0) throw new Error('the login was refused');
  return client;
}

/** An ERR packet's number, SQL state and message. */
function err(p: Packet | string): { code: number; state: string; message: string } {
  if (typeof p === 'string' || p.payload[0] !== 0xff) {
    throw new Error(`not an ERR: ${typeof p === 'string' ? p : p.payload[0]}`);
  }
  const payload = p.payload;
  const message = payload.subarray(9).toString();
  return { code: payload.readUInt16LE(1), state: payload.subarray(4, 9).toString(), message };
}

const COM_PING = Buffer.of(0x0e);

/** COM_BINLOG_DUMP from the sample's first event, non-blocking: its answer is events, then EOF. */
function dumpCommand(): Buffer {
  const p = Buffer.alloc(11 + 'sample.bin'.length);
  p[0] = 0x12;
  p.writeUInt32LE(4, 1);
  p.writeUInt16LE(1, 5);
  p.writeUInt32LE(99, 7);
  p.write('sample.bin', 11);
  return p;
}

describe('serveBinlog against hostile clients', () => {
  let server: BinlogServer;
  const logged: string[] = [];
  const serve = (options: ServeOptions = {}) =>
    serveBinlog({ files: [SAMPLE] }, { user: USER, password: PASSWORD, log: (m) => logged.push(m), ...options });

  beforeAll(async () => {
    server = await serve({ maxAllowedPacket: 1 << 20 });
  });
  afterAll(async () => {
    await server?.close();
    // No command may fail in the server's code: a malformed one is answered, never a TypeError.
    expect(logged.filter((m) => /TypeError|RangeError/.test(m))).toEqual([]);
  });

  it('S1, S6: ends a refused login at its ERR (1045, 28000), running nothing pipelined behind it', async () => {
    const client = await loggingIn(server.port, 'wrong', frame(0, dumpCommand()));
    const refused = err(await client.next());
    expect(refused).toMatchObject({ code: 1045, state: '28000', message: expect.stringContaining(`'${USER}'`) });
    const receivedAtErr = client.received;
    expect(await client.closes()).toBe(true);
    expect(await client.next()).toBe('closed');
    // Not one byte of the dump's events came after the ERR.
    expect(client.received).toBe(receivedAtErr);
  });

  it('S2: answers a 32 MB packet before login with ER_NET_PACKET_TOO_LARGE, never holding it, and ends', async () => {
    const before = process.memoryUsage().rss;
    const client = await RawClient.open(server.port);
    await client.next();
    // Two full frames and a short one: a 32 MB handshake response, written as fast as the socket takes it.
    const pouring = client.pour([0xffffff, 0xffffff, 100]);
    const answer = err(await client.next());
    const message = "Got a packet bigger than 'max_allowed_packet' bytes";
    expect(answer).toMatchObject({ code: 1153, state: '08S01', message });
    expect(await client.closes()).toBe(true);
    await pouring;
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    if (process.env.SHOW_RSS) console.log(`rss grew ${grown.toFixed(1)} MB`);
    // A server that held the packet would grow by its 32 MB and more.
    expect(grown).toBeLessThan(32);
  });

  it('S2: holds an admitted client to --max-allowed-packet, and quotes no statement whole', async () => {
    const client = await loggedIn(server.port);
    const statement = `SELECT ${'x'.repeat(100_000)}`;
    client.write(frame(0, Buffer.concat([Buffer.of(0x03), Buffer.from(statement)])));
    const unanswered = err(await client.next());
    expect(unanswered.code).toBe(1235);
    expect(unanswered.message.length).toBeLessThan(200);
    client.write(frame(0, Buffer.concat([Buffer.of(0x03), Buffer.alloc(2 << 20, 0x78)])));
    expect(err(await client.next())).toMatchObject({ code: 1153, state: '08S01' });
    expect(await client.closes()).toBe(true);
  });

  it('S5: answers an empty command with 1047 and a short COM_REGISTER_SLAVE with 1105, and goes on', async () => {
    const client = await loggedIn(server.port);
    client.write(frame(0, new Uint8Array()));
    expect(err(await client.next())).toMatchObject({ code: 1047, state: '08S01' });
    client.write(frame(0, Buffer.of(0x15, 1)));
    const message = 'Wrong parameters to function register_slave';
    expect(err(await client.next())).toMatchObject({ code: 1105, state: 'HY000', message });
    client.write(frame(0, COM_PING));
    const pong = await client.next();
    expect(typeof pong !== 'string' && pong.payload[0]).toBe(0);
    client.destroy();
  });

  it('S5: answers a short COM_BINLOG_DUMP_GTID and COM_BINLOG_DUMP with 1835, and ends the connection', async () => {
    for (const command of [Buffer.of(0x1e, 0, 0), Buffer.of(0x12, 4, 0)]) {
      const client = await loggedIn(server.port);
      client.write(frame(0, command));
      const message = 'Malformed communication packet';
      expect(err(await client.next())).toMatchObject({ code: 1835, state: 'HY000', message });
      expect(await client.closes()).toBe(true);
    }
  });

  it('S3: closes a client not logged in within --connect-timeout, and one idle past --wait-timeout', async () => {
    const strict = await serve({ connectTimeout: 1, waitTimeout: 1 });
    try {
      const slow = await RawClient.open(strict.port);
      await slow.next();
      slow.write(Buffer.of(1));
      const started = Date.now();
      expect(await slow.closes(5000)).toBe(true);
      expect(Date.now() - started).toBeGreaterThan(500);
      const idle = await loggedIn(strict.port);
      expect(await idle.closes(5000)).toBe(true);
    } finally {
      await strict.close();
    }
  });

  it('S3: refuses the connection past --max-connections with 1040, and takes one again after one ends', async () => {
    const capped = await serve({ maxConnections: 2 });
    try {
      const first = await loggedIn(capped.port);
      const second = await RawClient.open(capped.port);
      expect(typeof (await second.next())).not.toBe('string');
      const third = await RawClient.open(capped.port);
      expect(err(await third.next())).toMatchObject({ code: 1040, state: '08004', message: 'Too many connections' });
      expect(await third.closes()).toBe(true);
      first.destroy();
      await new Promise((r) => setTimeout(r, 200));
      (await loggedIn(capped.port)).destroy();
      second.destroy();
    } finally {
      await capped.close();
    }
  });

  it('S4: will not listen where others reach it without --user, unless told to', async () => {
    await expect(serveBinlog({ files: [SAMPLE] }, { host: '0.0.0.0' })).rejects.toBeInstanceOf(AnonymousServerError);
    const open = await serveBinlog({ files: [SAMPLE] }, { host: '0.0.0.0', allowAnonymous: true });
    await open.close();
    const run = await runBinlog(['serve', '--host=0.0.0.0', '--port=0', SAMPLE]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--user/);
    expect(run.stderr).toMatch(/--host=127\.0\.0\.1/);
    expect(run.stderr).toMatch(/--allow-anonymous/);
  });

  it('fuzz: answers 500 random and mutated packets, before and after login: OK, rows, ERR or close', async () => {
    const random = seeded(41);
    const started = Date.now();
    const seen = new Map<string, number>();
    for (let i = 0; i < 500 && Date.now() - started < 60_000; i++) {
      const before = i % 2 === 0;
      const client = before ? await RawClient.open(server.port) : await loggedIn(server.port);
      let sent: Buffer;
      if (before) {
        const greeting = await client.next();
        if (typeof greeting === 'string') throw new Error('no greeting');
        sent = mutated(random, handshakeResponse(USER, nativeToken(PASSWORD, scramble(greeting.payload))));
        client.write(frame(1, sent));
      } else {
        sent = mutated(random, pick(random, COMMANDS));
        client.write(frame(0, sent));
      }
      const answer = await client.next(2000);
      const kind = classify(answer, sent, before);
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
      const what = `packet ${i} (${before ? 'before' : 'after'} login): ${sent.subarray(0, 32).toString('hex')}`;
      expect(kind, what).not.toBe('other');
      client.destroy();
    }
    // No packet made the server's code fail (a TypeError on an empty command, a RangeError on a short one).
    expect(logged.filter((m) => /TypeError|RangeError/.test(m))).toEqual([]);
    // The fuzz reached past the parser: refusals and answers of each kind.
    expect(seen.get('err')).toBeGreaterThan(50);
    expect(seen.get('ok')).toBeGreaterThan(10);
    // A well-behaved replica is served after all of it.
    const events = [];
    const replica = { host: '127.0.0.1', port: server.port, user: USER, password: PASSWORD, heartbeatPeriod: 0 };
    for await (const e of connectBinlog({ ...replica, file: 'sample.bin', position: 4, until: 'logs' })) events.push(e);
    expect(events.some((e) => e.type === 'FORMAT_DESCRIPTION_EVENT')).toBe(true);
  }, 90_000);
});

/** The commands mutated: queries, a ping, INIT_DB, REGISTER_SLAVE, both dumps, prepared statements', an empty one. */
const COMMANDS: Buffer[] = [
  Buffer.concat([Buffer.of(0x03), Buffer.from('SELECT @@server_id, UNIX_TIMESTAMP()')]),
  Buffer.concat([Buffer.of(0x03), Buffer.from("SET @master_binlog_checksum = 'CRC32'")]),
  COM_PING,
  Buffer.concat([Buffer.of(0x02), Buffer.from('db')]),
  Buffer.concat([Buffer.of(0x15), Buffer.alloc(4, 1), Buffer.of(1, 0x61, 0, 0), Buffer.alloc(10)]),
  dumpCommand(),
  // COM_BINLOG_DUMP_GTID: flags, server id, no file name, position 4, an empty GTID set.
  Buffer.concat([Buffer.of(0x1e, 0, 0), Buffer.alloc(4, 9), Buffer.alloc(4), Buffer.from('04'.padEnd(24, '0'), 'hex')]),
  Buffer.concat([Buffer.of(0x16), Buffer.from('SELECT ?')]),
  Buffer.concat([Buffer.of(0x17), Buffer.alloc(4), Buffer.of(0), Buffer.of(1, 0, 0, 0)]),
  Buffer.alloc(0),
];

/** A packet mutated: bytes changed, cut, grown, or wholly random. */
function mutated(random: () => number, base: Buffer): Buffer {
  const out = Buffer.from(base);
  switch (Math.floor(random() * 4)) {
    case 0:
      for (let n = 1 + Math.floor(random() * 4); n > 0 && out.length; n--) {
        out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
      }
      return out;
    case 1:
      return out.subarray(0, Math.floor(random() * out.length));
    case 2:
      return Buffer.concat([out, randomBytes(random, Math.floor(random() * 64))]);
    default:
      return randomBytes(random, Math.floor(random() * 48));
  }
}

function randomBytes(random: () => number, n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
}

function pick<T>(random: () => number, from: T[]): T {
  return from[Math.floor(random() * from.length)]!;
}

/** A small seeded generator (mulberry32), so that a failing packet comes again. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What a server's first answer is: 'ok' (an OK, or a dump's first event after its OK byte), 'err', 'eof',
 * 'rows' (a result set's column count), 'closed', 'none' for a command that has no answer (COM_STMT_CLOSE,
 * COM_QUIT; before the login there is none such: a server answers a handshake response), or 'other'.
 */
function classify(answer: Packet | 'closed' | 'silent', sent: Buffer, before: boolean): string {
  // After the login a server ends the connection without an answer only for COM_QUIT, and mysql2 for a
  // command that begins as an ERR packet does (0xff), which it takes for a failed command of its own.
  if (answer === 'closed') return before || sent[0] === 0x01 || sent[0] === 0xff ? 'closed' : 'other';
  if (answer === 'silent') return !before && (sent[0] === 0x19 || sent[0] === 0x01) ? 'none' : 'other';
  const first = answer.payload[0]!;
  if (first === 0x00) return 'ok';
  if (first === 0xff) return 'err';
  if (first === 0xfe) return 'eof';
  return first >= 1 && first <= 0xfa && !before ? 'rows' : 'other';
}
