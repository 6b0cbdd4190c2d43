/**
 * The event groups of a binlog that a replica starting by GTID already has, left out of its dump:
 * - MySQL (COM_BINLOG_DUMP_GTID): each transaction of the replica's GTID set, from its GTID event to the
 *   next transaction's.
 * - MariaDB (@slave_connect_state), as sql_repl.cc's send_event_to_slave skips them: per domain, every
 *   group up to the replica's GTID of that domain (one of another server, or with a sequence number not
 *   above it), from its GTID event to its end (its commit, or a standalone group's statement). Reaching
 *   the replica's GTID, the domain's later groups are all sent, and at the end of that group the replica
 *   is told the GTIDs seen so far in a fake GTID_LIST, as MariaDB does (for MASTER_GTID_WAIT).
 * Events outside any group (ROTATE, STOP, BINLOG_CHECKPOINT…) are always sent.
 */
import { EventTransactions, EventTypeNames, EventTypes } from '../generated/events.js';
import type { MysqlGtidSet } from '../protocol/gtid-sets.js';
import type { FramedEvent } from '../runtime/events/event-codec.js';
import { Transactions } from '../runtime/io/transactions.js';
import type { LogFrames } from './source-frames.js';
import type { Gtid } from './source-gtids.js';

/** Which frames of one binlog are left out. */
export interface Skipper {
  /** Whether this frame (the next of the binlog) is left out. */
  skips(frame: FramedEvent): boolean;
  /** After a frame: the GTIDs a fake GTID_LIST tells the replica now, if one is due. */
  told(): Gtid[] | undefined;
}

const MYSQL_GTIDS: ReadonlySet<number> = new Set([EventTypes.GTID_LOG_EVENT, EventTypes.GTID_TAGGED_LOG_EVENT]);

/** MySQL: from a GTID event of the set to the next GTID (or anonymous GTID) event. */
export function mysqlSkipper(set: MysqlGtidSet, frames: LogFrames): Skipper {
  let skipping = false;
  return {
    skips(frame) {
      if (MYSQL_GTIDS.has(frame.typeCode)) skipping = set.has(frames.decode(frame));
      else if (frame.typeCode === EventTypes.ANONYMOUS_GTID_LOG_EVENT) skipping = false;
      else if (EventTransactions[EventTypeNames[frame.typeCode] ?? ''] === 'outside') return false;
      return skipping;
    },
    told: () => undefined,
  };
}

/**
 * MariaDB: the groups of each domain up to the replica's GTID there; `pending` is shared by the binlogs of one dump.
 */
export class MariadbSkipper implements Skipper {
  private skipping = false;
  private tell = false;
  private readonly groups = new Transactions();

  constructor(
    private readonly frames: LogFrames,
    /** Per domain, the replica's GTID not reached yet (the entry goes when it is). */
    private readonly pending: Map<number, { server: number; seq: bigint }>,
    /** The GTIDs read in this dump while some domain was pending: what the fake GTID_LIST says. */
    private readonly seen: Map<number, Map<number, bigint>>,
  ) {}

  skips(frame: FramedEvent): boolean {
    if (frame.typeCode === EventTypes.GTID_EVENT && this.pending.size > 0) return this.groupStart(frame);
    if (!this.skipping) return false;
    const at = this.groups.step(this.frames.decode(frame));
    if (at.outside || at.begins) {
      this.skipping = false;
      return this.skips(frame);
    }
    if (at.ends) this.skipping = false;
    return true;
  }

  private groupStart(frame: FramedEvent): boolean {
    const e = this.frames.decode(frame);
    this.groups.step(e);
    if (e.type !== 'GTID_EVENT') return false;
    const g = { domain: e.domainId, server: e.header.serverId, seq: e.seqNo };
    const servers = this.seen.get(g.domain) ?? new Map<number, bigint>();
    // Each domain keeps its servers in the order of their last GTID, the domain's last one last, as a
    // GTID_LIST holds them.
    servers.delete(g.server);
    this.seen.set(g.domain, servers.set(g.server, g.seq));
    const wanted = this.pending.get(g.domain);
    this.skipping = wanted !== undefined && (g.server !== wanted.server || g.seq <= wanted.seq);
    if (wanted && g.server === wanted.server && g.seq >= wanted.seq) {
      this.pending.delete(g.domain);
      this.tell = true;
    }
    return this.skipping;
  }

  told(): Gtid[] | undefined {
    if (!this.tell || this.skipping) return undefined;
    this.tell = false;
    return [...this.seen].flatMap(([domain, servers]) =>
      [...servers].map(([server, seq]) => ({ domain, server, seq })),
    );
  }
}
