/** Broken and hostile input: truncation anywhere, forged lengths, flipped checksums, salvage. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { BinlogError } from '../runtime/core/errors.js';
import { readBinlog, decodeBinlog, encodeBinlog, iterateBinlog } from '../runtime/io/stream.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';

const sample = new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin')));
const events = decodeBinlog(sample);

function collect(bytes: Uint8Array): { events: BinlogEvent[]; error?: BinlogError } {
  const out: BinlogEvent[] = [];
  try {
    for (const e of iterateBinlog(bytes)) out.push(e);
    return { events: out };
  } catch (e) {
    if (!(e instanceof BinlogError)) throw e;
    return { events: out, error: e };
  }
}

/** A copy of the sample with one event's bytes changed by `edit`, and its CRC32 recomputed. */
function withEvent(index: number, edit: (event: Uint8Array, dv: DataView) => void): Uint8Array {
  const e = events[index]!;
  const out = Uint8Array.from(sample);
  const bytes = out.subarray(e.pos, e.pos + e.header.eventSize);
  edit(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  new DataView(out.buffer).setUint32(e.pos + e.header.eventSize - 4, crc32(bytes.subarray(0, bytes.length - 4)), true);
  return out;
}

/** A copy of the sample with one event replaced by other bytes: its size and CRC32 made right again. */
function replaceEvent(index: number, make: (body: Uint8Array) => Uint8Array): Uint8Array {
  const e = events[index]!;
  const old = sample.subarray(e.pos, e.pos + e.header.eventSize);
  const event = Uint8Array.from([...old.subarray(0, 19), ...make(old.subarray(19, old.length - 4)), 0, 0, 0, 0]);
  const dv = new DataView(event.buffer);
  dv.setUint32(9, event.length, true);
  dv.setUint32(event.length - 4, crc32(event.subarray(0, event.length - 4)), true);
  return Uint8Array.from([...sample.subarray(0, e.pos), ...event, ...sample.subarray(e.pos + e.header.eventSize)]);
}

describe('truncation', () => {
  it('at every byte offset: every complete event before the cut, then the incomplete event named', () => {
    for (let cut = 0; cut < sample.length; cut++) {
      const { events: got, error } = collect(sample.subarray(0, cut));
      const complete = events.filter((e) => e.pos + e.header.eventSize <= cut);
      expect(got.length, `cut at ${cut}`).toBe(complete.length);
      if (cut < 4) {
        expect(error?.kind).toBe('bad-magic');
        continue;
      }
      const next = events[complete.length];
      if (next && cut > next.pos) {
        expect([error?.kind, error?.eventPos], `cut at ${cut}`).toEqual(['truncated', next.pos]);
        expect(error?.offset).toBe(cut);
      } else {
        expect(error, `cut at ${cut}`).toBeUndefined();
      }
    }
  });

  it('the streaming reader agrees, whatever the chunk size', async () => {
    const cut = events[20]!.pos + 10;
    for (const size of [1, 7, 64, 4096]) {
      const chunks = async function* () {
        for (let i = 0; i < cut; i += size) yield sample.subarray(i, Math.min(i + size, cut));
      };
      const got: BinlogEvent[] = [];
      await expect(
        (async () => {
          for await (const e of readBinlog(chunks())) got.push(e);
        })(),
      ).rejects.toMatchObject({ kind: 'truncated', eventPos: events[20]!.pos });
      expect(got).toHaveLength(20);
    }
  });
});

/**
 * A row image that does not split is no error: every event is read, the row event with its images kept
 * whole and the reason, and the bytes encode back.
 */
function expectKeptWhole(b: Uint8Array, write: number, reason: RegExp): void {
  const { events: got, error } = collect(b);
  expect(error).toBeUndefined();
  expect(got).toHaveLength(events.length);
  const kept = got[write] as BinlogEvent & { rows?: unknown; rowImages?: Uint8Array; rowImagesUndecoded?: string };
  expect(kept.rows).toBeUndefined();
  expect(kept.rowImages!.length).toBeGreaterThan(0);
  expect(kept.rowImagesUndecoded).toMatch(reason);
  expect(Buffer.compare(Buffer.from(encodeBinlog(got)), Buffer.from(b))).toBe(0);
}

describe('forged lengths give typed errors or images kept whole, without large allocations', () => {
  const tableMap = events.findIndex((e) => e.type === 'TABLE_MAP_EVENT');
  const write = events.findIndex((e) => e.type === 'WRITE_ROWS_EVENT_V1');

  it('an event_size of 2^31 (and of less than a header)', () => {
    for (const size of [0x8000_0000, 0xffff_ffff, 5]) {
      const b = Uint8Array.from(sample);
      new DataView(b.buffer).setUint32(events[3]!.pos + 9, size, true);
      const before = process.memoryUsage().arrayBuffers;
      const error = collect(b).error;
      expect(['length', 'truncated']).toContain(error?.kind);
      expect(error?.eventPos).toBe(events[3]!.pos);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    }
  });

  it('a column count of 2^32 in a TABLE_MAP', () => {
    const at = 8 + 1 + 6 + 1 + 1 + 6 + 1; // table id and flags, then "sample" and "people" with their lengths and NULs
    const forged = replaceEvent(tableMap, (body) => {
      expect(body[at]).toBe(5);
      return Uint8Array.from([...body.subarray(0, at), 0xfe, 0, 0, 0, 0, 1, 0, 0, 0, ...body.subarray(at + 1)]);
    });
    const before = process.memoryUsage().arrayBuffers;
    expect(collect(forged).error).toMatchObject({
      kind: 'length',
      eventPos: events[tableMap]!.pos,
      schemaPath: 'TableMapEvent.columnTypes',
    });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });

  it('a BLOB length of 4 GB in a row image', () => {
    // sample row 2's note is x'00ff', a BLOB with a 2-byte length 02 00; forge it to ff ff ff ff ... via a pack length
    // of 4
    const b = withEvent(write, (ev) => {
      const i = ev.findIndex((x, k) => x === 0x02 && ev[k + 1] === 0x00 && ev[k + 2] === 0x00 && ev[k + 3] === 0xff);
      ev[i] = 0xff;
      ev[i + 1] = 0xff;
    });
    expectKeptWhole(
      b,
      write,
      new RegExp(
        String.raw`^the row images do not split into rows: length 65535 runs past the end \(2 bytes left\) ` +
          String.raw`\(RowsEvent\.rows\.note\); kept as bytes$`,
      ),
    );
  });

  it('a LONGBLOB length of 4 GB', () => {
    // Make the BLOB column a LONGBLOB (pack length 4) in the TABLE_MAP: its row values' lengths then
    // read as 4 bytes, and the second row's, 02 00 00 ff, claims 4 GB.
    const b = withEvent(tableMap, (ev) => {
      const meta = 19 + 8 + 1 + 6 + 1 + 1 + 6 + 1 + 1 + 5 + 1; // after the column types and the metadata length
      expect([...ev.subarray(meta, meta + 5)]).toEqual([0xa0, 0x00, 0x06, 0x02, 0x02]);
      ev[meta + 4] = 4;
    });
    expect(b.length).toBe(sample.length);
    const before = process.memoryUsage().arrayBuffers;
    expectKeptWhole(b, write, /^the row images do not split into rows: .*length \d{10} runs past the end/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
  });

  it('a TLV entry whose length runs past the event', () => {
    const b = withEvent(tableMap, (ev) => {
      // The last optional metadata entry, SIMPLE_PRIMARY_KEY (8), length 1: make it 100.
      const i = ev.length - 4 - 3;
      expect([ev[i], ev[i + 1]]).toEqual([8, 1]);
      ev[i + 1] = 100;
    });
    expect(collect(b).error).toMatchObject({
      kind: 'length',
      eventPos: events[tableMap]!.pos,
      schemaPath: 'TableMapEvent.TableMapEventOptionalMetadataEntry',
    });
  });

  it('a packed integer of 0xFF', () => {
    const b = withEvent(tableMap, (ev) => {
      ev[19 + 8 + 1 + 6 + 1 + 1 + 6 + 1] = 0xff;
    });
    expect(collect(b).error).toMatchObject({ kind: 'invalid-value', schemaPath: 'TableMapEvent.columnCount' });
  });
});

describe('checksums', () => {
  it('a flipped CRC32 in each event is caught at that event, with both values', () => {
    for (const e of events) {
      const b = Uint8Array.from(sample);
      b[e.pos + e.header.eventSize - 1]! ^= 0x80;
      const error = collect(b).error;
      expect(error, `event at ${e.pos}`).toMatchObject({ kind: 'checksum', eventPos: e.pos });
      expect(error!.message).toMatch(/stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}/);
    }
  });

  it('verification can be turned off', () => {
    const b = Uint8Array.from(sample);
    b[events[5]!.pos + events[5]!.header.eventSize - 1]! ^= 0x80;
    expect(decodeBinlog(b, { verifyChecksum: false })).toHaveLength(events.length);
  });
});

describe('salvage: skipping what cannot be decoded', () => {
  it('records each skipped event and delivers it raw, with every other event decoded', () => {
    const b = Uint8Array.from(sample);
    const bad = [6, 11]; // a QUERY and an XID
    for (const i of bad) b[events[i]!.pos + events[i]!.header.eventSize - 1]! ^= 1;
    const skipped: BinlogError[] = [];
    const got = decodeBinlog(b, { onError: (e) => (skipped.push(e), 'skip') });
    expect(skipped.map((e) => [e.kind, e.eventPos])).toEqual(bad.map((i) => ['checksum', events[i]!.pos]));
    // A skipped event is typed UNDECODED_EVENT, never with its type's name but without its fields; its
    // header keeps the type code.
    expect(got.map((e) => e.type)).toEqual(events.map((e, i) => (bad.includes(i) ? 'UNDECODED_EVENT' : e.type)));
    expect(got.map((e) => e.header.typeCode)).toEqual(events.map((e) => e.header.typeCode));
    expect(got.map((e, i) => 'raw' in e && i)).toEqual(got.map((_, i) => bad.includes(i) && i));
    // Nothing is lost: the raw body is the event's bytes between its header and its checksum.
    const e = events[6]!;
    const raw = got[6]!;
    if (raw.type !== 'UNDECODED_EVENT') throw new Error(`a ${raw.type}`);
    expect(raw.raw).toEqual(b.subarray(e.pos + 19, e.pos + e.header.eventSize - 4));
    // Encoded again, with checksums computed, they are the original events.
    expect(Buffer.compare(encodeBinlog(got), sample)).toBe(0);
  });

  it('a skipped TABLE_MAP makes its row event unreadable too, and says why', () => {
    const b = Uint8Array.from(sample);
    const i = events.findIndex((e) => e.type === 'TABLE_MAP_EVENT');
    b[events[i]!.pos + events[i]!.header.eventSize - 1]! ^= 1;
    const skipped: BinlogError[] = [];
    decodeBinlog(b, { onError: (e) => (skipped.push(e), 'skip') });
    expect(skipped.map((e) => e.kind)).toEqual(['checksum', 'unknown-table']);
  });
});

describe('an inflated header length under --on-error=skip (fuzzer case D2)', () => {
  /** The sample with its FORMAT_DESCRIPTION saying every header is `length` bytes, its CRC32 made right. */
  function withHeaderLength(length: number): Uint8Array {
    const fde = events.findIndex((e) => e.type === 'FORMAT_DESCRIPTION_EVENT');
    // The header length follows the binlog version (2 bytes), the server version (50) and a timestamp (4).
    return withEvent(fde, (bytes) => void (bytes[19 + 2 + 50 + 4] = length));
  }

  it('keeps each event that cannot be read as bytes of its own, its checksum its own last four bytes', () => {
    const skipped: BinlogError[] = [];
    const smallest = Math.min(...events.map((e) => e.header.eventSize));
    const bytes = withHeaderLength(smallest - 2);
    // The sample lies inside a larger buffer whose bytes after it are not zero, so a read past it shows.
    const padded = new Uint8Array(bytes.length + 16).fill(0xee);
    padded.set(bytes);
    const got = decodeBinlog(padded.subarray(0, bytes.length), { onError: (e) => (skipped.push(e), 'skip') });
    expect(skipped.length).toBeGreaterThan(0);
    for (const e of got) {
      const own = bytes.subarray(e.pos, e.pos + e.header.eventSize);
      if (e.checksum !== undefined) {
        expect(e.checksum).toBe(new DataView(own.buffer, own.byteOffset + own.length - 4).getUint32(0, true));
      }
    }
    expect(got.at(-1)!.pos + got.at(-1)!.header.eventSize).toBe(bytes.length);
  });
});
