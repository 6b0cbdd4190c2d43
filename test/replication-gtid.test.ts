/** GTID states as a replica keeps them (protocol/gtid-sets.ts): the text both servers read, grown by GTID events. */
import { describe, expect, it } from 'vitest';
import { MariadbGtidState, MysqlGtidSet } from '../protocol/gtid-sets.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';

/** An event with only the fields the GTID states read, the header's server id among them. */
function event(fields: { type: string; serverId?: number } & Record<string, unknown>): BinlogEvent {
  const header = { timestamp: 0, typeCode: 0, serverId: fields.serverId ?? 1, eventSize: 0, logPos: 0, flags: 0 };
  return { pos: 4, header, ...fields } as BinlogEvent;
}

const UUID = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const SID = Uint8Array.from(UUID.replace(/-/g, '').match(/../g)!, (b) => parseInt(b, 16));

describe('MariaDB GTID state', () => {
  it('keeps the last GTID of each domain, in domain order', () => {
    const s = new MariadbGtidState('1-2-7, 0-1-100');
    expect(s.toString()).toBe('0-1-100,1-2-7');
    s.add(event({ type: 'GTID_EVENT', domainId: 1, seqNo: 8n, serverId: 3 }));
    s.add(event({ type: 'GTID_EVENT', domainId: 5, seqNo: 1n, serverId: 1 }));
    s.add(event({ type: 'XID_EVENT', xid: 1n }));
    expect(s.toString()).toBe('0-1-100,1-3-8,5-1-1');
  });

  it('refuses what is no GTID', () => {
    expect(() => new MariadbGtidState('0-1')).toThrow(/'0-1' is no MariaDB GTID/);
  });
});

describe('MySQL GTID set', () => {
  it('merges intervals, and the transactions read', () => {
    const s = new MysqlGtidSet(`${UUID.toUpperCase()}:7:1-5`);
    expect(s.toString()).toBe(`${UUID}:1-5:7`);
    s.add(event({ type: 'GTID_LOG_EVENT', sid: SID, gno: 6n }));
    expect(s.toString()).toBe(`${UUID}:1-7`);
    s.add(event({ type: 'GTID_TAGGED_LOG_EVENT', sid: SID, gno: 2n, tag: 'Blue' }));
    expect(s.toString()).toBe(`${UUID}:1-7,${UUID}:blue:2`);
    expect(s.has(event({ type: 'GTID_TAGGED_LOG_EVENT', sid: SID, gno: 2n, tag: 'BLUE' }))).toBe(true);
    expect(s.has(event({ type: 'GTID_LOG_EVENT', sid: SID, gno: 8n }))).toBe(false);
    expect(s.has(event({ type: 'XID_EVENT', xid: 1n }))).toBe(false);
  });

  it('is encoded as PREVIOUS_GTIDS is: untagged, a plain count; tagged, format 1', () => {
    expect(new MysqlGtidSet(`${UUID}:1-5:7`).encoded()).toEqual({
      countLow: 1,
      countHigh: 0,
      format: 0,
      sids: [
        {
          uuid: SID,
          intervals: [
            { start: 1n, end: 6n },
            { start: 7n, end: 8n },
          ],
        },
      ],
    });
    expect(new MysqlGtidSet(`${UUID}:tag_1:3`).encoded()).toEqual({
      countLow: 1,
      countHigh: 1,
      format: 1,
      sids: [{ uuid: SID, tag: 'tag_1', intervals: [{ start: 3n, end: 4n }] }],
    });
  });

  it('refuses a set that does not begin with a UUID, or a bad interval', () => {
    expect(() => new MysqlGtidSet('nope:1-2')).toThrow(/does not begin with a server UUID/);
    expect(() => new MysqlGtidSet(`${UUID}:1-x`)).toThrow(/neither an interval/);
  });
});
