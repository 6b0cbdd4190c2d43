/**
 * TLS for the binlog server. mysql2's server side has none: its ServerHandshake reads the client's first
 * packet as the handshake response, with no case for the SSLRequest (schemas/replication.yaml) a client
 * sends first when it wants TLS, and its Connection.startTLS is the client's. So, on a connection whose
 * handshake offered CLIENT_SSL, the step that reads the client's reply is wrapped: an SSLRequest has the
 * socket taken over by a server-side TLSSocket (mysql2's packet parser fed from it, its writes going to
 * it, as startTLS does for a client), and mysql2 then reads the handshake response that comes over TLS.
 * This reaches into mysql2's connection beyond its typings (the command's `next` step, `stream`,
 * `packetParser`), as the rest of the server does (`sequenceId`, `writePacket`).
 */
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import { ClientCapabilities, decodeSslRequestPacket } from '../generated/replication.js';
import type { Context } from '../generated/context.js';
import { Reader } from '../runtime/core/reader.js';

/** A command packet as mysql2 hands it over. */
interface RawPacket {
  buffer: Buffer;
  start: number;
  end: number;
}

type Step = (this: unknown, packet: RawPacket, connection: unknown) => unknown;

/** The parts of mysql2's server-side connection and handshake command that the TLS takeover uses. */
export interface TlsConnection {
  stream: Socket;
  packetParser: { execute(data: Buffer): void; onPacket: unknown };
}

const SSL_REQUEST_LENGTH = 32;
/** A packet's header: 3 bytes of length, 1 of sequence. */
const PACKET_HEADER_LENGTH = 4;

/** Whether a client's reply to the greeting is an SSLRequest. */
function isSslRequest(p: RawPacket): boolean {
  const payload = p.buffer.subarray(p.start + 4, p.end);
  if (payload.length !== SSL_REQUEST_LENGTH) return false;
  return (decodeSslRequestPacket(new Reader(payload), {} as Context).capabilities & ClientCapabilities.CLIENT_SSL) !== 0;
}

/**
 * The socket's bytes after the SSLRequest, those already read first (a client sends its TLS hello at
 * once, and it may come in the same read), as a stream a TLSSocket can run over; writes go to the socket.
 */
function afterRequest(raw: Socket, already: Uint8Array): Duplex {
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      raw.write(chunk, done);
    },
    final(done) {
      raw.end(done);
    },
  });
  if (already.length) stream.push(Buffer.from(already));
  raw.on('data', (d: Buffer) => stream.push(d));
  raw.on('end', () => stream.push(null));
  raw.on('close', () => stream.destroy());
  return stream;
}

/** Has the handshake answer an SSLRequest by going over to TLS under `context`. */
export function acceptTls(conn: TlsConnection, handshake: { next: Step }, context: SecureContext): void {
  const readReply = handshake.next;
  handshake.next = function (this: unknown, packet: RawPacket, connection: unknown) {
    if (!isSslRequest(packet)) return readReply.call(this, packet, connection);
    const raw = conn.stream;
    raw.removeAllListeners('data');
    const secure = new TLSSocket(afterRequest(raw, packet.buffer.subarray(packet.end)), { isServer: true, secureContext: context });
    // The parser that read the request goes on over the rest of that read (the TLS hello, a TLS record
    // it takes for the start of a packet too long to come): a new one reads what TLS gives.
    const Parser = conn.packetParser.constructor as new (onPacket: unknown, headerLength: number) => TlsConnection['packetParser'];
    const parser = new Parser(conn.packetParser.onPacket, PACKET_HEADER_LENGTH);
    conn.packetParser = parser;
    secure.on('data', (data: Buffer) => parser.execute(data));
    secure.on('error', () => raw.destroy());
    conn.stream = secure as unknown as Socket;
    // The handshake response comes next, over TLS.
    return readReply;
  };
}
