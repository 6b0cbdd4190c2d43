/**
 * MariaDB GTID starts of `serveBinlog` over binlogs whose domains interleave, read by the replication
 * client: per domain, the groups up to the replica's GTID of that domain are left out and the rest sent
 * (sql_repl.cc's rules), the dump starting in the newest binlog whose GTID_LIST the state covers; the
 * replica is told the GTIDs read in a fake GTID_LIST where its position is reached.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { readBinlog } from '../runtime/io/stream.js';
import { connectBinlog } from '../replication/client.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';

/** [domain, server, seq] of each group, in binlog order: the first binlog's, then the second's. */
const FIRST: [number, number, number][] = [
  [0, 1, 1],
  [1, 2, 1],
  [0, 1, 2],
  [1, 2, 2],
  [0, 1, 3],
];
const SECOND: [number, number, number][] = [
  [1, 2, 3],
  [0, 1, 4],
  [1, 2, 4],
];

function binlog(groups: [number, number, number][], gtidList: [number, number, number][], next?: string): Uint8Array {
  const w = new BinlogWriter({
    timestamp: 1_700_000_000,
    gtidList: gtidList.map(([domainId, serverId, seqNo]) => ({ domainId, serverId, seqNo: BigInt(seqNo) })),
  });
  const t = w.table({
    schema: 'db',
    name: 't',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'd', type: 'int' },
    ],
    primaryKey: 'id',
  });
  for (const [domainId, serverId, seqNo] of groups)
    w.begin({ domainId, serverId, seqNo })
      .insert(t, [{ id: domainId * 100 + seqNo, d: domainId }])
      .commit();
  if (next) w.rotate(next);
  return w.end().toBytes();
}

const gtidText = (e: BinlogEvent & { type: 'GTID_EVENT' }) => `${e.domainId}-${e.header.serverId}-${e.seqNo}`;

describe('MariaDB GTID starts of serveBinlog, domains interleaved', () => {
  let dir: string;
  let server: BinlogServer;
  /** Each binlog event's line, and the GTID of the group it is in ('' outside any). */
  const lines: { line: string; gtid: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'serve-gtid-'));
    writeFileSync(join(dir, 'binlog.000001'), binlog(FIRST, [], 'binlog.000002'));
    writeFileSync(
      join(dir, 'binlog.000002'),
      binlog(SECOND, [
        [0, 1, 3],
        [1, 2, 2],
      ]),
    );
    for (const name of ['binlog.000001', 'binlog.000002']) {
      let gtid = '';
      for await (const e of readBinlog(join(dir, name))) {
        if (e.type === 'GTID_EVENT') gtid = gtidText(e);
        const outside = [
          'FORMAT_DESCRIPTION_EVENT',
          'GTID_LIST_EVENT',
          'BINLOG_CHECKPOINT_EVENT',
          'ROTATE_EVENT',
        ].includes(e.type);
        lines.push({ line: toJsonLine(e), gtid: outside ? '' : gtid });
      }
    }
    server = await serveBinlog({ files: [dir] }, { log: (m) => console.log(m) });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function dump(gtid: string): Promise<BinlogEvent[]> {
    const out: BinlogEvent[] = [];
    for await (const e of connectBinlog({
      host: '127.0.0.1',
      port: server.port,
      user: 'replica',
      gtid,
      until: 'logs',
      heartbeatPeriod: 0,
    }))
      out.push(e);
    return out;
  }

  /** A line as compared: a FORMAT_DESCRIPTION's created time (and so its CRC32) aside, checked by `created`. */
  const compared = (line: string) => line.replace(/"createTimestamp":\d+(,.*)"checksum":\d+/, '$1');
  /** The lines of the binlogs from `file` on, the groups named left out. */
  const expected = (from: string, leftOut: string[]) =>
    lines.filter((l) => JSON.parse(l.line).file >= from && !leftOut.includes(l.gtid)).map((l) => compared(l.line));
  const inFile = (events: BinlogEvent[]) => events.filter((e) => !e.notInFile).map((e) => compared(toJsonLine(e)));
  /**
   * The created time of each FORMAT_DESCRIPTION sent: 0 while the replica's position is ahead (its temporary tables
   * kept, as MariaDB sends it).
   */
  const created = (events: BinlogEvent[]) =>
    events.flatMap((e) => (e.type === 'FORMAT_DESCRIPTION_EVENT' ? [e.createTimestamp] : []));
  const toldLists = (events: BinlogEvent[]) =>
    events
      .filter((e) => e.type === 'GTID_LIST_EVENT' && e.notInFile)
      .map((e) =>
        (e as BinlogEvent & { gtids: { domainId: number; serverId: number; seqNo: bigint }[] }).gtids
          .map((g) => `${g.domainId}-${g.serverId}-${g.seqNo}`)
          .join(','),
      );

  it('leaves out, per domain, the groups up to the replica GTID, though another domain comes first', async () => {
    // Domain 0 is further on than domain 1: 1-2-2 comes before 0-1-3 and is sent, 0-1-3 is not.
    const events = await dump('0-1-3,1-2-1');
    expect(inFile(events)).toEqual(expected('binlog.000001', ['0-1-1', '1-2-1', '0-1-2', '0-1-3']));
    // Told where each domain's position is reached: after 1-2-1, and after 0-1-3.
    expect(toldLists(events)).toEqual(['0-1-1,1-2-1', '0-1-3,1-2-2']);
    expect(created(events)).toEqual([0, 1_700_000_000]);
  });

  it('starts in the newest binlog whose GTID_LIST the state covers, leaving nothing out there', async () => {
    const events = await dump('0-1-3,1-2-2');
    expect(inFile(events)).toEqual(expected('binlog.000002', []));
    expect(toldLists(events)).toEqual([]);
    expect(created(events)).toEqual([1_700_000_000]);
    // A state further on in one domain, within the second binlog.
    const further = await dump('0-1-4,1-2-2');
    expect(inFile(further)).toEqual(expected('binlog.000002', ['0-1-4']));
    expect(created(further)).toEqual([0]);
  });

  it('sends the whole of a domain the state does not name, and accepts a domain the binlogs do not have', async () => {
    expect(inFile(await dump('1-2-2'))).toEqual(expected('binlog.000001', ['1-2-1', '1-2-2']));
    // Domain 7 may still come (from another source): the replica's position there is never reached.
    const other = await dump('7-1-5');
    expect(inFile(other)).toEqual(expected('binlog.000001', []));
    expect(created(other)).toEqual([0, 0]);
  });

  it('refuses a state ahead of the binlogs in a domain they have', async () => {
    await expect(dump('0-1-9,1-2-1')).rejects.toThrow(/GTID 0-1-9, which is in none of the served binlogs/);
    await expect(dump('0-3-1')).rejects.toThrow(/GTID 0-3-1, which is in none/);
  });
});
