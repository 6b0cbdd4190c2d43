/**
 * The state an EventEncoder leaves is the one a decoder has after reading what it wrote: taken from the
 * encoder's input (issue 12), it must still be the decoder's exactly, for every real binlog (through the
 * dump's JSON, whose inputs lack the computed fields) and for inputs that the bytes read otherwise than
 * they were given (a checksum algorithm a server of that version does not write, a version given as bytes,
 * a caller changing its event afterwards, a plaintext event after START_ENCRYPTION).
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { BinlogError } from '../runtime/core/errors.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import {
  EventDecoder,
  EventEncoder,
  eventFromJson,
  isEventType,
  type BinlogEvent,
  type BinlogEventInput,
} from '../runtime/events/event-codec.js';
import { FormatState } from '../runtime/events/format-state.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { MYSQL_8_0_32_FDE } from './support/mysql-fde.js';

/** What a FormatState holds for the events after: everything but the context it refills per event. */
function stateOf(f: FormatState) {
  const { binlogVersion, headerLength, postHeaderLengths, permutation, checksums, serverVersion, encrypted, tables } =
    f;
  return {
    binlogVersion,
    headerLength,
    postHeaderLengths: [...postHeaderLengths],
    permutation,
    checksums,
    serverVersion,
    encrypted,
    tables,
  };
}

/**
 * Encodes `events` one by one, each output read at once by a decoder of its own: after every event that
 * changes the state, and after the last, the two states must be equal (after a TABLE_MAP, its table's).
 * Returns the encoded events.
 */
function expectSameStates(events: BinlogEventInput[], offset = 4): Uint8Array[] {
  const encoder = new EventEncoder();
  const decoder = new EventDecoder();
  return events.map((e, i) => {
    const bytes = encoder.encode(e, offset);
    const read = decoder.decode(bytes, offset);
    const where = `after event ${i} (${e.type})`;
    if (i === events.length - 1) expect(stateOf(encoder.format), where).toEqual(stateOf(decoder.format));
    else if (isEventType(read, 'TABLE_MAP_EVENT'))
      expect(encoder.format.tables.get(read.tableId), where).toEqual(decoder.format.tables.get(read.tableId));
    else if (FormatState.changesFormat(decoder.format.realCode(read.header.typeCode)))
      expect(stateOf(encoder.format), where).toEqual(stateOf(decoder.format));
    offset += bytes.length;
    return bytes;
  });
}

const header = (typeCode: number) => ({ timestamp: 1_700_000_000, typeCode, serverId: 1, flags: 0 });

/** An FDE input: MySQL 8.0.32's post-header lengths unless given. */
function fde(fields: Record<string, unknown>): BinlogEventInput {
  return { ...MYSQL_8_0_32_FDE, header: header(15), ...fields } as BinlogEventInput;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const xid: BinlogEventInput = { header: header(16), type: 'XID_EVENT', xid: 1n };

describe('EventEncoder leaves the state its output gives a decoder', () => {
  it('checksums only where the server version makes the FDE carry its algorithm', () => {
    // A 5.5 server writes no algorithm byte: the one given is not written, and events have no CRC32.
    const bytes = expectSameStates([fde({ serverVersion: '5.5.40-log' }), xid]);
    expect(bytes[1]!.length).toBe(19 + 8);
    expectSameStates([
      fde({ serverVersion: '5.6.1' }),
      fde({ serverVersion: '10.1.2-MariaDB', checksumAlg: 'BINLOG_CHECKSUM_ALG_OFF' }),
    ]);
  });

  it('the server version as its padded field reads: bytes that are text, text with a NUL', () => {
    expectSameStates([fde({ serverVersion: utf8('10.11.6-MariaDB-log') })]);
    expectSameStates([
      fde({ serverVersion: utf8('5.2.2-a_drop6p13'), postHeaderLengths: Array.from({ length: 22 }, (_, i) => i + 1) }),
    ]);
    // What follows a NUL is not padding: the field reads as bytes, no version at all.
    expectSameStates([fde({ serverVersion: '10.5.1-MariaDB\u0000x' })]);
    expectSameStates([fde({ serverVersion: '5.5.0\u0000 mariadb' })]);
  });

  it("keeps no array of the caller's: an FDE changed after it was encoded changes nothing", () => {
    const postHeaderLengths = [...MYSQL_8_0_32_FDE.postHeaderLengths];
    const first = fde({ postHeaderLengths });
    const encoder = new EventEncoder();
    encoder.encode(first, 4);
    const before = stateOf(encoder.format);
    postHeaderLengths.fill(7);
    expect(stateOf(encoder.format)).toEqual(before);
  });

  it(
    'a drop tree FDE listing another number of types is ' + 'refused as the decoder refuses it, placed at the event',
    () => {
      const bad = fde({ serverVersion: '5.2.2-a_drop6p13', postHeaderLengths: [1, 2, 3] });
      const decoded = caught(() => new EventDecoder().decode(bytesOf(bad), 4));
      const encoded = caught(() => new EventEncoder().encode(bad, 4));
      expect(encoded.message).toBe(decoded.message);
      expect(encoded.eventPos).toBe(4);
    },
  );

  it('START_EVENT_V3 of a v1 and of a v3 file', () => {
    const start = (flags?: number): BinlogEventInput => ({
      header: { timestamp: 1, typeCode: 1, serverId: 1, ...(flags === undefined ? {} : { flags }) },
      type: 'START_EVENT_V3',
      binlogVersion: 3,
      serverVersion: '4.0.20',
      createTimestamp: 0,
    });
    expectSameStates([start()]);
    expectSameStates([start(0)]);
  });

  it('nothing after START_ENCRYPTION changes it, even an event given as plaintext', () => {
    const encryption: BinlogEventInput = {
      header: header(164),
      type: 'START_ENCRYPTION_EVENT',
      scheme: 1,
      keyVersion: 1,
      nonce: new Uint8Array(12),
    };
    expectSameStates([
      fde({ serverVersion: '10.11.6-MariaDB' }),
      encryption,
      fde({ serverVersion: '8.0.32', checksumAlg: 'BINLOG_CHECKSUM_ALG_OFF' }),
    ]);
  });
});

describeWithFixtures(
  'EventEncoder leaves the state of a decoder of what it wrote, for every real binlog of up to 1 MB',
  () => {
    // The three larger files repeat what the others hold; test/fixtures.test.ts round-trips them.
    for (const f of fixtures().filter((f) => statSync(f.path).size <= 1e6)) {
      it(f.name, () => {
        const events = decodedOrNot(readFileSync(f.path));
        // Damaged on purpose: test/fixtures.test.ts checks their errors.
        if (!events) return;
        // Through the dump's JSON, whose inputs leave the computed fields out.
        expectSameStates(
          events.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`)),
          events[0]?.pos ?? 4,
        );
      });
    }
  },
);

/**
 * The bytes an encoder writes for an event at offset 4, the state it leaves not made (for a decoder to refuse them).
 */
function bytesOf(event: BinlogEventInput): Uint8Array {
  const encoder = new EventEncoder();
  vi.spyOn(encoder.format, 'after').mockImplementation(() => {});
  return encoder.encode(event, 4);
}

function decodedOrNot(bytes: Uint8Array): BinlogEvent[] | undefined {
  try {
    return decodeBinlog(bytes);
  } catch (e) {
    if (e instanceof BinlogError) return undefined;
    throw e;
  }
}

function caught(fn: () => unknown): BinlogError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BinlogError) return e;
    throw e;
  }
  throw new Error('nothing was thrown');
}
