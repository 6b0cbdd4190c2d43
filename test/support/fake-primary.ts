/**
 * A hostile fake primary: a node:net server that speaks just enough of the protocol for a replica to
 * reach the point a test attacks (a greeting, an OK to any login, result sets for the session's queries),
 * and hands each command to the test, which answers it as a hostile server would.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** One packet: its 3-byte length, its sequence number, its payload. */
export function frame(sequenceId: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequenceId & 0xff;
  return Buffer.concat([header, payload]);
}

/** The greeting of protocol 10, offering mysql_native_password (or `plugin`) without CLIENT_DEPRECATE_EOF. */
export function greeting(serverVersion: string, plugin = 'mysql_native_password'): Buffer {
  // PROTOCOL_41, LONG_PASSWORD, TRANSACTIONS, SECURE_CONNECTION, MULTI_RESULTS, PLUGIN_AUTH.
  const capabilities = 0x1 | 0x4 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;
  const fixed = Buffer.alloc(4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10);
  let at = fixed.writeUInt32LE(1, 0);
  at += Buffer.from('abcdefgh').copy(fixed, at) + 1;
  at = fixed.writeUInt16LE(capabilities & 0xffff, at);
  at = fixed.writeUInt8(0x21, at);
  at = fixed.writeUInt16LE(2, at);
  at = fixed.writeUInt16LE(capabilities >>> 16, at);
  fixed.writeUInt8(21, at);
  const version = Buffer.from(`${serverVersion}\0`);
  return Buffer.concat([Buffer.from([10]), version, fixed, Buffer.from('ijklmnopqrst\0'), Buffer.from(`${plugin}\0`)]);
}

export const OK = Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
const EOF = Buffer.from([0xfe, 0x00, 0x00, 0x02, 0x00]);

/** An ERR packet with this code, SQL state and message (its bytes as given). */
export function err(code: number, sqlState: string, message: string | Buffer): Buffer {
  const head = Buffer.alloc(3);
  head[0] = 0xff;
  head.writeUInt16LE(code, 1);
  return Buffer.concat([head, Buffer.from(`#${sqlState}`), Buffer.from(message)]);
}

function lenenc(s: string): Buffer {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from([b.length]), b]);
}

/** A result set of string columns and one row, as the packets that answer a query (sequence ids from 1). */
export function resultSet(row: Record<string, string>): Buffer[] {
  return resultRows(Object.keys(row), [Object.values(row)]);
}

/** A result set of string columns `names` and `rows` (each a value per column), as resultSet's packets. */
export function resultRows(names: string[], rows: string[][]): Buffer[] {
  const column = (name: string) => {
    const tail = Buffer.from([0x0c, 0x21, 0x00, 0xff, 0x00, 0x00, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00]);
    return Buffer.concat([lenenc('def'), lenenc(''), lenenc(''), lenenc(''), lenenc(name), lenenc(name), tail]);
  };
  const values = rows.map((row) => Buffer.concat(row.map(lenenc)));
  return [Buffer.from([names.length]), ...names.map(column), EOF, ...values, EOF];
}

/** A command from the replica: its code, its payload after the code, and how to answer it. */
export interface Command {
  code: number;
  body: Buffer;
  socket: Socket;
  /** Writes these packets, numbered from 1. */
  answer(packets: Buffer[]): void;
}

export interface FakePrimary {
  port: number;
  /** How many connections were made. */
  connections: number;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1; greets each connection, sends OK to any login, and hands every command after it
 * to `onCommand`. Each connection's commands are read one packet at a time (no packet here spans frames).
 */
export async function startFakePrimary(serverVersion: string, onCommand: (c: Command) => void): Promise<FakePrimary> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.write(frame(0, greeting(serverVersion)));
    let loggedIn = false;
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3);
        if (pending.length < 4 + length) return;
        const sequenceId = pending[3]!;
        const payload = pending.subarray(4, 4 + length);
        pending = pending.subarray(4 + length);
        if (!loggedIn) {
          loggedIn = true;
          socket.write(frame(sequenceId + 1, OK));
          continue;
        }
        const answer = (packets: Buffer[]) => socket.write(Buffer.concat(packets.map((p, i) => frame(i + 1, p))));
        onCommand({ code: payload[0]!, body: Buffer.from(payload.subarray(1)), socket, answer });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** COM_QUERY, COM_REGISTER_SLAVE and COM_BINLOG_DUMP's codes. */
export const COM_QUERY = 0x03;
export const COM_REGISTER_SLAVE = 0x15;
export const COM_BINLOG_DUMP = 0x12;

/**
 * The session a replica sets up before its dump, answered as a MySQL 8 primary would: the version query
 * gets a row (checksums off), any other query and the registration an OK. `dump` answers the dump command.
 */
export function sessionThen(dump: (c: Command) => void): (c: Command) => void {
  return (c) => {
    const query = c.code === COM_QUERY ? c.body.toString() : undefined;
    if (query?.includes('VERSION()')) c.answer(resultSet({ version: '8.0.36', checksum: 'NONE' }));
    else if (c.code === COM_QUERY || c.code === COM_REGISTER_SLAVE) c.answer([OK]);
    else if (c.code === COM_BINLOG_DUMP) dump(c);
  };
}
