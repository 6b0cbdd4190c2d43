/**
 * GTIDs in the served binlogs: where a replica that starts by GTID starts (MariaDB's @slave_connect_state,
 * MySQL's COM_BINLOG_DUMP_GTID set), and MariaDB's GTID state at a file and offset (BINLOG_GTID_POS).
 * Each binlog's GTID_LIST or PREVIOUS_GTIDS (what came before it) and its GTID events are read; nothing
 * else is decoded.
 */
import { EventTypes } from '../generated/events.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { MariadbGtidState, MysqlGtidSet } from '../protocol/gtid-sets.js';
import { eventsOf } from './source-frames.js';
import type { ServedLog } from './logs.js';

/** A place in the served binlogs: a log's index in the list, and an offset in it. */
export interface LogPlace {
  log: number;
  pos: number;
}

interface Mark {
  place: LogPlace;
  /** The GTIDs the event says were written: one (a GTID event) or a domain's each (a GTID_LIST). */
  gtids: Gtid[];
  /** A GTID event, which begins a transaction (a GTID_LIST begins nothing). */
  begins: boolean;
}

const MARIADB_CODES: ReadonlySet<number> = new Set([EventTypes.GTID_EVENT, EventTypes.GTID_LIST_EVENT]);

/** MariaDB's GTID and GTID_LIST events of the logs, in order. */
async function* marks(logs: ServedLog[]): AsyncGenerator<Mark> {
  for await (const { place, event: e } of eventsOf(logs, MARIADB_CODES)) {
    if (e.type === 'GTID_EVENT')
      yield { place, gtids: [{ domain: e.domainId, server: e.header.serverId, seq: e.seqNo }], begins: true };
    else if (e.type === 'GTID_LIST_EVENT')
      yield {
        place,
        gtids: e.gtids.map((g) => ({ domain: g.domainId, server: g.serverId, seq: g.seqNo })),
        begins: false,
      };
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

/**
 * What the binlogs say of their GTIDs: each one's GTID_LIST, and the last sequence number of each domain and server.
 */
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
  const missing = [...state.entries()].filter(
    ([d, g]) => last.has(d) && !((last.get(d)!.get(g.server) ?? -1n) >= g.seq),
  );
  if (missing.length) {
    const names = missing.map(([d, g]) => `${d}-${g.server}-${g.seq}`).join(', ');
    return (
      `the replica asks to start after GTID ${names}, which is in none of the served binlogs ` +
      `(${logs.map((l) => l.name).join(', ')})`
    );
  }
  for (let i = logs.length - 1; i >= 0; i--) {
    const list = lists[i];
    if (list && !covers(state, list)) continue;
    const skip = new Map(state.entries());
    // A domain whose last GTID before this binlog is the replica's has nothing in it to leave out.
    for (const g of list ?? []) if (sameGtid(skip.get(g.domain), g)) skip.delete(g.domain);
    return { log: i, skip };
  }
  return (
    `no served binlog begins at or before the replica's GTID state ${state} (the first served, ` +
    `${logs[0]?.name}, begins after it): the binlogs it needs are not served`
  );
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

const MYSQL_CODES: ReadonlySet<number> = new Set([
  EventTypes.PREVIOUS_GTIDS_LOG_EVENT,
  EventTypes.GTID_LOG_EVENT,
  EventTypes.GTID_TAGGED_LOG_EVENT,
]);

/**
 * MySQL's two refusals of a GTID set (sql/share/messages_to_clients.txt, rpl_binlog_sender.cc's check_start_file), sent
 * as 1236.
 */
const SLAVE_HAS_MORE_GTIDS =
  "Slave has more GTIDs than the master has, using the master's SERVER_UUID. This may indicate that the end of the " +
  'binary log was truncated or that the last binary log file was lost, e.g., ' +
  'after a power or disk failure when sync_binlog != 1. The master may or may not have rolled back transactions ' +
  'that were already replicated to the slave. Suggest to replicate any transactions that master has rolled ' +
  'back from slave to master, and/or commit empty transactions on master to account for transactions that ' +
  'have been committed on master but are not included in GTID_EXECUTED.';
const MASTER_HAS_PURGED_GTIDS =
  'The slave is connecting using CHANGE MASTER TO MASTER_AUTO_POSITION = 1, ' +
  'but the master has purged binary logs containing GTIDs that the slave requires.';

/**
 * A MySQL GTID start: the binlog to send from, and whether its first transaction is one the replica has (its
 * FORMAT_DESCRIPTION then says no `created`).
 */
export interface MysqlGtidStart {
  log: number;
  ahead: boolean;
}

/**
 * Where a dump for a replica with the GTID set `has` starts, as MySQL's check_start_file finds it: the
 * newest binlog whose PREVIOUS_GTIDS the set holds. Refused, as MySQL refuses them: a set with
 * transactions of a source the binlogs have that they do not have (the replica is ahead of them, or
 * on another history; MySQL looks at its own UUID only, a binlog server cannot tell which that was), and
 * a set without all that came before the first binlog (its PREVIOUS_GTIDS: transactions not served).
 */
export async function mysqlGtidStart(logs: ServedLog[], has: MysqlGtidSet): Promise<MysqlGtidStart | string> {
  const before: (MysqlGtidSet | undefined)[] = logs.map(() => undefined);
  const first: (BinlogEvent | undefined)[] = logs.map(() => undefined);
  const executed = new MysqlGtidSet();
  for await (const { place, event: e } of eventsOf(logs, MYSQL_CODES)) {
    if (e.type === 'PREVIOUS_GTIDS_LOG_EVENT') executed.addSet((before[place.log] ??= MysqlGtidSet.fromEncoded(e)));
    else if (e.type === 'GTID_LOG_EVENT' || e.type === 'GTID_TAGGED_LOG_EVENT') {
      first[place.log] ??= e;
      executed.add(e);
    }
  }
  const names = logs.map((l) => l.name).join(', ');
  const extra = has.minus(executed).sourcesOf(executed);
  if (!extra.empty)
    return (
      `${SLAVE_HAS_MORE_GTIDS} (binlog serve: the replica has ${extra}, which the served binlogs, ${names}, ` +
      `do not)`
    );
  const missing = (before[0] ?? new MysqlGtidSet()).minus(has);
  if (!missing.empty)
    return (
      `${MASTER_HAS_PURGED_GTIDS} (binlog serve: the replica lacks ${missing}, ` +
      `which came before the first served binlog, ${logs[0]!.name})`
    );
  // The first binlog qualifies: its PREVIOUS_GTIDS is in the set, as just checked.
  let log = logs.length - 1;
  while (log > 0 && !(before[log] ?? new MysqlGtidSet()).minus(has).empty) log--;
  const opening = first[log];
  return { log, ahead: opening !== undefined && has.has(opening) };
}
