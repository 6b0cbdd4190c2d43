/**
 * A dump, the source's side: for each binlog from the one asked for, the fake ROTATE that names it and
 * where the events start, its FORMAT_DESCRIPTION, then its events from there, each in a BinlogPacket
 * (schemas/replication.yaml); at the end of the last binlog an EOF (BINLOG_DUMP_NON_BLOCK) or, while
 * waiting for more, heartbeats. What a real source sends is sent the same way (MariaDB's
 * sql/sql_repl.cc, MySQL's rpl_binlog_sender.cc): the FORMAT_DESCRIPTION resent before a start past it
 * with log_pos 0, the in-use flag never sent, and for a replica that did not ask for checksums
 * (@master_binlog_checksum) every CRC32 taken off, the FORMAT_DESCRIPTION's algorithm set to none.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { ChecksumAlg, FormatDescriptionEventOffsets } from '../generated/control.js';
import { EventTypes } from '../generated/events.js';
import { CHECKSUM_LENGTH, EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { encodeBinlogPacket } from '../generated/replication.js';
import { EventEncoder, type BinlogEventInput, type FramedEvent } from '../runtime/events/event-codec.js';
import { eventCrc } from '../runtime/events/format-state.js';
import { packet } from '../protocol/packets.js';
import { encryptionProblem, LogFrames, logFormat, type LogFormat } from './source-frames.js';
import type { Gtid, LogPlace } from './source-gtids.js';
import type { ServedLog, ServedLogs } from './logs.js';
import type { Skipper } from './skip.js';
import { ReplicaEvents } from './compat.js';

/** What a replica asked for, once the start is found. */
export interface DumpRequest {
  start: LogPlace;
  /** BINLOG_DUMP_NON_BLOCK: end with an EOF at the end of the last binlog, rather than wait. */
  nonBlock: boolean;
  /** Whether the replica reads CRC32s (its @master_binlog_checksum). */
  checksums: boolean;
  /** Milliseconds between heartbeats while there is nothing to send (0: none). */
  heartbeatMs: number;
  /** The server id the made-up events carry (the source's). */
  serverId: number;
  /** The replica's @mariadb_slave_capability (0 when it set none), and whether it asked for ANNOTATE_ROWS. */
  capability: number;
  annotate: boolean;
  /** A GTID start: what of each binlog the replica has, not sent. */
  skip?: (frames: LogFrames) => Skipper;
  /**
   * A MariaDB GTID start: whether the replica's position is still ahead (its temporary tables are then kept: the
   * FORMAT_DESCRIPTION says no `created`).
   */
  ahead?: () => boolean;
}

/** Where a dump's packets go. */
export interface PacketSink {
  /** Sends one packet, resolving when the connection can take more. */
  send(payload: Uint8Array): Promise<void>;
  /** Aborted when the replica goes away. */
  readonly gone: AbortSignal;
}

/** A dump that cannot go on: what the replica is told in an ERR packet (1236, as both servers). */
export class DumpError extends Error {}

/** How often a growing binlog is looked at again. */
const POLL_MS = 100;

/** Sends the dump until the replica goes away, the EOF of a non-blocking dump, or a DumpError. */
export async function sendDump(logs: ServedLogs, request: DumpRequest, sink: PacketSink): Promise<void> {
  let { log: index, pos } = request.start;
  for (;;) {
    const list = await logs.list();
    const log = list[index]!;
    const format = await logFormat(log);
    if (!format) throw new DumpError(`${log.name} is too short to hold its FORMAT_DESCRIPTION_EVENT`);
    const problem = await encryptionProblem(log, format);
    if (problem) throw new DumpError(problem);
    const made = new MadeEvents(format, request);
    await sink.send(made.packet(made.rotate(log.name, pos)));
    await sink.send(made.packet(made.formatDescription(pos > 4, pos > 4 || (request.ahead?.() ?? false))));
    // A start past it gets the START_ENCRYPTION still, as MariaDB sends it after the FORMAT_DESCRIPTION.
    const start = format.startEncryption;
    if (start && pos > 4) await sink.send(made.packet(made.asSent(made.startEncryption(start.bytes, true))));
    const frames = new LogFrames(log, pos === 4 ? 4 + format.bytes.length : pos);
    const replica = new ReplicaEvents(format, request.capability, request.annotate);
    const next = await sendLog(logs, index, { frames, made, replica }, request, sink);
    if (next === undefined) return;
    index = next;
    pos = 4;
  }
}

/**
 * One binlog being sent: its frames, the events made up under its FORMAT_DESCRIPTION, and the replica's view of its
 * events.
 */
interface LogSend {
  frames: LogFrames;
  made: MadeEvents;
  replica: ReplicaEvents;
}

/** The events of one binlog; the index of the next binlog to go on with, or undefined when the dump ends. */
async function sendLog(
  logs: ServedLogs,
  index: number,
  { frames, made, replica }: LogSend,
  request: DumpRequest,
  sink: PacketSink,
): Promise<number | undefined> {
  let idleSince = Date.now();
  const skip = request.skip?.(frames);
  for (;;) {
    if (sink.gone.aborted) return undefined;
    const frame = await nextFrame(frames);
    if (frame) {
      const sent = skip?.skips(frame) ? undefined : asReplicaGets(replica, frame, frames, made);
      if (sent) await sink.send(made.packet(made.asSent(sent)));
      const told = skip?.told();
      if (told) await sink.send(made.packet(made.gtidList(told, frames.pos)));
      idleSince = Date.now();
      continue;
    }
    // This binlog has ended for now (after its ROTATE, or without one when its server never closed it):
    // the dump goes on with the next binlog if there is one, else it ends or waits for more.
    if ((await logs.list()).length > index + 1) return index + 1;
    if (request.nonBlock) {
      await sink.send(
        packet(encodeBinlogPacket, { status: 'BINLOG_PACKET_EOF', body: { warnings: 0, statusFlags: 0 } }),
      );
      return undefined;
    }
    if (!(await pause(logs.growing ? POLL_MS : request.heartbeatMs || POLL_MS * 50, sink.gone))) return undefined;
    if (request.heartbeatMs > 0 && Date.now() - idleSince >= request.heartbeatMs) {
      await sink.send(made.packet(made.heartbeat(frames.log, frames.pos)));
      idleSince = Date.now();
    }
  }
}

function asReplicaGets(
  replica: ReplicaEvents,
  frame: FramedEvent,
  frames: LogFrames,
  made: MadeEvents,
): Uint8Array | undefined {
  if (frame.typeCode === EventTypes.START_ENCRYPTION_EVENT) return made.startEncryption(frame.bytes, false);
  try {
    return replica.of(frame, frames);
  } catch (e) {
    throw new DumpError(`${frames.log.name}, at ${frame.pos}: ${(e as Error).message}`);
  }
}

async function nextFrame(frames: LogFrames) {
  try {
    return await frames.next();
  } catch (e) {
    // A start inside an event, or a damaged event, ends the dump, and the replica is told why in the framer's words.
    throw new DumpError(`${frames.log.name}: ${(e as Error).message}`);
  }
}

/** Waits `ms`; false when the replica went away meanwhile. */
async function pause(ms: number, gone: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: gone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The events a source makes up, encoded under the binlog's FORMAT_DESCRIPTION by the encoder of the
 * schemas, and the file's events made ready to send.
 */
class MadeEvents {
  private readonly encoder = new EventEncoder();

  constructor(
    private readonly format: LogFormat,
    private readonly request: DumpRequest,
  ) {
    this.encoder.encode(format.event, 4);
  }

  /** The fake ROTATE: the binlog the next events are in, and the offset of the first. */
  rotate(name: string, pos: number): Uint8Array {
    return this.made({ type: 'ROTATE_EVENT', position: BigInt(pos), nextFile: name } as Partial<BinlogEventInput>);
  }

  /** A heartbeat: where the source stands (log_pos), in which binlog. */
  heartbeat(log: ServedLog, pos: number): Uint8Array {
    return this.made({ type: 'HEARTBEAT_LOG_EVENT', logFile: log.name } as Partial<BinlogEventInput>, pos);
  }

  /**
   * MariaDB's fake GTID_LIST: the GTIDs a GTID dump has read, sent where the replica's position is reached (log_pos:
   * the end of the last event read).
   */
  gtidList(gtids: Gtid[], pos: number): Uint8Array {
    const list = gtids.map((g) => ({ domainId: g.domain, serverId: g.server, seqNo: g.seq }));
    return this.made(
      { type: 'GTID_LIST_EVENT', countAndFlags: list.length, gtids: list } as Partial<BinlogEventInput>,
      pos,
    );
  }

  private made(body: Partial<BinlogEventInput>, logPos = 0): Uint8Array {
    const header = { timestamp: 0, serverId: this.request.serverId, flags: EventFlags.LOG_EVENT_ARTIFICIAL_F, logPos };
    return this.encoder.encode({ ...body, header } as BinlogEventInput, 0);
  }

  /**
   * The binlog's FORMAT_DESCRIPTION as sent: without the in-use flag, resent (log_pos 0) before a later
   * start, without its `created` time when the replica has been here before (a created time has a
   * replica drop its temporary tables), and for a replica without checksums its algorithm none. A
   * checksum-aware server's FORMAT_DESCRIPTION keeps its CRC32 even then (as in a binlog_checksum=NONE
   * file); its CRC is that of its bytes without the in-use flag, computed again for what changed.
   */
  formatDescription(resent: boolean, returning: boolean): Uint8Array {
    const bytes = this.format.bytes.slice();
    bytes[EventHeaderOffsets.flags] &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
    if (resent) bytes.fill(0, EventHeaderOffsets.logPos, EventHeaderOffsets.logPos + 4);
    const created = EventHeaderOffsets.end + FormatDescriptionEventOffsets.createTimestamp;
    if (returning) bytes.fill(0, created, created + 4);
    if (!this.format.checksums) return bytes;
    const crcAt = bytes.length - CHECKSUM_LENGTH;
    if (!this.request.checksums) bytes[crcAt - 1] = ChecksumAlg.BINLOG_CHECKSUM_ALG_OFF;
    new DataView(bytes.buffer).setUint32(crcAt, eventCrc(bytes, crcAt, crc32), true);
    return bytes;
  }

  /**
   * The file's START_ENCRYPTION as a MariaDB primary sends it (sql_repl.cc, send_format_descriptor_event): flagged
   * LOG_EVENT_IGNORABLE_F, as the events after it go decrypted and a replica has no use for it but its place; its
   * log_pos 0 when resent before a later start; its CRC32 computed again.
   */
  startEncryption(stored: Uint8Array, resent: boolean): Uint8Array {
    const bytes = stored.slice();
    const view = new DataView(bytes.buffer);
    view.setUint16(
      EventHeaderOffsets.flags,
      view.getUint16(EventHeaderOffsets.flags, true) | EventFlags.LOG_EVENT_IGNORABLE_F,
      true,
    );
    if (resent) view.setUint32(EventHeaderOffsets.logPos, 0, true);
    if (!this.format.checksums) return bytes;
    const crcAt = bytes.length - CHECKSUM_LENGTH;
    view.setUint32(crcAt, eventCrc(bytes, crcAt, crc32), true);
    return bytes;
  }

  /** An event of the file as the replica reads it: without its CRC32 when it did not ask for them. */
  asSent(bytes: Uint8Array): Uint8Array {
    if (!this.format.checksums || this.request.checksums) return bytes;
    const out = bytes.slice(0, bytes.length - CHECKSUM_LENGTH);
    new DataView(out.buffer).setUint32(EventHeaderOffsets.eventSize, out.length, true);
    return out;
  }

  packet(event: Uint8Array): Uint8Array {
    return packet(encodeBinlogPacket, { status: 'BINLOG_PACKET_OK', body: { event } });
  }
}
