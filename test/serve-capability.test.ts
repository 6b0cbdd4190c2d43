/**
 * What `serveBinlog` sends replicas by their @mariadb_slave_capability, as a MariaDB source does
 * (sql_repl.cc's send_event_to_slave), read as raw packets: MariaDB's events as they are to a replica of
 * capability 4 (ANNOTATE_ROWS only when asked for), left out for one that tolerates holes, and for older
 * ones replaced by events of the same size (GTIDs by BEGIN, the rest by dummies) so that every offset
 * stays where it is in the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { EventTypes } from '../generated/events.js';
import { BinlogDumpFlags, encodeBinlogDumpPacket } from '../generated/replication.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog, frameBinlog, Framer } from '../runtime/io/stream.js';
import { packet } from '../protocol/packets.js';
import { Wire } from '../replication/wire.js';
import { treatment } from '../server/compat.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';

function synthetic(): Uint8Array {
  // An empty GTID_LIST (25 bytes but its CRC32) is too small for a QUERY dummy: it becomes a NULL user variable.
  const w = new BinlogWriter({ timestamp: 1_700_000_000 });
  const t = w.createTable({ schema: 'db', name: 't', columns: [{ name: 'id', type: 'int' }], primaryKey: 'id' });
  w.insert(t, [{ id: 1 }], { statement: 'INSERT INTO db.t VALUES (1)' }).commit();
  w.begin({ commitId: 5 })
    .insert(t, [{ id: 2 }], { statement: 'INSERT INTO db.t VALUES (2)' })
    .commit();
  return w.end().toBytes();
}

describe('serveBinlog and older MariaDB replicas', () => {
  const bytes = synthetic();
  const file = [...frameBinlog(bytes)];
  const fileEvents = decodeBinlog(bytes);
  let server: BinlogServer;
  beforeAll(async () => {
    server = await serveBinlog(
      {
        events: (async function* () {
          yield* fileEvents as never[];
        })(),
      },
      { log: (m) => console.log(m) },
    );
  });
  afterAll(() => server?.close());

  /** The events of a non-blocking dump from offset 4, the fake ROTATE taken off, as raw bytes. */
  async function dump(capability: number | undefined, annotate: boolean): Promise<Uint8Array[]> {
    const wire = await Wire.open({ host: '127.0.0.1', port: server.port, user: 'old' });
    try {
      await wire.query("SET @master_binlog_checksum = 'CRC32'");
      if (capability !== undefined) await wire.query(`SET @mariadb_slave_capability = ${capability}`);
      const flags =
        BinlogDumpFlags.BINLOG_DUMP_NON_BLOCK | (annotate ? BinlogDumpFlags.BINLOG_SEND_ANNOTATE_ROWS_EVENT : 0);
      const payload = packet(encodeBinlogDumpPacket, { position: 4, flags, serverId: 99, file: 'binlog.000001' });
      const sent: Uint8Array[] = [];
      for await (const p of wire.stream(payload, (b) => b[0] === 0xfe && b.length < 9))
        if (p[0] === 0) sent.push(p.slice(1));
      return sent.slice(1);
    } finally {
      wire.close();
    }
  }

  /** The events read back as a binlog. */
  const decoded = (events: Uint8Array[]): BinlogEvent[] => {
    const framer = new Framer({ verifyChecksum: true });
    framer.push(Uint8Array.of(0xfe, 0x62, 0x69, 0x6e));
    for (const e of events) framer.push(e);
    return [...framer.drain()];
  };
  const types = (events: Uint8Array[]) => events.map((e) => e[4]);
  const codes = file.map((f) => f.typeCode);
  const without = (...left: number[]) => codes.filter((c) => !left.includes(c));

  it('holds every MariaDB event a replica may not know', () => {
    for (const c of [
      EventTypes.GTID_EVENT,
      EventTypes.GTID_LIST_EVENT,
      EventTypes.BINLOG_CHECKPOINT_EVENT,
      EventTypes.ANNOTATE_ROWS_EVENT,
    ])
      expect(codes).toContain(c);
    // The CREATE TABLE's group is standalone; the two inserts' are transactions, one with a commit id.
    expect(
      fileEvents.filter((e) => e.type === 'GTID_EVENT').map((e) => (e as BinlogEvent & { flags: number }).flags & 1),
    ).toEqual([1, 0, 0]);
  });

  it('sends a replica of capability 4 the file, ANNOTATE_ROWS only when asked for', async () => {
    expect((await dump(4, true)).map((b) => Buffer.from(b).toString('hex'))).toEqual(
      file.map((f) => Buffer.from(f.bytes).toString('hex')),
    );
    expect(types(await dump(4, false))).toEqual(without(EventTypes.ANNOTATE_ROWS_EVENT));
  });

  it('leaves out for replicas that tolerate holes what they do not know, a GTID made a BEGIN', async () => {
    const three = await dump(3, false);
    expect(types(three)).toEqual(
      file
        .filter(
          (f, i) =>
            f.typeCode !== EventTypes.ANNOTATE_ROWS_EVENT &&
            f.typeCode !== EventTypes.GTID_LIST_EVENT &&
            !(f.typeCode === EventTypes.GTID_EVENT && i === codes.indexOf(EventTypes.GTID_EVENT)),
        )
        .map((f) => (f.typeCode === EventTypes.GTID_EVENT ? EventTypes.QUERY_EVENT : f.typeCode)),
    );
    const begins = decoded(three).filter((e) => e.type === 'QUERY_EVENT' && e.query === 'BEGIN');
    expect(begins).toHaveLength(2);
    // Each BEGIN where its GTID event was, of its size (the one with a commit id 2 bytes longer).
    const gtids = file.filter((f) => f.typeCode === EventTypes.GTID_EVENT).slice(1);
    expect(begins.map((e) => [e.header.logPos! - e.header.eventSize!, e.header.eventSize])).toEqual(
      gtids.map((g) => [g.pos, g.bytes.length]),
    );
    expect(types(await dump(2, false))).not.toContain(EventTypes.BINLOG_CHECKPOINT_EVENT);
  });

  it('replaces for replicas that do not tolerate holes each unknown event by one of its size', async () => {
    for (const [capability, annotateKept] of [
      [1, true],
      [undefined, false],
    ] as const) {
      const sent = await dump(capability, false);
      // Every event where the file has one, of its size: the offsets a replica counts stay right.
      expect(sent.map((b) => b.length)).toEqual(file.map((f) => f.bytes.length));
      const back = decoded(sent);
      expect(back.map((e) => e.pos)).toEqual(file.map((f) => f.pos));
      const replaced = back.flatMap((e, i) => (sent[i]![4] !== codes[i] ? [{ e, was: codes[i]! }] : []));
      const left = codes.filter(
        (c) =>
          c === EventTypes.GTID_EVENT ||
          c === EventTypes.GTID_LIST_EVENT ||
          c === EventTypes.BINLOG_CHECKPOINT_EVENT ||
          (!annotateKept && c === EventTypes.ANNOTATE_ROWS_EVENT),
      );
      expect(replaced.map((r) => r.was)).toEqual(left);
      expect(replaced.filter(({ e }) => e.type === 'USER_VAR_EVENT').map(({ was }) => was)).toEqual([
        EventTypes.GTID_LIST_EVENT,
      ]);
      for (const { e, was } of replaced) {
        if (e.type === 'USER_VAR_EVENT') {
          expect(e).toMatchObject({ isNull: 1, name: expect.stringMatching(/^!(d(u(m(m(y(v(a(r)?)?)?)?)?)?)?)?$/) });
          continue;
        }
        const query = String((e as BinlogEvent & { query: unknown }).query);
        // A transaction's GTID a BEGIN; the rest a comment naming the type, cut or padded with spaces to the event's
        // size.
        const comment = `# Dummy event replacing event type ${was} that slave cannot handle.`;
        expect(
          query === 'BEGIN'
            ? was
            : query.length <= comment.length
              ? comment.startsWith(query)
              : query === comment.padEnd(query.length, ' '),
        ).toBe(query === 'BEGIN' ? EventTypes.GTID_EVENT : true);
      }
    }
  });

  it('decides as sql_repl.cc does, by capability', () => {
    const rule = (code: number, capability: number, annotate = false, standalone = false) =>
      treatment(code, () => standalone, capability, annotate);
    expect([0, 1, 2, 4].map((c) => rule(EventTypes.ANNOTATE_ROWS_EVENT, c))).toEqual(['dummy', 'send', 'drop', 'drop']);
    expect(rule(EventTypes.ANNOTATE_ROWS_EVENT, 0, true)).toBe('send');
    expect([0, 2, 3, 4].map((c) => rule(EventTypes.GTID_EVENT, c))).toEqual(['begin', 'begin', 'begin', 'send']);
    expect([0, 2, 4].map((c) => rule(EventTypes.GTID_EVENT, c, false, true))).toEqual(['dummy', 'drop', 'send']);
    expect([1, 2, 3].map((c) => rule(EventTypes.BINLOG_CHECKPOINT_EVENT, c))).toEqual(['dummy', 'drop', 'send']);
    expect([1, 3, 4].map((c) => rule(EventTypes.GTID_LIST_EVENT, c))).toEqual(['dummy', 'drop', 'send']);
    expect(rule(EventTypes.WRITE_ROWS_EVENT_V1, 0)).toBe('send');
  });
});
