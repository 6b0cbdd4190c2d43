/**
 * TLS for the binlog server: the SSLRequest (schemas/replication.yaml) a client sends first when it
 * wants TLS, recognized, and the server-side TLS socket that then runs over the connection's socket.
 * mysql2's server side has no TLS of its own; protocol/mysql2-adapter.ts puts this takeover into its
 * handshake.
 */
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import { ClientCapabilities, decodeSslRequestPacket } from '../generated/replication.js';
import type { TlsTakeover } from '../protocol/mysql2-adapter.js';
import { OUTSIDE_ANY_BINLOG } from '../protocol/packets.js';
import { Reader } from '../runtime/core/reader.js';

const SSL_REQUEST_LENGTH = 32;

/** Whether a client's reply to the greeting is an SSLRequest. */
function isSslRequest(payload: Uint8Array): boolean {
  if (payload.length !== SSL_REQUEST_LENGTH) return false;
  const request = decodeSslRequestPacket(new Reader(payload), OUTSIDE_ANY_BINLOG);
  return (request.capabilities & ClientCapabilities.CLIENT_SSL) !== 0;
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

/** How the handshake answers an SSLRequest: by going over to TLS under `context`. */
export function tlsTakeover(context: SecureContext): TlsTakeover {
  return {
    asks: isSslRequest,
    secure: (raw, already) => new TLSSocket(afterRequest(raw, already), { isServer: true, secureContext: context }),
  };
}
