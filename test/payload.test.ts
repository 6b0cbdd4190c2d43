/**
 * MySQL's compressed transactions (TRANSACTION_PAYLOAD), its tagged GTIDs (GTID_TAGGED) and its second
 * heartbeat (HEARTBEAT_V2): the real binlogs that have them, what they are known to hold, edits that
 * encode and decode back, and forged payloads.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BinlogError } from '../runtime/core/errors.js';
import { eventFromJson, type BinlogEvent, type BinlogEventInput } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import type { EventFilter } from '../runtime/io/filter.js';
import { describeWithFixtures, FIXTURES } from './support/fixtures.js';
import { MYSQL_8_0_32_FDE } from './support/mysql-fde.js';
import { noteSkip } from './support/requires.js';
import { looseInput } from './support/events.js';

type Loose = BinlogEvent & Record<string, unknown>;

const compression = join(
  FIXTURES,
  'binlogs',
  'blackbeam__rust_mysql_common',
  'test-data__binlogs__transaction_compression.000001',
);
const movies = join(
  FIXTURES,
  'binlogs',
  'osheroff__mysql-binlog-connector-java',
  'src__test__resources__mysql-bin.compressed',
);
const tagged = join(
  FIXTURES,
  'binlogs',
  'blackbeam__rust_mysql_common',
  'test-data__binlogs__binlog_transaction_with_GTID_TAG.000001',
);

const read = (path: string) => new Uint8Array(readFileSync(path));
/** The payloads' events inside them, as `events`, where most of these tests look for them. */
const decodeNested = (bytes: Uint8Array, filter?: EventFilter) => decodeBinlog(bytes, { payloads: 'nested', filter });
const viaJson = (events: BinlogEvent[]) => encodeBinlog(events.map((e) => eventFromJson(JSON.parse(toJsonLine(e)))));
const payloadOf = (events: BinlogEvent[]) => events.find((e) => e.type === 'TRANSACTION_PAYLOAD_EVENT') as Loose;

const FDE = MYSQL_8_0_32_FDE;

const header = (typeCode: number) => ({ timestamp: 1_700_000_001, typeCode, serverId: 1, flags: 0 });

/** The sample's first row transaction (TABLE_MAP, WRITE_ROWS of 'Ada' and 'Bjørn', XID), as inner events. */
function sampleTransaction(): BinlogEventInput[] {
  const sample = decodeNested(new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin'))));
  const first = sample.findIndex((e) => e.type === 'TABLE_MAP_EVENT');
  return sample.slice(first, first + 3).map((e) => {
    const { pos: _pos, checksum: _checksum, ...rest } = e;
    return eventFromJson(JSON.parse(toJsonLine({ ...rest, header: { ...e.header, logPos: 0 } })));
  });
}

/** A TRANSACTION_PAYLOAD as a JavaScript caller may give it: its events without a payload, or a payload forged. */
function payloadEvent(body: Record<string, unknown>): BinlogEventInput {
  return looseInput({ header: header(40), type: 'TRANSACTION_PAYLOAD_EVENT', ...body });
}

function errorOf(bytes: Uint8Array): BinlogError {
  try {
    decodeBinlog(bytes);
  } catch (e) {
    if (e instanceof BinlogError) return e;
    throw e;
  }
  throw new Error('decoded without an error');
}

describeWithFixtures('TRANSACTION_PAYLOAD in real binlogs', () => {
  it('both files encode back byte for byte, from the decoded events and from their JSON', () => {
    for (const path of [compression, movies]) {
      const bytes = read(path);
      const events = decodeNested(bytes);
      expect(Buffer.compare(encodeBinlog(events), bytes)).toBe(0);
      expect(Buffer.compare(viaJson(events), bytes)).toBe(0);
    }
  });

  it('transaction_compression.000001: the INSERT of 1 into test.tb1, zstd, 179 bytes in 124', () => {
    const events = decodeNested(read(compression));
    const p = payloadOf(events);
    expect(p).toMatchObject({ compressionType: 'ZSTD', uncompressedSize: 179n, payloadSize: 124 });
    const inner = p.events!;
    expect(inner.map((e) => [e.pos, e.type])).toEqual([
      [0, 'QUERY_EVENT'],
      [71, 'TABLE_MAP_EVENT'],
      [116, 'WRITE_ROWS_EVENT'],
      [152, 'XID_EVENT'],
    ]);
    // Inner events carry no checksum (the file has CRC32) and log_pos 0.
    expect(inner.every((e) => e.checksum === undefined && e.header.logPos === 0)).toBe(true);
    expect(inner.reduce((n, e) => n + e.header.eventSize, 0)).toBe(179);
    expect(inner[0]).toMatchObject({ query: 'BEGIN', schema: 'test' });
    expect(inner[1]).toMatchObject({ schemaName: 'test', tableName: 'tb1', columnTypes: ['LONG'] });
    expect(inner[2]).toMatchObject({ table: 'test.tb1', rows: [{ after: { '@1': 1 } }] });
    expect(inner[3]).toMatchObject({ xid: 462n });
  });

  it('mysql-bin.compressed: the UPDATE of demo.movies that the connector test describes', () => {
    const p = payloadOf(decodeNested(read(movies)));
    // mysql-binlog-connector-java, TransactionPayloadEventDataDeserializerTest: type 0, 451 bytes, 960 uncompressed, 4
    // events.
    expect(p).toMatchObject({ compressionType: 'ZSTD', payloadSize: 451, uncompressedSize: 960n });
    const inner = p.events!;
    expect(inner.map((e) => e.type)).toEqual(['QUERY_EVENT', 'TABLE_MAP_EVENT', 'UPDATE_ROWS_EVENT', 'XID_EVENT']);
    expect(inner[1]).toMatchObject({ tableId: 84, schemaName: 'demo', tableName: 'movies' });
    const [row] = (inner[2] as Loose).rows as { before: Record<string, unknown>; after: Record<string, unknown> }[];
    expect(row!.before).toMatchObject({
      '@1': 1,
      '@2': 'Once Upon a Time in the West',
      '@3': 1968,
      '@4': 'Italy',
      '@5': 'Western',
      '@11': 'Paramount Pictures',
    });
    expect(row!.after).toMatchObject({ '@5': 'Western|Action', '@7': 'Sergio Leone', '@8': 'Ennio Morricone' });
    expect(inner[3]).toMatchObject({ xid: 31n });
  });

  it('an edited inner row is compressed anew, decodes back, and the GTID transaction_length follows', () => {
    const events = decodeNested(read(movies));
    const json = events.map((e) => JSON.parse(toJsonLine(e)));
    const p = json.find((e) => e.type === 'TRANSACTION_PAYLOAD_EVENT');
    p.events[2].rows[0].after['@5'] = 'Western|Action|Drama, a longer genre list than before';
    json.find((e) => e.type === 'ANONYMOUS_GTID_LOG_EVENT').transactionLength = null;
    const bytes = encodeBinlog(json.map((e) => eventFromJson(e)));
    const back = decodeNested(bytes);
    const q = payloadOf(back);
    const row = ((q.events![2] as Loose).rows as { after: Record<string, unknown> }[])[0]!;
    expect(row.after['@5']).toBe('Western|Action|Drama, a longer genre list than before');
    expect(q.uncompressedSize).toBe(960n + BigInt('|Drama, a longer genre list than before'.length));
    expect(Buffer.compare(q.payload as Uint8Array, payloadOf(events).payload as Uint8Array)).not.toBe(0);
    const gtid = back.find((e) => e.type === 'ANONYMOUS_GTID_LOG_EVENT') as Loose;
    expect(gtid.transactionLength).toBe(BigInt(gtid.header.eventSize + q.header.eventSize));
  });

  it('a window far larger than the content allocates only what the content needs, and decodes the same', () => {
    const p = payloadOf(decodeNested(read(movies)));
    const frame = Uint8Array.from(p.payload as Uint8Array);
    // MySQL's frame has a window descriptor (2 MiB: exponent 11); ask for zstd's largest default, 128 MiB.
    expect([frame[4], frame[5]]).toEqual([0x00, 11 << 3]);
    frame[5] = 17 << 3;
    const forged = encodeBinlog([
      FDE,
      payloadEvent({ compressionType: 'ZSTD', uncompressedSize: p.uncompressedSize, payload: frame }),
    ]);
    const before = process.memoryUsage().arrayBuffers;
    const events = decodeNested(forged);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    expect(payloadOf(events).events!.map((e) => e.type)).toEqual([
      'QUERY_EVENT',
      'TABLE_MAP_EVENT',
      'UPDATE_ROWS_EVENT',
      'XID_EVENT',
    ]);
  });

  it(
    "MySQL's frame states no size: a declared size less or " + 'more than it holds, or more than its blocks can hold',
    () => {
      const p = payloadOf(decodeNested(read(movies)));
      const withSize = (uncompressedSize: bigint) =>
        errorOf(encodeBinlog([FDE, payloadEvent({ compressionType: 'ZSTD', uncompressedSize, payload: p.payload })]));
      expect(withSize(900n)).toMatchObject({
        kind: 'invalid-value',
        message: expect.stringMatching(/does not uncompress to 900 bytes/),
      });
      expect(withSize(1000n).message).toMatch(/uncompresses to 960 bytes, not the 1000 it declares/);
      // One compressed block: at most 128 KiB.
      const before = process.memoryUsage().arrayBuffers;
      expect(withSize(BigInt(128 << 10) + 1n)).toMatchObject({
        kind: 'length',
        message: expect.stringMatching(/more than its zstd frame can hold/),
      });
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    },
  );

  it('one flipped bit in the compressed block is refused as such', () => {
    // The bit that kept a pure-JavaScript decoder busy for seconds, producing nothing.
    const bytes = read(compression);
    const p = payloadOf(decodeNested(bytes));
    const frameAt = p.pos + p.header.eventSize - 4 - (p.payload as Uint8Array).length;
    expect(bytes[frameAt + 9]).toBe(0xe2);
    const flipped = Uint8Array.from(bytes);
    flipped[frameAt + 9] = 0xe0;
    const crcAt = p.pos + p.header.eventSize - 4;
    new DataView(flipped.buffer).setUint32(crcAt, crc32(flipped.subarray(p.pos, crcAt)), true);
    const error = errorOf(flipped);
    expect(error).toMatchObject({
      kind: 'invalid-value',
      eventPos: p.pos,
      message: expect.stringMatching(/does not uncompress/),
    });
  });

  it('the database and table filters see the inner events', () => {
    const bytes = read(movies);
    const kept = (filter: EventFilter) => decodeNested(bytes, filter).map((e) => e.type);
    const all = decodeNested(bytes).map((e) => e.type);
    expect(kept({ database: 'demo' })).toEqual(all);
    expect(kept({ table: 'demo.movies' })).toEqual(all);
    // The payload's transaction touches neither: it goes with its GTID.
    const without = all.filter((t) => t !== 'TRANSACTION_PAYLOAD_EVENT' && !t.endsWith('GTID_LOG_EVENT'));
    expect(kept({ database: 'other' })).toEqual(without);
    expect(kept({ table: 'movies2' })).toEqual(without);
  });
});

describeWithFixtures('GTID_TAGGED in a real binlog', () => {
  it('binlog_transaction_with_GTID_TAG.000001 encodes back byte for byte, from its JSON too', () => {
    const bytes = read(tagged);
    const events = decodeNested(bytes);
    expect(Buffer.compare(encodeBinlog(events), bytes)).toBe(0);
    expect(Buffer.compare(viaJson(events), bytes)).toBe(0);
  });

  it(
    'its GTID is the next of the tagged set PREVIOUS_GTIDS ' + 'lists, with the server and transaction it belongs to',
    () => {
      const events = decodeNested(read(tagged)) as Loose[];
      const previous = events.find((e) => e.type === 'PREVIOUS_GTIDS_LOG_EVENT')!;
      const mytag = (previous.sids as { uuid: Uint8Array; tag: string; intervals: { end: bigint }[] }[]).find(
        (s) => s.tag === 'mytag',
      )!;
      const g = events.find((e) => e.type === 'GTID_TAGGED_LOG_EVENT')!;
      const uuid = Buffer.from(g.sid as Uint8Array).toString('hex');
      expect(`${uuid}:${g.tag}:${g.gno}`).toBe('55778904029911f1b1b84ef0c4956feb:mytag:3');
      expect(g.sid).toEqual(mytag.uuid);
      expect(g.gno).toBe(mytag.intervals[0]!.end);
      expect(g).toMatchObject({
        serializationVersion: 1,
        messageSize: g.header.eventSize - 19 - 4,
        flags: 0,
        lastCommitted: 0n,
        sequenceNumber: 1n,
      });
      // 9.6.0, the FORMAT_DESCRIPTION's server; both timestamps and versions equal, so the originals are left out.
      expect(g.immediateServerVersion).toBe(90600);
      expect(g).not.toHaveProperty('originalCommitTimestamp', expect.anything());
      expect(g).not.toHaveProperty('originalServerVersion', expect.anything());
      expect(g).not.toHaveProperty('commitGroupTicket', expect.anything());
      // The GTID event and everything up to the XID: the transaction's bytes.
      const end = events.findIndex((e) => e.type === 'XID_EVENT');
      const group = events.slice(events.indexOf(g), end + 1);
      expect(g.transactionLength).toBe(BigInt(group.reduce((n, e) => n + e.header.eventSize, 0)));
      expect(group.find((e) => e.type === 'WRITE_ROWS_EVENT')).toMatchObject({
        table: 'test.orders',
        rows: [{ after: { '@1': 3, '@2': 100, '@3': '250.00' } }],
      });
    },
  );

  it(
    "every optional field, a longer tag and a later server's field encode " +
      'with a two-byte message size, the transaction length recomputed',
    () => {
      const json = decodeNested(read(tagged)).map((e) => JSON.parse(toJsonLine(e)));
      const g = json.find((e) => e.type === 'GTID_TAGGED_LOG_EVENT');
      Object.assign(g, {
        tag: 't'.repeat(32),
        gno: '9223372036854775806',
        lastCommitted: -5,
        originalCommitTimestamp: 1_700_000_000_000_000,
        originalServerVersion: 80400,
        commitGroupTicket: '18446744073709551615',
        // Field 12 (varint 0x18), as a later server might add, then its string value.
        laterFields: { hex: `1814${'61'.repeat(20)}` },
        transactionLength: null,
        messageSize: undefined,
      });
      const back = decodeNested(encodeBinlog(json.map((e) => eventFromJson(e)))) as Loose[];
      const h = back.find((e) => e.type === 'GTID_TAGGED_LOG_EVENT')!;
      expect(h).toMatchObject({
        tag: 't'.repeat(32),
        gno: 9223372036854775806n,
        lastCommitted: -5n,
        originalServerVersion: 80400,
        commitGroupTicket: 18446744073709551615n,
      });
      expect(h.messageSize).toBeGreaterThan(127);
      expect(h.messageSize).toBe(h.header.eventSize - 19 - 4);
      const end = back.findIndex((e) => e.type === 'XID_EVENT');
      expect(h.transactionLength).toBe(
        BigInt(back.slice(back.indexOf(h), end + 1).reduce((n, e) => n + e.header.eventSize, 0)),
      );
    },
  );
});

describe('TRANSACTION_PAYLOAD written from inner events', () => {
  const inner = sampleTransaction();

  for (const compressionType of ['ZSTD', 'NONE'] as const) {
    it(`${compressionType}: the events decode back, with the rows' values, log_pos 0 and no checksums`, () => {
      const bytes = encodeBinlog([FDE, payloadEvent({ compressionType, events: inner })]);
      const p = payloadOf(decodeNested(bytes));
      expect(p.compressionType).toBe(compressionType);
      expect(p.events!.map((e) => e.type)).toEqual(['TABLE_MAP_EVENT', 'WRITE_ROWS_EVENT_V1', 'XID_EVENT']);
      expect(p.events!.every((e) => e.checksum === undefined && e.header.logPos === 0)).toBe(true);
      expect((p.events![1] as Loose).rows).toEqual([
        { after: { id: 1, name: 'Ada', score: '91.50', born: '1815-12-10', note: null } },
        { after: { id: 2, name: 'Bjørn', score: '77.25', born: null, note: Uint8Array.of(0x00, 0xff) } },
      ]);
      const size = p.events!.reduce((n, e) => n + e.header.eventSize, 0);
      if (compressionType === 'NONE') expect(p).not.toHaveProperty('uncompressedSize', expect.anything());
      else expect(p.uncompressedSize).toBe(BigInt(size));
      expect(Buffer.compare(encodeBinlog(decodeNested(bytes)), bytes)).toBe(0);
    });
  }

  it("from the dump's JSON, the payload may be left out: the events make it", () => {
    const json = JSON.parse(
      toJsonLine({ header: header(40), type: 'TRANSACTION_PAYLOAD_EVENT', compressionType: 'ZSTD', events: inner }),
    );
    expect(json).not.toHaveProperty('payload');
    const p = payloadOf(decodeNested(encodeBinlog([FDE, eventFromJson(json)])));
    expect(p.events!.map((e) => e.type)).toEqual(['TABLE_MAP_EVENT', 'WRITE_ROWS_EVENT_V1', 'XID_EVENT']);
  });

  it('only a payload event holds events', () => {
    const xid = looseInput({ header: header(16), type: 'XID_EVENT', xid: 1n, events: inner });
    expect(() => encodeBinlog([FDE, xid])).toThrow(/only a TRANSACTION_PAYLOAD_EVENT holds events/);
  });

  it('the zstd frame is standard: the zstd command gives back the inner events', () => {
    const zstd = spawnSync('zstd', ['--version']);
    if (zstd.error) {
      noteSkip('no zstd command to check the frame with (install zstd)');
      return;
    }
    const plainBytes = encodeBinlog([FDE, payloadEvent({ compressionType: 'NONE', events: inner })]);
    const zstdBytes = encodeBinlog([FDE, payloadEvent({ compressionType: 'ZSTD', events: inner })]);
    const plain = payloadOf(decodeNested(plainBytes)).payload as Uint8Array;
    const frame = payloadOf(decodeNested(zstdBytes)).payload as Uint8Array;
    const out = spawnSync('zstd', ['-d', '-c'], { input: frame });
    expect(out.status).toBe(0);
    expect(Buffer.compare(out.stdout, plain)).toBe(0);
  });
});

describe('forged payloads give typed errors, without large allocations', () => {
  const inner = sampleTransaction();
  const good = payloadOf(decodeNested(encodeBinlog([FDE, payloadEvent({ compressionType: 'ZSTD', events: inner })])));
  const frame = good.payload as Uint8Array;
  const plainSize = Number(good.uncompressedSize);
  /** The payload event as given (no inner events: its fields are written as they are). */
  const forged = (fields: Record<string, unknown>) =>
    errorOf(
      encodeBinlog([
        FDE,
        payloadEvent({ compressionType: 'ZSTD', uncompressedSize: good.uncompressedSize, payload: frame, ...fields }),
      ]),
    );
  const rawBody = (body: number[]) => errorOf(encodeBinlog([FDE, payloadEvent({ raw: Uint8Array.from(body) })]));

  it('an uncompressed size of 2^40, refused unread', () => {
    const before = process.memoryUsage().arrayBuffers;
    expect(forged({ uncompressedSize: 1n << 40n })).toMatchObject({
      kind: 'length',
      schemaPath: 'TransactionPayloadEvent.payload',
      eventType: 40,
    });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });

  it('an uncompressed size other than the one the frame header states', () => {
    expect(forged({ uncompressedSize: 10n })).toMatchObject({
      kind: 'invalid-value',
      message: expect.stringMatching(`holds ${plainSize} bytes, not the 10 declared`),
    });
    // More than the stated size is more than its single segment (a window of that size) can hold.
    expect(forged({ uncompressedSize: BigInt(plainSize + 5) }).message).toMatch(/more than its zstd frame can hold/);
  });

  it('a truncated frame, garbage after the magic, no magic at all', () => {
    expect(forged({ payload: frame.subarray(0, frame.length - 4) }).kind).toBe('truncated');
    expect(forged({ payload: frame.subarray(0, 7) }).kind).toBe('truncated');
    // The frame's header (6 bytes, single segment), then one last compressed block of 8 garbage bytes.
    expect(frame[4]).toBe(0x20);
    const garbage = Uint8Array.from([
      ...frame.subarray(0, 6),
      1 | (2 << 1) | (8 << 3),
      0,
      0,
      ...new Uint8Array(8).fill(0xa5),
    ]);
    expect(forged({ payload: garbage }).message).toMatch(/does not uncompress/);
    expect(forged({ payload: Uint8Array.from([...frame.subarray(0, 6), ...new Uint8Array(40).fill(0xa5)]) }).kind).toBe(
      'truncated',
    );
    expect(forged({ payload: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]) }).message).toMatch(/not a zstd frame/);
  });

  it('a frame that asks for a 2 TiB window', () => {
    const before = process.memoryUsage().arrayBuffers;
    const window = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 31 << 3, 1, 0, 0]);
    expect(forged({ payload: window })).toMatchObject({ kind: 'length', message: expect.stringMatching(/window/) });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });

  it('a second frame after the first (with a window of its own to allocate), or bytes after the frame', () => {
    const before = process.memoryUsage().arrayBuffers;
    const second = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 20 << 3, 1, 0, 0]);
    expect(forged({ payload: Uint8Array.from([...frame, ...second]) }).message).toMatch(/not one zstd frame: 9 bytes/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    expect(forged({ payload: Uint8Array.from([...frame, 0]) }).kind).toBe('invalid-value');
  });

  it('inner events whose lengths are impossible, or cut short', () => {
    const events = payloadOf(
      decodeNested(encodeBinlog([FDE, payloadEvent({ compressionType: 'NONE', events: inner })])),
    ).payload as Uint8Array;
    const withSize = (size: number) => {
      const b = Uint8Array.from(events);
      new DataView(b.buffer).setUint32(9, size, true);
      return b;
    };
    const none = (payload: Uint8Array) => forged({ compressionType: 'NONE', uncompressedSize: undefined, payload });
    expect(none(withSize(5))).toMatchObject({
      kind: 'length',
      message: expect.stringMatching(/inner event at 0 has an impossible event_size 5/),
    });
    expect(none(withSize(0x7fff_ffff)).kind).toBe('length');
    expect(none(events.subarray(0, events.length - 5)).kind).toBe('length');
    expect(none(events.subarray(0, 10)).kind).toBe('truncated');
  });

  it('a bad inner event is named by its offset in the payload, at the payload event', () => {
    const p = payloadOf(decodeNested(encodeBinlog([FDE, payloadEvent({ compressionType: 'NONE', events: inner })])));
    // Without its TABLE_MAP, the WRITE_ROWS now at 0 names an unknown table.
    const withoutMap = (p.payload as Uint8Array).subarray(p.events![0]!.header.eventSize);
    const error = forged({ compressionType: 'NONE', uncompressedSize: undefined, payload: withoutMap });
    expect(error).toMatchObject({ kind: 'unknown-table', eventType: 40, eventPos: 4 + 122 });
    expect(error.message).toMatch(/inner event at 0 of the payload/);
  });

  it('header fields: a payload size past the event, none at all, an unknown compression', () => {
    expect(rawBody([2, 1, 0, 1, 3, 0xfc, 0xff, 0xff, 0, 1, 2, 3])).toMatchObject({
      kind: 'length',
      schemaPath: 'TransactionPayloadEvent.payload',
    });
    expect(rawBody([2, 1, 0, 0]).message).toMatch(/needs its compression type and payload size/);
    expect(rawBody([2, 1, 7, 1, 1, 0, 0]).message).toMatch(/unknown payload compression 7/);
  });
});

describeWithFixtures("TRANSACTION_PAYLOAD's header fields read as MySQL reads them", () => {
  // Transaction_payload::decode (libs/mysql/binlog/event/codecs/binary.cpp) loops over id, length,
  // value until id 0, setting the field an id names (so the last of a repeated id counts) and skipping
  // other ids by their length. Transaction_payload::encode writes 2, 3, 1, then 0.
  const file = read(compression);
  const fixtureEvents = decodeNested(file);
  const fixture = payloadOf(fixtureEvents);
  const at = fixtureEvents.indexOf(fixture);
  const body = file.subarray(fixture.pos + 19, fixture.pos + fixture.header.eventSize - 4);
  // compression type 2 = ZSTD (0), uncompressed size 3 = 179, payload size 1 = 124, end mark 0.
  const serverHeader = [2, 1, 0, 3, 1, 179, 1, 1, 124, 0];
  const frame = body.subarray(serverHeader.length);
  /** The fixture with its payload event's header fields replaced by `fields` (the end mark added). */
  const withHeader = (fields: number[]) =>
    encodeBinlog([...fixtureEvents.slice(0, at), payloadEvent({ raw: Uint8Array.from([...fields, 0, ...frame]) })]);
  const innerJson = (p: Loose) => p.events!.map((e) => toJsonLine(e));
  const roundTrips = (bytes: Uint8Array) => {
    const events = decodeNested(bytes);
    expect(Buffer.compare(encodeBinlog(events), bytes)).toBe(0);
    expect(Buffer.compare(viaJson(events), bytes)).toBe(0);
    return payloadOf(events);
  };

  it('the fixture stores the server order, and decodes without a keyOrder', () => {
    expect([...body.subarray(0, serverHeader.length)]).toEqual(serverHeader);
    expect(frame.length).toBe(124);
    expect(fixture.keyOrder).toBeUndefined();
  });

  it('reordered, with an unknown id between: the same values, the order kept, the same bytes back', () => {
    const forged = withHeader([1, 1, 124, 7, 3, 0xaa, 0xbb, 0xcc, 3, 1, 179, 2, 1, 0]);
    const p = roundTrips(forged);
    expect(p).toMatchObject({ compressionType: 'ZSTD', uncompressedSize: 179n, payloadSize: 124 });
    expect(Buffer.compare(p.payload as Uint8Array, frame)).toBe(0);
    expect(innerJson(p)).toEqual(innerJson(fixture));
    expect(p.keyOrder).toEqual([1, { id: 7, bytes: Uint8Array.from([0xaa, 0xbb, 0xcc]) }, 3, 2]);
    // Without its keyOrder the event is written in the server's order, as the fixture has it.
    const { keyOrder: _order, checksum: _checksum, ...rest } = p;
    const again = encodeBinlog([
      ...fixtureEvents.slice(0, at),
      { ...rest, header: fixture.header } as BinlogEventInput,
    ]);
    expect(Buffer.compare(again, file.subarray(0, fixture.pos + fixture.header.eventSize))).toBe(0);
  });

  it('a repeated id: the last value counts, the earlier one is kept as stored', () => {
    // Compression NONE (255, packed fc ff 00), then ZSTD; a payload size of 5, then 124.
    const forged = withHeader([2, 3, 0xfc, 0xff, 0, 1, 1, 5, 2, 1, 0, 3, 1, 179, 1, 1, 124]);
    const p = roundTrips(forged);
    expect(p).toMatchObject({ compressionType: 'ZSTD', uncompressedSize: 179n, payloadSize: 124 });
    expect(innerJson(p)).toEqual(innerJson(fixture));
    expect(p.keyOrder).toEqual([
      { id: 2, bytes: Uint8Array.from([0xfc, 0xff, 0]) },
      { id: 1, bytes: Uint8Array.from([5]) },
      2,
      3,
      1,
    ]);
  });

  it('an unknown id whose length runs past the event: a typed error, nothing allocated for it', () => {
    const before = process.memoryUsage().arrayBuffers;
    // 2^40 (fe + 8 bytes), and 200 (the event holds fewer).
    for (const length of [[0xfe, 0, 0, 0, 0, 0, 1, 0, 0], [200]]) {
      const error = errorOf(withHeader([2, 1, 0, 9, ...length]));
      expect(error).toMatchObject({ kind: 'length', schemaPath: 'TransactionPayloadEvent.keyOrder', eventType: 40 });
    }
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });
});

describe('HEARTBEAT_V2', () => {
  const event: BinlogEventInput = {
    header: header(41),
    type: 'HEARTBEAT_LOG_EVENT_V2',
    logFilename: 'binlog.000042',
    logPosition: 1234n,
  };

  it("is written as MySQL's Heartbeat codec writes it: file name, position, end mark", () => {
    const bytes = encodeBinlog([FDE, event]);
    const [, hb] = decodeNested(bytes) as Loose[];
    const body = bytes.subarray(hb!.pos + 19, hb!.pos + hb!.header.eventSize - 4);
    // id 1, length 13, the name; id 2, length 3, 1234 as a packed integer (0xfc + 2 bytes); id 0.
    expect([...body]).toEqual([1, 13, ...Buffer.from('binlog.000042'), 2, 3, 0xfc, 0xd2, 0x04, 0]);
    expect(hb).toMatchObject({ logFilename: 'binlog.000042', logPosition: 1234n });
    expect(Buffer.compare(viaJson(decodeNested(bytes)), bytes)).toBe(0);
  });
});

describe('GTID_TAGGED from its bytes', () => {
  const tagged = (body: number[]) =>
    encodeBinlog([FDE, { header: header(42), type: 'GTID_TAGGED_LOG_EVENT', raw: Uint8Array.from(body) }]);

  it('a message of no fields keeps them all absent, and encodes back', () => {
    // Format 1, 3 bytes in all, no field that may not be skipped.
    const bytes = tagged([0x02, 0x06, 0x00]);
    const [, g] = decodeNested(bytes) as Loose[];
    expect(g).toMatchObject({
      type: 'GTID_TAGGED_LOG_EVENT',
      serializationVersion: 1,
      messageSize: 3,
      lastNonIgnorableField: 0,
    });
    for (const f of ['flags', 'sid', 'gno', 'tag', 'transactionLength', 'laterFields']) expect(g![f]).toBeUndefined();
    expect(Buffer.compare(viaJson(decodeNested(bytes)), bytes)).toBe(0);
  });

  it('a message size that is not the message, a UUID byte over 255, a cut varint', () => {
    expect(errorOf(tagged([0x02, 0x08, 0x00]))).toMatchObject({
      kind: 'schema-check',
      schemaPath: 'GtidTaggedEvent.messageSize',
    });
    expect(errorOf(tagged([0x02, 0x2c, 0x00, 0x02, 0xfd, 0xff, 0x07, ...new Array(15).fill(0)]))).toMatchObject({
      kind: 'invalid-value',
      schemaPath: 'GtidTaggedEvent.sid',
    });
    expect(errorOf(tagged([0x02, 0x0a, 0x00, 0x04, 0xff]))).toMatchObject({
      kind: 'truncated',
      schemaPath: 'GtidTaggedEvent.gno',
    });
  });
});
