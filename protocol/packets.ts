/**
 * The packets of schemas/replication.yaml, written and read outside any binlog: what the replica and the
 * source both send and read (a command's payload, a dump's packets, an ERR).
 */
import type { Context } from '../generated/context.js';
import { decodeBinlogPacket, decodeErrPacket, type BinlogPacket } from '../generated/replication.js';
import { ServerError } from '../runtime/core/errors.js';
import { Reader, type Text } from '../runtime/core/reader.js';
import { Writer } from '../runtime/core/writer.js';

/** The packets read nothing of a binlog's context (no format, no tables), so an empty one serves them all. */
export const OUTSIDE_ANY_BINLOG = {} as Context;

/** A command's payload, as the schema's encoder writes it. */
export function packet<T>(encode: (w: Writer, v: T, ctx: Context) => void, value: T): Uint8Array {
  const w = new Writer();
  encode(w, value, OUTSIDE_ANY_BINLOG);
  return w.finish();
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
