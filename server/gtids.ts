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

/**
 * Where a dump for a replica at `state` starts: the first transaction of a domain past the state's GTID
 * of that domain (a domain the state does not name, from its first). Each GTID of the state must be in
 * the binlogs (a GTID event, or a GTID_LIST that says it came before): a replica ahead of them, or on
 * another history, would otherwise get transactions it has, or miss some. Undefined: nothing to send
 * yet (the end of the last log); a string: why the state cannot be served.
 */
export async function gtidStart(logs: ServedLog[], state: MariadbGtidState): Promise<LogPlace | string | undefined> {
  const wanted = state.entries();
  const found = new Set<number>();
  let start: LogPlace | undefined;
  for await (const m of marks(logs)) {
    for (const g of m.gtids) {
      const w = wanted.get(g.domain);
      if (w && w.seq === g.seq && w.server === g.server) found.add(g.domain);
    }
    const g = m.gtids[0]!;
    if (m.begins && !start && !(wanted.has(g.domain) && g.seq <= wanted.get(g.domain)!.seq)) start = m.place;
  }
  const missing = [...wanted].filter(([d]) => !found.has(d));
  if (missing.length) {
    const names = missing.map(([d, g]) => `${d}-${g.server}-${g.seq}`).join(', ');
    return `the replica asks to start after GTID ${names}, which is in none of the served binlogs (${logs.map((l) => l.name).join(', ')})`;
  }
  return start;
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
