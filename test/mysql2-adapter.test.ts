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
import { createSecureContext } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnection, createServer } from 'mysql2';
import { ClientCapabilities, Command, ServerStatus } from '../generated/replication.js';
import {
  ClientConnection,
  listen,
  type Authentication,
  type Listening,
  type ServedConnection,
  type TlsTakeover,
} from '../protocol/mysql2-adapter.js';
import { ConnectionError, ServerError } from '../runtime/core/errors.js';
import { errPacket } from '../server/session.js';
import { textColumn, UTF8_GENERAL_CI } from '../server/statements.js';
import { tlsTakeover } from '../server/tls.js';

const ROOT = join(import.meta.dirname, '..');
const CAPABILITIES = Object.values(ClientCapabilities).reduce((a, b) => a | b, 0) & ~ClientCapabilities.CLIENT_SSL;
const GREETING = {
  serverVersion: '8.0.40-adapter-test',
  connectionId: 7,
  statusFlags: ServerStatus.SERVER_STATUS_AUTOCOMMIT,
  characterSet: UTF8_GENERAL_CI,
};

type Owner = 'client' | 'server' | 'served' | 'handshake';

/**
 * Each member the adapter reaches beyond mysql2's typings: on the client connection, the Server, a
 * served connection or its handshake command; its type; and what the adapter does with it.
 */
const MEMBERS: [Owner, string, 'function' | 'number', string][] = [
  ['client', 'addCommand', 'function', 'queue the replication commands'],
  ['client', '_resetSequenceId', 'function', "number a command's packets from 0"],
  ['client', 'stream.destroy', 'function', 'close both halves of the socket'],
  ['client', 'stream.once', 'function', 'name the step a connection timed out in'],
  ['client', 'packetParser.execute', 'function', 'count the frames of a packet before mysql2 joins them'],
  ['client', '_handleFatalError', 'function', 'fail the connection on a packet too long'],
  ['server', '_server.listen', 'function', 'listen'],
  ['server', '_server.close', 'function', 'stop listening'],
  ['served', 'stream.on', 'function', 'watch the socket close and drain'],
  ['served', 'sequenceId', 'number', 'number the packets of an answer'],
  ['served', 'packetParser.execute', 'function', "feed the parser the socket's bytes, framed and limited first"],
  ['served', 'packetParser.onPacket', 'function', 'make a parser for the TLS socket'],
  ['served', 'packetParser.constructor', 'function', 'make a parser for the TLS socket'],
  ['served', 'writePacket', 'function', 'write our packets'],
  ['served', 'writeColumns', 'function', "write a result set's columns"],
  ['served', 'writeTextRow', 'function', "write a result set's rows"],
  ['served', 'close', 'function', 'end a connection'],
  ['handshake', 'next', 'function', 'read an SSLRequest, a refused or an empty command'],
];

/** A member by its dotted path, whatever the typings say of the objects on the way. */
function memberAt(o: object, path: string): unknown {
  const step = (v: unknown, key: string): unknown => (v == null ? undefined : Reflect.get(Object(v), key));
  return path.split('.').reduce<unknown>(step, o);
}

describe('mysql2 as package.json pins it', () => {
  it('is one exact version, the one installed and locked', () => {
    const json = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
    const wanted = (json('package.json') as { dependencies: Record<string, string> }).dependencies.mysql2;
    const installed = (createRequire(import.meta.url)('mysql2/package.json') as { version: string }).version;
    type Locked = { version?: string; dependencies?: Record<string, string> };
    const lock = (json('package-lock.json') as { packages: Record<string, Locked> }).packages;
    const pinned = 'package.json pins mysql2 exactly (no ^ or ~), so that an upgrade is a change this test checks';
    expect(wanted, pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed, 'the mysql2 installed is the one package.json pins: run npm ci').toBe(wanted);
    expect(lock['node_modules/mysql2']?.version).toBe(wanted);
    expect(lock['']?.dependencies?.mysql2).toBe(wanted);
  });
});

describe("mysql2's members beyond its typings", () => {
  it('are there on a client and a server connection, as the adapter reaches them', async () => {
    const owners: Partial<Record<Owner, object>> = {};
    const server = (owners.server = createServer((conn) => {
      conn.on('error', () => {});
      owners.served = conn;
      const greeting = { protocolVersion: 10, ...GREETING, capabilityFlags: CAPABILITIES };
      owners.handshake = conn.serverHandshake(greeting) as object;
    }));
    const net = memberAt(server, '_server') as NetServer;
    await new Promise<void>((resolve) => net.listen(0, '127.0.0.1', resolve));
    const port = (net.address() as { port: number }).port;
    const client = (owners.client = createConnection({ host: '127.0.0.1', port, user: 'u' }));
    await new Promise<void>((resolve, reject) => client.connect((e) => (e ? reject(e) : resolve())));
    try {
      for (const [owner, path, type, use] of MEMBERS) {
        const why = `mysql2's ${owner} ${path}, which protocol/mysql2-adapter.ts uses to ${use}`;
        expect(typeof memberAt(owners[owner]!, path), why).toBe(type);
      }
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
  function answer(conn: ServedConnection, code: number | undefined, payload: Uint8Array): void {
    commands.push({ code: code ?? -1, payload: [...payload] });
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
      const refuses = (a: Authentication) => (a.user === 'nobody' ? errPacket(1045, '28000', 'no nobody') : undefined);
      conn.greet({ ...GREETING, capabilityFlags: CAPABILITIES, refuses });
      conn.onClose(() => closed++);
      conn.onCommand((code, payload) => answer(conn, code, payload));
    });
    expect(listening.port).toBeGreaterThan(0);
    const refused = await connected('nobody').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServerError);
    const message = expect.stringContaining('no nobody');
    expect(refused).toMatchObject({ errorCode: 1045, sqlState: '28000', message });
    (await connected()).destroy();
  });

  it("gives a query's rows, and the server's error with its code and message (mysql2's sqlMessage)", async () => {
    const client = await connected();
    try {
      expect(await client.query('SELECT 1')).toEqual([{ one: '1', nothing: null }]);
      const failed = await client.query('SELECT 2').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ServerError);
      const message = expect.stringContaining("no 'SELECT 2' here");
      expect(failed).toMatchObject({ errorCode: 1064, sqlState: '42000', message });
    } finally {
      client.destroy();
    }
  });

  it("sends a command of ours on mysql2's queue, and hands back each packet of its answer", async () => {
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
      const code = Command.COM_REGISTER_SLAVE;
      expect(commands.at(-1)).toEqual({ code, payload: [code, 9, 8] });
      // The queue goes on after our command: mysql2's own query still gets its answer.
      expect(await client.query('SELECT 1')).toHaveLength(1);
    } finally {
      client.destroy();
    }
  });

  it('tells a command of ours that the connection was lost, as a ConnectionError', async () => {
    const client = await connected();
    try {
      const payload = Uint8Array.of(Command.COM_BINLOG_DUMP);
      const failure = await new Promise<unknown>((failed) => client.send({ payload, answered: () => true, failed }));
      expect(failure).toBeInstanceOf(ConnectionError);
    } finally {
      client.destroy();
    }
  });

  it('tells a query sent after the server closed the connection that it was closed, in our words', async () => {
    const client = await connected();
    try {
      const payload = Uint8Array.of(Command.COM_BINLOG_DUMP);
      await new Promise<unknown>((failed) => client.send({ payload, answered: () => true, failed }));
      // mysql2 refuses a command on a closed connection with a sentence of its own (no code), as a snapshot's next
      // page met it when the server killed the connection between two pages.
      const failure = await client.query('SELECT 1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ConnectionError);
      expect(failure).toMatchObject({ message: 'the server closed the connection' });
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
    const [key, out] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
    const request = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', out, '-days', '1'];
    execFileSync('openssl', [...request, ...subject], { stdio: 'ignore' });
    const cert = readFileSync(out);
    const tls = tlsTakeover(createSecureContext({ cert, key: readFileSync(key) }));
    const watched: TlsTakeover = {
      asks: tls.asks,
      secure: (raw, already) => ((secured = true), tls.secure(raw, already)),
    };
    let secured = false;
    const listening = await listen(0, '127.0.0.1', (conn) => {
      const capabilityFlags = CAPABILITIES | ClientCapabilities.CLIENT_SSL;
      conn.greet({ ...GREETING, capabilityFlags, refuses: () => undefined, tls: watched });
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
    const ssl = { ca: cert.toString() };
    const options = { host: '127.0.0.1', port: listening.port, user: 'cdc', ssl, connectTimeout: 5000 };
    const client = await ClientConnection.open(options);
    try {
      expect(secured).toBe(true);
      expect(await client.query('SELECT 1')).toEqual([{ ok: 'yes' }]);
    } finally {
      client.destroy();
      await listening.close();
    }
  });
});
