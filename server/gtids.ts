/**
 * MariaDB GTIDs in the served binlogs: where a replica that gives its GTID state (@slave_connect_state)
 * starts, and the state at a file and offset (BINLOG_GTID_POS). Each binlog's GTID_LIST (the last GTID
 * of each domain before it) and its GTID events are read; nothing else is decoded.
 */
import { EventTypes } from '../generated/events.js';
import { EventDecoder } from '../runtime/events/event-codec.js';
import { MariadbGtidState } from '../replication/gtid.js';
import { LogFrames } from './frames.js';
import type { ServedLog } from './logs.js';

/** A place in the served binlogs: a log's index in the list, and an offset in it. */
export interface LogPlace {
  log: number;
  pos: number;
}

interface Mark {
  place: LogPlace;
  /** The GTIDs the event says were written: one (a GTID event) or a domain's each (a GTID_LIST). */
  gtids: { domain: number; server: number; seq: bigint }[];
  /** A GTID event, which begins a transaction (a GTID_LIST begins nothing). */
  begins: boolean;
}

/** The GTID and GTID_LIST events of the logs, in order, each decoded. */
async function* marks(logs: ServedLog[]): AsyncGenerator<Mark> {
  for (let i = 0; i < logs.length; i++) {
    const frames = new LogFrames(logs[i]!, 4);
    const decoder = new EventDecoder({ verifyChecksum: false });
    for (let f; (f = await frames.next()); ) {
      const code = f.typeCode;
      if (code !== EventTypes.FORMAT_DESCRIPTION_EVENT && code !== EventTypes.GTID_EVENT && code !== EventTypes.GTID_LIST_EVENT) continue;
      const e = decoder.decode(f.bytes, f.pos);
      const place = { log: i, pos: f.pos };
      if (e.type === 'GTID_EVENT') yield { place, gtids: [{ domain: e.domainId, server: e.header.serverId, seq: e.seqNo }], begins: true };
      else if (e.type === 'GTID_LIST_EVENT') yield { place, gtids: e.gtids.map((g) => ({ domain: g.domainId, server: g.serverId, seq: g.seqNo })), begins: false };
    }
  }
}

/** A GTID as the skipping compares it. */
export interface Gtid {
  domain: number;
  server: number;
  seq: bigint;
}

/**
 * A MariaDB GTID start, as sql_repl.cc finds it (check_slave_start_position, gtid_find_binlog_file): the
 * binlog to send from its first event, and per domain the replica's last GTID, up to which that domain's
 * event groups are not sent (a domain the replica has all of before the binlog is not in it).
 */
export interface GtidStart {
  log: number;
  skip: Map<number, { server: number; seq: bigint }>;
}

/** What the binlogs say of their GTIDs: each one's GTID_LIST, and the last sequence number of each domain and server. */
interface BinlogGtids {
  lists: (Gtid[] | undefined)[];
  last: Map<number, Map<number, bigint>>;
}

async function binlogGtids(logs: ServedLog[]): Promise<BinlogGtids> {
  const lists: (Gtid[] | undefined)[] = logs.map(() => undefined);
  const last = new Map<number, Map<number, bigint>>();
  for await (const m of marks(logs)) {
    if (!m.begins) lists[m.place.log] ??= m.gtids;
    for (const g of m.gtids) {
      if (!last.has(g.domain)) last.set(g.domain, new Map());
      last.get(g.domain)!.set(g.server, g.seq);
    }
  }
  return { lists, last };
}

/**
 * Where a dump for a replica at `state` starts. Each GTID of the state must be in the binlogs, as far as
 * its domain and server's sequence numbers there reach (a domain they do not have at all is another
 * source's, and allowed); a replica ahead of them, or on another history, would otherwise get
 * transactions it has, or miss some. The binlog is the newest whose GTID_LIST the state covers; a string
 * says why the state cannot be served.
 */
export async function gtidStart(logs: ServedLog[], state: MariadbGtidState): Promise<GtidStart | string> {
  const { lists, last } = await binlogGtids(logs);
  const missing = [...state.entries()].filter(([d, g]) => last.has(d) && !((last.get(d)!.get(g.server) ?? -1n) >= g.seq));
  if (missing.length) {
    const names = missing.map(([d, g]) => `${d}-${g.server}-${g.seq}`).join(', ');
    return `the replica asks to start after GTID ${names}, which is in none of the served binlogs (${logs.map((l) => l.name).join(', ')})`;
  }
  for (let i = logs.length - 1; i >= 0; i--) {
    const list = lists[i];
    if (list && !covers(state, list)) continue;
    const skip = new Map(state.entries());
    // A domain whose last GTID before this binlog is the replica's has nothing in it to leave out.
    for (const g of list ?? []) if (sameGtid(skip.get(g.domain), g)) skip.delete(g.domain);
    return { log: i, skip };
  }
  return `no served binlog begins at or before the replica's GTID state ${state} (the first served, ${logs[0]?.name}, begins after it): the binlogs it needs are not served`;
}

/**
 * Whether the replica at `state` needs nothing before a binlog whose GTID_LIST is `list` (sql_repl.cc's
 * contains_all_slave_gtid): it names each of the list's domains, and no GTID older than the list's of the
 * same server, nor the list's own unless that is the domain's last before the binlog.
 */
function covers(state: MariadbGtidState, list: Gtid[]): boolean {
  const wanted = state.entries();
  return list.every((g, i) => {
    const w = wanted.get(g.domain);
    if (!w) return false;
    if (w.server !== g.server || w.seq > g.seq) return true;
    return w.seq === g.seq && list[i + 1]?.domain !== g.domain;
  });
}

function sameGtid(a: { server: number; seq: bigint } | undefined, b: Gtid): boolean {
  return a !== undefined && a.server === b.server && a.seq === b.seq;
}

/** The GTID state at a place: the GTID_LIST of its log, grown by the GTIDs of the transactions before it. */
export async function gtidStateAt(logs: ServedLog[], at: LogPlace): Promise<string> {
  const state = new MariadbGtidState();
  for await (const m of marks(logs.slice(0, at.log + 1))) {
    if (m.place.log === at.log && m.place.pos >= at.pos) break;
    for (const g of m.gtids) state.set(g.domain, g.server, g.seq);
  }
  return state.toString();
}
