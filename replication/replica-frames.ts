/**
 * A dump's events as the source sends them, undecoded: each with the file it belongs to and its offset
 * there, and marked when the file does not hold it there (BinlogEvent.notInFile). The source says which
 * are its file's: one it makes up (the ROTATE that names the file a dump starts in, MariaDB's GTID_LIST
 * of the replica's position) carries LOG_EVENT_ARTIFICIAL_F, the fake ROTATE also timestamp 0 and
 * log_pos 0 (sql_repl.cc's fake_event_header: "so that slave could distinguish between real and fake
 * Rotate events"), and the file's FORMAT_DESCRIPTION (and MariaDB's START_ENCRYPTION after it) resent
 * before a start past it, log_pos 0. Any other event is the file's: it carries its end offset as log_pos,
 * or 0 where the server wrote 0 (MariaDB 11.8's QUERY events inside a transaction), and is then where the
 * one before it ended.
 */
import type { Context } from '../generated/context.js';
import { decodeRotateEvent } from '../generated/control.js';
import { EventTypes } from '../generated/events.js';
import { CHECKSUM_LENGTH, EVENT_HEADER_LENGTH, EventFlags, EventHeaderOffsets } from '../generated/header.js';
import type { BinlogEventPacket } from '../generated/replication.js';
import { ConnectionError, LengthError } from '../runtime/core/errors.js';
import { Reader } from '../runtime/core/reader.js';
import type { NotInFile } from '../runtime/events/event-codec.js';
import { binlogPacket } from '../protocol/packets.js';
import type { Dump } from './replica-dump.js';

export interface LiveFrame {
  /** The binlog file the event is in (for one not in a file: the file the dump is in). */
  file: string;
  /** Its offset in `file` (for one not in a file: the offset of the next event that is). */
  pos: number;
  /** The whole event, header to checksum, as the file holds it. */
  bytes: Uint8Array;
  typeCode: number;
  notInFile?: NotInFile;
}

const HEARTBEATS: ReadonlySet<number> = new Set([EventTypes.HEARTBEAT_LOG_EVENT, EventTypes.HEARTBEAT_LOG_EVENT_V2]);

/**
 * The events of a dump, until its end: the source's EOF (a non-blocking dump at the end of the last
 * binlog), or, with `untilFile`, the ROTATE that ends the start file. An ERR ends it with the
 * source's error (a ServerError); a connection lost, with a ConnectionError.
 */
export async function* liveFrames(dump: Dump, untilFile: boolean): AsyncGenerator<LiveFrame> {
  let file = dump.start.file;
  let cursor = dump.start.position;
  for await (const packet of dump.packets) {
    const p = binlogPacket(packet);
    if (p.status !== 'BINLOG_PACKET_OK') return; // the EOF: an ERR has thrown as it was read
    const bytes = (p.body as BinlogEventPacket).event;
    if (bytes.length < EVENT_HEADER_LENGTH)
      throw new ConnectionError(`the server sent an event of ${bytes.length} bytes, shorter than its header`);
    const typeCode = bytes[EventHeaderOffsets.typeCode]!;
    checkSize(bytes, cursor, typeCode);
    const logPos = u32(bytes, EventHeaderOffsets.logPos);
    const notInFile: NotInFile | undefined = HEARTBEATS.has(typeCode)
      ? 'heartbeat'
      : madeUp(bytes, typeCode, logPos)
        ? 'artificial'
        : undefined;
    const rotate = typeCode === EventTypes.ROTATE_EVENT ? rotation(bytes, dump.start.checksums) : undefined;
    if (notInFile) {
      // The fake ROTATE names the file the next events are in, and where in it they start.
      if (rotate && notInFile === 'artificial') ({ file, position: cursor } = rotate);
      yield { file, pos: cursor, bytes, typeCode, notInFile };
      continue;
    }
    const end = logPos === 0 ? cursor + bytes.length : logPos;
    yield { file, pos: end - bytes.length, bytes, typeCode };
    cursor = end;
    if (rotate) {
      if (untilFile) return;
      ({ file, position: cursor } = rotate);
    }
  }
}

/**
 * An event's header gives its size, and the packet holds the event: a size that differs from the packet's
 * (a hostile or broken source) would have the decoder read past the event, so the dump stops there.
 * `at` is where the event would be in its file.
 */
function checkSize(bytes: Uint8Array, at: number, typeCode: number): void {
  const size = u32(bytes, EventHeaderOffsets.eventSize);
  if (size === bytes.length) return;
  const problem = `the server sent an event whose header gives ${size} bytes in a packet that holds ${bytes.length}`;
  throw new LengthError(problem, { offset: at + EventHeaderOffsets.eventSize, eventPos: at, eventType: typeCode });
}

/**
 * Whether the source made the event up: flagged so, or one of those it sends with log_pos 0 (a FORMAT_DESCRIPTION is
 * the file's first event and MariaDB's START_ENCRYPTION its second, which never end at 0; both are resent so before a
 * start past them).
 */
function madeUp(bytes: Uint8Array, typeCode: number, logPos: number): boolean {
  const flags = bytes[EventHeaderOffsets.flags]! | (bytes[EventHeaderOffsets.flags + 1]! << 8);
  if ((flags & EventFlags.LOG_EVENT_ARTIFICIAL_F) !== 0) return true;
  if (logPos !== 0) return false;
  return (
    typeCode === EventTypes.FORMAT_DESCRIPTION_EVENT ||
    typeCode === EventTypes.START_ENCRYPTION_EVENT ||
    (typeCode === EventTypes.ROTATE_EVENT && u32(bytes, EventHeaderOffsets.timestamp) === 0)
  );
}

/** The next file and offset a ROTATE names, read by the schema's decoder. */
function rotation(bytes: Uint8Array, checksums: boolean): { file: string; position: number } {
  const r = new Reader(bytes, EVENT_HEADER_LENGTH, bytes.length - (checksums ? CHECKSUM_LENGTH : 0));
  const rotate = decodeRotateEvent(r, { binlogVersion: 4 } as Context);
  const name = rotate.nextFile;
  return {
    file: typeof name === 'string' ? name : Buffer.from(name).toString('latin1'),
    position: Number(rotate.position ?? 4n),
  };
}

function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}
