/** The replication packets of schemas/replication.yaml, written and read outside any binlog. */
import type { Context } from '../generated/context.js';
import { decodeBinlogPacket, decodeErrPacket, type BinlogPacket } from '../generated/replication.js';
import { ServerError } from '../runtime/core/errors.js';
import { Reader, type Text } from '../runtime/core/reader.js';
import { Writer } from '../runtime/core/writer.js';

/** The packets read nothing of a binlog's context (no format, no tables). */
const OUTSIDE_ANY_BINLOG = {} as Context;

/** A command's payload, as the schema's encoder writes it. */
export function packet<T>(encode: (w: Writer, v: T, ctx: Context) => void, value: T): Uint8Array {
  const w = new Writer();
  encode(w, value, OUTSIDE_ANY_BINLOG);
  return w.finish();
}

/**
 * A payload as mysql2's writePacket takes it (beyond its typings): a buffer with room for the 4-byte
 * packet header first, which writeHeader fills with the length and the sequence number it is given.
 */
export interface OutgoingPacket {
  buffer: Buffer;
  length(): number;
  writeHeader(seq: number): void;
}

export function outgoing(payload: Uint8Array): OutgoingPacket {
  const buffer = Buffer.alloc(4 + payload.length);
  buffer.set(payload, 4);
  return {
    buffer,
    length: () => buffer.length,
    writeHeader(seq: number) {
      buffer.writeUIntLE(payload.length, 0, 3);
      buffer[3] = seq;
    },
  };
}

/** One packet of a dump: an event, the EOF or an ERR. */
export function binlogPacket(bytes: Uint8Array): BinlogPacket {
  return decodeBinlogPacket(new Reader(bytes), OUTSIDE_ANY_BINLOG);
}

/** An ERR packet (one that answers any command, or ends a dump) as the error it reports. */
export function errFrom(bytes: Uint8Array): ServerError {
  const err = decodeErrPacket(new Reader(bytes, 1), OUTSIDE_ANY_BINLOG);
  return new ServerError(err.errorCode, text(err.sqlState), text(err.message));
}

/** A decoded string field as text: latin1 where it is not UTF-8 (names and messages of ASCII in practice). */
export function text(t: Text): string {
  return typeof t === 'string' ? t : Buffer.from(t).toString('latin1');
}
