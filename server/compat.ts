/**
 * What a MariaDB source sends a replica that does not know all of MariaDB's events, by its
 * @mariadb_slave_capability (schemas/replication.yaml's MariadbSlaveCapability), as sql_repl.cc's
 * send_event_to_slave does:
 * - ANNOTATE_ROWS the replica did not ask for (BINLOG_SEND_ANNOTATE_ROWS_EVENT): left out for one that
 *   tolerates holes, sent to one that knows it, a dummy for any other;
 * - below GTID: each GTID event a BEGIN query of its size (Query_log_event::begin_event); a standalone
 *   group's, which no COMMIT ends, left out, or a dummy where holes are not tolerated; GTID_LIST left
 *   out or a dummy;
 * - below BINLOG_CHECKPOINT: BINLOG_CHECKPOINT left out or a dummy.
 * A dummy (Query_log_event::dummy_event) has the event's size, so that a replica that counts offsets
 * stays right: a QUERY of a comment, or for an event too small for one, a NULL user variable.
 */
import { EventTypes } from '../generated/events.js';
import { CHECKSUM_LENGTH, EVENT_HEADER_LENGTH, EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { GtidFlags } from '../generated/mariadb.js';
import { MariadbSlaveCapability as Capability } from '../generated/replication.js';
import { EventEncoder, type BinlogEventInput, type FramedEvent } from '../runtime/events/event-codec.js';
import type { LogFormat, LogFrames } from './source-frames.js';

/** What the replica gets in place of an event. */
type Treatment = 'send' | 'drop' | 'dummy' | 'begin';

/** QUERY's post-header (thread id, exec time, db length, error code, status vars length) and the database's NUL. */
const QUERY_FIXED = 13 + 1;
/** USER_VAR's name length and its is-NULL byte. */
const USER_VAR_FIXED = 4 + 1;
/** sql/log_event.cc's dummy_event: the comment, and the NULL variable's name (as much as fits). */
const DUMMY_COMMENT = (type: number) => `# Dummy event replacing event type ${type} that slave cannot handle.`;
const DUMMY_VARIABLE = '!dummyvar';

export function treatment(
  typeCode: number,
  standalone: () => boolean,
  capability: number,
  annotate: boolean,
): Treatment {
  const holes = capability >= Capability.MARIA_SLAVE_CAPABILITY_TOLERATE_HOLES;
  const unknown: Treatment = holes ? 'drop' : 'dummy';
  switch (typeCode) {
    case EventTypes.ANNOTATE_ROWS_EVENT:
      return annotate || (!holes && capability >= Capability.MARIA_SLAVE_CAPABILITY_ANNOTATE) ? 'send' : unknown;
    case EventTypes.GTID_EVENT:
      return capability >= Capability.MARIA_SLAVE_CAPABILITY_GTID ? 'send' : standalone() ? unknown : 'begin';
    case EventTypes.GTID_LIST_EVENT:
      return capability >= Capability.MARIA_SLAVE_CAPABILITY_GTID ? 'send' : unknown;
    case EventTypes.BINLOG_CHECKPOINT_EVENT:
      return capability >= Capability.MARIA_SLAVE_CAPABILITY_BINLOG_CHECKPOINT ? 'send' : unknown;
    default:
      return 'send';
  }
}

/** One binlog's events as a replica of some capability gets them. */
export class ReplicaEvents {
  private readonly encoder = new EventEncoder();

  constructor(
    private readonly format: LogFormat,
    private readonly capability: number,
    private readonly annotate: boolean,
  ) {
    this.encoder.encode(format.event, 4);
  }

  /** The event as this replica gets it, undefined when it is left out; an Error when it cannot be replaced. */
  of(frame: FramedEvent, frames: LogFrames): Uint8Array | undefined {
    const standalone = () => {
      const e = frames.decode(frame);
      return e.type === 'GTID_EVENT' && (e.flags & GtidFlags.FL_STANDALONE) !== 0;
    };
    const t = treatment(frame.typeCode, standalone, this.capability, this.annotate);
    if (t === 'send') return frame.bytes;
    if (t === 'drop') return undefined;
    return t === 'begin' ? this.begin(frame.bytes) : this.dummy(frame.bytes);
  }

  /** The length of the event without its CRC32. */
  private dataLength(bytes: Uint8Array): number {
    return bytes.length - (this.format.checksums ? CHECKSUM_LENGTH : 0);
  }

  private dummy(bytes: Uint8Array): Uint8Array {
    const room = this.dataLength(bytes) - EVENT_HEADER_LENGTH;
    if (room < USER_VAR_FIXED + 1)
      throw new Error(
        `an event of type ${bytes[EventHeaderOffsets.typeCode]} is too small (${bytes.length} bytes) ` +
          `to be replaced by a dummy for this replica`,
      );
    const header = headerOf(bytes);
    if (room < QUERY_FIXED + 1)
      return this.sameSize(bytes, {
        type: 'USER_VAR_EVENT',
        header,
        name: DUMMY_VARIABLE.slice(0, room - USER_VAR_FIXED),
        isNull: 1,
      });
    const comment = DUMMY_COMMENT(bytes[EventHeaderOffsets.typeCode]!)
      .slice(0, room - QUERY_FIXED)
      .padEnd(room - QUERY_FIXED, ' ');
    return this.sameSize(bytes, {
      type: 'QUERY_EVENT',
      header,
      threadId: 0,
      execTime: 0,
      errorCode: 0,
      statusVars: [],
      schema: '',
      query: comment,
    });
  }

  /** A GTID event as a BEGIN: its 2 more bytes, when it has a commit id, an empty time zone status variable. */
  private begin(bytes: Uint8Array): Uint8Array {
    const extra = this.dataLength(bytes) - EVENT_HEADER_LENGTH - QUERY_FIXED - 'BEGIN'.length;
    if (extra !== 0 && extra !== 2)
      throw new Error(
        `a GTID event of ${bytes.length} bytes cannot be replaced by a BEGIN of its size for this replica`,
      );
    const statusVars = extra ? [{ code: 'Q_TIME_ZONE_CODE' as const, timeZone: '' }] : [];
    return this.sameSize(bytes, {
      type: 'QUERY_EVENT',
      header: headerOf(bytes),
      threadId: 0,
      execTime: 0,
      errorCode: 0,
      statusVars,
      schema: '',
      query: 'BEGIN',
    });
  }

  /** The event that replaces `bytes`, encoded and checked to be as long. */
  private sameSize(bytes: Uint8Array, replacement: BinlogEventInput): Uint8Array {
    const out = this.encoder.encode(replacement, 0);
    if (out.length !== bytes.length)
      throw new Error(`the ${replacement.type} replacing an event of ${bytes.length} bytes came out at ${out.length}`);
    return out;
  }
}

/** The header of the event a replacement stands for: its own, except that it is not thread-specific and has no USE. */
function headerOf(bytes: Uint8Array): BinlogEventInput['header'] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const flags =
    (view.getUint16(EventHeaderOffsets.flags, true) & ~EventFlags.LOG_EVENT_THREAD_SPECIFIC_F) |
    EventFlags.LOG_EVENT_SUPPRESS_USE_F;
  return {
    timestamp: view.getUint32(EventHeaderOffsets.timestamp, true),
    serverId: view.getUint32(EventHeaderOffsets.serverId, true),
    logPos: view.getUint32(EventHeaderOffsets.logPos, true),
    flags,
  };
}
