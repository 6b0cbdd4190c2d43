/**
 * GTID states, in the text both servers read and print: a replica keeps one grown by the GTID of each
 * transaction it reads, the binlog server finds where a replica's state starts it, and a sink names a
 * transaction by its GTID.
 * - MariaDB: one GTID per replication domain, `domain-server-seq` joined by commas ('0-1-100,1-2-7',
 *   @@gtid_slave_pos's form): the last transaction of each domain.
 * - MySQL: a GTID set, each source UUID (and tag, MySQL 8.3 and later) with the intervals of transaction
 *   numbers it ran ('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,…:tag:1-3'), @@gtid_executed's form.
 */
import type { PreviousGtidsEvent, PreviousGtidsEventInput } from '../generated/mysql.js';
import type { Text } from '../runtime/core/reader.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { dashedUuid } from '../runtime/core/uuid.js';

export interface GtidState {
  /** Adds one transaction's GTID when the event is a GTID event of this state's kind; other events add nothing. */
  add(event: BinlogEvent): void;
  toString(): string;
}

/** MariaDB's state: the last GTID of each domain. */
export class MariadbGtidState implements GtidState {
  private readonly domains = new Map<number, { server: number; seq: bigint }>();

  constructor(text = '') {
    for (const part of text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const m = /^(\d+)-(\d+)-(\d+)$/.exec(part);
      if (!m) throw new RangeError(`'${part}' is no MariaDB GTID (domain-server-sequence, as 0-1-100)`);
      this.domains.set(Number(m[1]), { server: Number(m[2]), seq: BigInt(m[3]!) });
    }
  }

  add(e: BinlogEvent): void {
    if (e.type === 'GTID_EVENT') this.set(e.domainId, e.header.serverId, e.seqNo);
  }

  /** Records a domain's last GTID. */
  set(domain: number, server: number, seq: bigint): void {
    this.domains.set(domain, { server, seq });
  }

  /** Each domain's last GTID. */
  entries(): ReadonlyMap<number, { server: number; seq: bigint }> {
    return this.domains;
  }

  toString(): string {
    return [...this.domains]
      .sort(([a], [b]) => a - b)
      .map(([d, g]) => `${d}-${g.server}-${g.seq}`)
      .join(',');
  }
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** MySQL's GTID set: per UUID and tag, sorted intervals [start, end) of transaction numbers. */
export class MysqlGtidSet implements GtidState {
  /** 'uuid' or 'uuid:tag' → intervals, each [first, one past the last]. */
  private readonly sids = new Map<string, [bigint, bigint][]>();

  constructor(text = '') {
    for (const part of text.replace(/\s+/g, '').split(',').filter(Boolean)) {
      const [uuid, ...rest] = part.split(':');
      if (!UUID.test(uuid!)) throw new RangeError(`'${part}' does not begin with a server UUID`);
      let tag = '';
      for (const r of rest) {
        const m = /^(\d+)(?:-(\d+))?$/.exec(r);
        if (m) this.addRange(uuid!, tag, BigInt(m[1]!), BigInt(m[2] ?? m[1]!) + 1n);
        else if (/^[a-z_][a-z0-9_]{0,31}$/i.test(r)) tag = r.toLowerCase();
        else throw new RangeError(`'${r}' in '${part}' is neither an interval (1-5) nor a tag`);
      }
    }
  }

  add(e: BinlogEvent): void {
    const gtid = mysqlGtid(e);
    if (gtid) this.addRange(gtid.uuid, gtid.tag, gtid.gno, gtid.gno + 1n);
  }

  /** The set COM_BINLOG_DUMP_GTID carries (PREVIOUS_GTIDS's body, as decoded): `encoded()` read back. */
  static fromEncoded(value: PreviousGtidsEvent): MysqlGtidSet {
    const set = new MysqlGtidSet();
    for (const sid of value.sids) {
      const tag = typeof sid.tag === 'string' ? sid.tag : '';
      for (const iv of sid.intervals) set.addRange(uuidText(sid.uuid), tag.toLowerCase(), iv.start, iv.end);
    }
    return set;
  }

  /** Whether a transaction's GTID event (GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT) names one of the set. */
  has(e: BinlogEvent): boolean {
    const gtid = mysqlGtid(e);
    if (!gtid) return false;
    const { uuid, tag, gno } = gtid;
    return (this.sids.get(tag ? `${uuid}:${tag}` : uuid) ?? []).some(([start, end]) => gno >= start && gno < end);
  }

  /** Adds every transaction of `other`. */
  addSet(other: MysqlGtidSet): this {
    for (const [key, ivs] of other.sids) for (const [start, end] of ivs) this.addKeyRange(key, start, end);
    return this;
  }

  /** The transactions of this set that `other` does not have. */
  minus(other: MysqlGtidSet): MysqlGtidSet {
    const out = new MysqlGtidSet();
    for (const [key, ivs] of this.sids) {
      const holes = other.sids.get(key) ?? [];
      for (const [start, end] of ivs) {
        let from = start;
        for (const [hs, he] of holes) {
          if (he <= from || hs >= end) continue;
          if (hs > from) out.addKeyRange(key, from, hs);
          from = he > from ? he : from;
        }
        if (from < end) out.addKeyRange(key, from, end);
      }
    }
    return out;
  }

  /** The transactions of this set whose source (UUID and tag) `other` has any of. */
  sourcesOf(other: MysqlGtidSet): MysqlGtidSet {
    const out = new MysqlGtidSet();
    for (const [key, ivs] of this.sids) {
      if (other.sids.has(key)) for (const [start, end] of ivs) out.addKeyRange(key, start, end);
    }
    return out;
  }

  get empty(): boolean {
    return this.sids.size === 0;
  }

  private addRange(uuid: string, tag: string, start: bigint, end: bigint): void {
    const hex = uuid.toLowerCase().replace(/-/g, '');
    this.addKeyRange(tag ? `${hex}:${tag}` : hex, start, end);
  }

  private addKeyRange(key: string, start: bigint, end: bigint): void {
    const list = this.sids.get(key) ?? [];
    list.push([start, end]);
    list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const merged: [bigint, bigint][] = [];
    for (const iv of list) {
      const last = merged.at(-1);
      if (last && iv[0] <= last[1]) last[1] = iv[1] > last[1] ? iv[1] : last[1];
      else merged.push([iv[0], iv[1]]);
    }
    this.sids.set(key, merged);
  }

  toString(): string {
    return [...this.sids]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, ivs]) => {
        const [hex, tag] = key.split(':');
        const uuid = dashedUuid(hex!);
        const ranges = ivs.map(([s, e]) => (e - s === 1n ? `${s}` : `${s}-${e - 1n}`)).join(':');
        return tag ? `${uuid}:${tag}:${ranges}` : `${uuid}:${ranges}`;
      })
      .join(',');
  }

  /** The set as COM_BINLOG_DUMP_GTID carries it: PREVIOUS_GTIDS's body, tagged when any tag is in it. */
  encoded(): PreviousGtidsEventInput {
    const tagged = [...this.sids.keys()].some((k) => k.includes(':'));
    const sids = [...this.sids].map(([key, ivs]) => {
      const [hex, tag] = key.split(':');
      return {
        uuid: Uint8Array.from(hex!.match(/../g)!, (b) => parseInt(b, 16)),
        ...(tagged ? { tag: tag ?? '' } : {}),
        intervals: ivs.map(([start, end]) => ({ start, end })),
      };
    });
    const n = sids.length;
    if (tagged) return { countLow: 1, countHigh: n, format: 1, sids };
    return { countLow: n & 0xff, countHigh: Math.floor(n / 256), format: 0, sids };
  }
}

/**
 * The one GTID a transaction's GTID event names, as the states print it ('0-1-100', 'uuid:7',
 * 'uuid:tag:7'); undefined for other events, anonymous GTID events among them.
 */
export function gtidOf(e: BinlogEvent): string | undefined {
  if (e.type === 'GTID_EVENT') return `${e.domainId}-${e.header.serverId}-${e.seqNo}`;
  if (!mysqlGtid(e)) return undefined;
  const set = new MysqlGtidSet();
  set.add(e);
  return set.toString();
}

/**
 * The GTID of a MySQL GTID event: its UUID's hex digits, its tag in lower case ('' without one) and its
 * transaction number. A tagged event that lacks its UUID or number names no GTID, so it gives none.
 */
function mysqlGtid(e: BinlogEvent): { uuid: string; tag: string; gno: bigint } | undefined {
  if (e.type !== 'GTID_LOG_EVENT' && e.type !== 'GTID_TAGGED_LOG_EVENT') return undefined;
  if (e.sid === undefined || e.gno === undefined) return undefined;
  const tag = e.type === 'GTID_TAGGED_LOG_EVENT' ? tagText(e.tag) : '';
  return { uuid: uuidText(e.sid), tag, gno: BigInt(e.gno) };
}

/** A tag as the sets key it: lower case, as MySQL compares tags; tags are ASCII names, so bytes read as latin1. */
function tagText(tag: Text | undefined): string {
  if (tag === undefined) return '';
  return (typeof tag === 'string' ? tag : Buffer.from(tag).toString('latin1')).toLowerCase();
}

function uuidText(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
