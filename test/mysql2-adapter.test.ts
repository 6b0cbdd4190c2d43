/**
 * What protocol/mysql2-adapter.ts assumes of mysql2, checked against the mysql2 installed: the members
 * beyond its typings exist, and behave as the adapter uses them. A mysql2 upgrade that changes one fails
 * here, naming it, before the replication client or the server fails in a way harder to read. The
 * server and the clients are mysql2's own, talking to each other in this process: no database needed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnection, createServer } from 'mysql2';
import { ClientCapabilities, Command, ServerStatus } from '../generated/replication.js';
import { ClientConnection, listen, type Listening, type ServedConnection } from '../protocol/mysql2-adapter.js';
import { ConnectionError, ServerError } from '../runtime/core/errors.js';
import { errPacket } from '../server/session.js';
import { textColumn, UTF8_GENERAL_CI } from '../server/statements.js';
import { tlsTakeover } from '../server/tls.js';

const ROOT = join(import.meta.dirname, '..');
const CAPABILITIES = Object.values(ClientCapabilities).reduce((a, b) => a | b, 0) & ~ClientCapabilities.CLIENT_SSL;
const GREETING = { serverVersion: '8.0.40-adapter-test', connectionId: 7, statusFlags: ServerStatus.SERVER_STATUS_AUTOCOMMIT, characterSet: UTF8_GENERAL_CI };

/** A member of a mysql2 object by name, whatever its typings say of it. */
const member = (o: object, name: string): unknown => Reflect.get(o, name);

/** Why the adapter needs each member, for the failure messages. */
const WHY = (member: string, use: string) => `mysql2's ${member}, which protocol/mysql2-adapter.ts uses to ${use}`;

describe('mysql2 as package.json pins it', () => {
  it('is one exact version, the one installed and locked', () => {
    const wanted = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.mysql2;
    const installed = (createRequire(import.meta.url)('mysql2/package.json') as { version: string }).version;
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    expect(wanted, 'package.json pins mysql2 exactly (no ^ or ~), so that an upgrade is a change this test checks').toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed, 'the mysql2 installed is the one package.json pins: run npm ci').toBe(wanted);
    expect(lock.packages['node_modules/mysql2']?.version).toBe(wanted);
    expect(lock.packages['']?.dependencies?.mysql2).toBe(wanted);
  });
});

describe("mysql2's members beyond its typings", () => {
  it('are there on a client and a server connection, as the adapter reaches them', async () => {
    const seen: Record<string, unknown> = {};
    const server = createServer((conn) => {
      conn.on('error', () => {});
      for (const m of ['stream', 'packetParser', 'sequenceId', 'serverHandshake', 'writePacket', 'writeOk', 'writeEof', 'writeColumns', 'writeTextRow', 'close']) seen[`server.${m}`] = member(conn, m);
      const handshake: object = conn.serverHandshake({ protocolVersion: 10, ...GREETING, capabilityFlags: CAPABILITIES });
      seen['handshake.next'] = member(handshake, 'next');
    });
    const net = member(server, '_server') as NetServer;
    expect(net?.listen, WHY('Server._server (a net.Server)', 'listen and to close')).toBeTypeOf('function');
    await new Promise<void>((resolve) => net.listen(0, '127.0.0.1', resolve));
    const port = (net.address() as { port: number }).port;
    const client = createConnection({ host: '127.0.0.1', port, user: 'u' });
    await new Promise<void>((resolve, reject) => client.connect((e) => (e ? reject(e) : resolve())));
    try {
      expect(member(client, 'addCommand'), WHY('Connection.addCommand', 'queue the replication commands')).toBeTypeOf('function');
      expect(member(member(client, 'stream') as object, 'destroy'), WHY('Connection.stream (the socket)', 'close both halves of it')).toBeTypeOf('function');
      expect(member(client, '_resetSequenceId'), WHY('Connection._resetSequenceId', "number a command's packets from 0")).toBeTypeOf('function');
      expect((seen['server.stream'] as { on?: unknown })?.on, WHY("the server connection's stream (its socket)", 'watch it close and drain')).toBeTypeOf('function');
      const parser = seen['server.packetParser'] as { execute?: unknown; onPacket?: unknown; constructor?: unknown };
      expect(parser?.execute, WHY('packetParser.execute', 'feed it what TLS decrypts')).toBeTypeOf('function');
      expect(parser?.onPacket, WHY('packetParser.onPacket', 'make a parser for the TLS socket')).toBeTypeOf('function');
      expect(parser?.constructor, WHY("packetParser's constructor (onPacket, headerLength)", 'make a parser for the TLS socket')).toBeTypeOf('function');
      expect(seen['server.sequenceId'], WHY('the server connection.sequenceId', 'number the packets of an answer')).toBeTypeOf('number');
      expect(seen['handshake.next'], WHY("serverHandshake's command.next", "read an SSLRequest before the handshake response")).toBeTypeOf('function');
      for (const m of ['serverHandshake', 'writePacket', 'writeOk', 'writeEof', 'writeColumns', 'writeTextRow', 'close']) expect(seen[`server.${m}`], WHY(`the server connection.${m}`, 'answer a client')).toBeTypeOf('function');
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => net.close(() => resolve()));
    }
  });
});

describe('the adapter over mysql2, a client of it talking to a server of it', () => {
  const commands: { code: number; payload: number[] }[] = [];
  let closed = 0;
  let listening: Listening;

  /** The server's side of the test: a raw command's three-packet answer, a query's rows or its error. */
  function answer(conn: ServedConnection, code: number, payload: Uint8Array): void {
    commands.push({ code, payload: [...payload] });
    conn.numberFrom(1);
    if (code === Command.COM_REGISTER_SLAVE) {
      conn.write(Uint8Array.of(1, 2, 3));
      conn.write(Uint8Array.of(4));
      conn.write(Uint8Array.of(0xfe, 0, 0, 2, 0));
    } else if (code === Command.COM_BINLOG_DUMP) {
      conn.close();
    } else if (Buffer.from(payload.subarray(1)).toString() === 'SELECT 1') {
      conn.writeColumns([textColumn('one'), textColumn('nothing')]);
      conn.writeTextRow(['1', null]);
      conn.writeEof();
    } else conn.write(errPacket(1064, '42000', `no '${Buffer.from(payload.subarray(1))}' here`));
    conn.numberFrom(0);
  }

  async function connected(user = 'cdc'): Promise<ClientConnection> {
    return ClientConnection.open({ host: '127.0.0.1', port: listening.port, user, connectTimeout: 5000 });
  }

  it('listens, greets, admits and refuses as the greeting says', async () => {
    listening = await listen(0, '127.0.0.1', (conn) => {
      conn.greet({ ...GREETING, capabilityFlags: CAPABILITIES, refuses: (auth) => (auth.user === 'nobody' ? { message: `no ${auth.user}`, code: 1045 } : undefined) });
      conn.onClose(() => closed++);
      conn.onCommand((code, payload) => answer(conn, code, payload));
    });
    expect(listening.port).toBeGreaterThan(0);
    const refused = await connected('nobody').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServerError);
    expect(refused).toMatchObject({ errorCode: 1045, message: expect.stringContaining('no nobody') });
    (await connected()).destroy();
  });

  it("gives a query's rows, and the server's error with its code and message (mysql2's sqlMessage)", async () => {
    const client = await connected();
    try {
      expect(await client.query('SELECT 1')).toEqual([{ one: '1', nothing: null }]);
      const failed = await client.query('SELECT 2').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ServerError);
      expect(failed).toMatchObject({ errorCode: 1064, sqlState: '42000', message: expect.stringContaining("no 'SELECT 2' here") });
    } finally {
      client.destroy();
    }
  });

  it("sends a command of ours on mysql2's queue, numbered from 0, and hands back each packet of its answer", async () => {
    const client = await connected();
    try {
      const got: number[][] = [];
      await new Promise<void>((resolve, reject) =>
        client.send({
          payload: Uint8Array.of(Command.COM_REGISTER_SLAVE, 9, 8),
          answered(p) {
            got.push([...p]);
            if (p[0] === 0xfe) resolve();
            return p[0] === 0xfe;
          },
          failed: reject,
        }),
      );
      expect(got).toEqual([[1, 2, 3], [4], [0xfe, 0, 0, 2, 0]]);
      expect(commands.at(-1)).toEqual({ code: Command.COM_REGISTER_SLAVE, payload: [Command.COM_REGISTER_SLAVE, 9, 8] });
      // The queue goes on after our command: mysql2's own query still gets its answer.
      expect(await client.query('SELECT 1')).toHaveLength(1);
    } finally {
      client.destroy();
    }
  });

  it('tells a command of ours that the connection was lost, as a ConnectionError', async () => {
    const client = await connected();
    try {
      const failure = await new Promise<unknown>((resolve) => client.send({ payload: Uint8Array.of(Command.COM_BINLOG_DUMP), answered: () => true, failed: resolve }));
      expect(failure).toBeInstanceOf(ConnectionError);
    } finally {
      client.destroy();
    }
  });

  it("closes the server's side too when the client is destroyed", async () => {
    const before = closed;
    const client = await connected();
    client.destroy();
    await expect.poll(() => closed).toBeGreaterThan(before);
  });

  afterAll(() => listening?.close());
});

describe('the TLS takeover of the handshake', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mysql2-adapter-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers a client's SSLRequest with TLS, and the handshake goes on over it", async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'));
    const { createSecureContext } = await import('node:tls');
    const tls = tlsTakeover(createSecureContext({ cert, key: readFileSync(join(dir, 'key.pem')) }));
    let secured = false;
    const listening = await listen(0, '127.0.0.1', (conn) => {
      conn.greet({ ...GREETING, capabilityFlags: CAPABILITIES | ClientCapabilities.CLIENT_SSL, refuses: () => undefined, tls: { asks: tls.asks, secure: (raw, already) => ((secured = true), tls.secure(raw, already)) } });
      conn.onCommand((code) => {
        conn.numberFrom(1);
        if (code === Command.COM_QUERY) {
          conn.writeColumns([textColumn('ok')]);
          conn.writeTextRow(['yes']);
          conn.writeEof();
        }
        conn.numberFrom(0);
      });
    });
    const client = await ClientConnection.open({ host: '127.0.0.1', port: listening.port, user: 'cdc', ssl: { ca: cert.toString() }, connectTimeout: 5000 });
    try {
      expect(secured).toBe(true);
      expect(await client.query('SELECT 1')).toEqual([{ ok: 'yes' }]);
    } finally {
      client.destroy();
      await listening.close();
    }
  });
});
