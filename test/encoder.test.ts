/**
 * EventEncoder on decoded events that were edited: the writers made once per column (runtime/values/cells.ts)
 * write each value as given, never one kept from an earlier row, and refuse a bad value with an
 * EncodeError naming its column; a TABLE_MAP is read back again only when its body changes, and the rows
 * after an edited one follow the edit.
 */
import { describe, expect, it, vi } from 'vitest';
import * as rowCodecs from '../generated/rows.js';
import type { MaxLengthMeta, TableMapEvent } from '../generated/rows.js';
import { BinlogWriter, type TableDef } from '../builder/index.js';
import { EncodeError } from '../runtime/core/errors.js';
import { type BinlogEvent, EventDecoder, EventEncoder } from '../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { caught } from './runtime/helpers.js';
import type { RowChange } from '../runtime/core/values.js';

const t: TableDef = {
  schema: 'shop',
  name: 'orders',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'amount', type: 'decimal(12,2)' },
    { name: 'at', type: 'datetime(6)' },
    { name: 'status', type: "enum('new','paid','sent')" },
    { name: 'note', type: 'varchar(50)' },
  ],
};
const NOW = '2024-05-06 07:08:09.123456';

/** Three statements on one table (so three TABLE_MAPs of one id and body), the rows of each sharing one time. */
function binlog(): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000 });
  for (let s = 0; s < 3; s++) {
    const rows = [0, 1, 2].map((i) => ({
      id: 10 * s + i,
      amount: `${s}${i}.5${i}`,
      at: NOW,
      status: 'paid',
      note: `Łódź ${s} ${i}`,
    }));
    w.insert(t, rows).commit();
  }
  return w.toBytes();
}

const rowEvents = (events: BinlogEvent[]) =>
  events.filter((e) => e.type === 'WRITE_ROWS_EVENT_V1') as (BinlogEvent & { rows: RowChange[] })[];
const tableMaps = (events: BinlogEvent[]) =>
  events.filter((e) => e.type === 'TABLE_MAP_EVENT') as (BinlogEvent & TableMapEvent)[];

/** Encodes the events one by one with one encoder, as encodeBinlog does, and throws what the first bad one throws. */
function encodeAll(events: BinlogEvent[]): void {
  const encoder = new EventEncoder();
  let offset = 4;
  for (const e of events) offset += encoder.encode(e, offset).length;
}

describe('EventEncoder on edited rows', () => {
  it('gives back the bytes it read, repeated values and TABLE_MAPs included', () => {
    const bytes = binlog();
    expect(Buffer.compare(encodeBinlog(decodeBinlog(bytes)), bytes)).toBe(0);
  });

  it(
    'takes its state from its input: no event it writes is ' + 'decoded, and a repeated TABLE_MAP is not read at all',
    () => {
      const events = decodeBinlog(binlog());
      const decode = vi.spyOn(EventDecoder.prototype, 'decode');
      const readTableMap = vi.spyOn(rowCodecs, 'decodeTableMapEvent');
      try {
        encodeAll(events);
        expect(decode).not.toHaveBeenCalled();
        // Three TABLE_MAPs of one body: the first is read for its computed metadata, the others are the same bytes.
        expect(tableMaps(events)).toHaveLength(3);
        expect(readTableMap).toHaveBeenCalledTimes(1);
      } finally {
        decode.mockRestore();
        readTableMap.mockRestore();
      }
    },
  );

  it('writes each edited value, also one that differs from the row before only where that row repeats a value', () => {
    const events = decodeBinlog(binlog());
    const rows = rowEvents(events)[1]!.rows;
    Object.assign(rows[1]!.after!, {
      at: '2024-05-06 07:08:09.123457',
      amount: '-0.05',
      status: 'sent',
      note: 'naïve 😀 名前',
    });
    Object.assign(rows[2]!.after!, { at: NOW.slice(0, 19), amount: '0001234567890.10' });
    const again = rowEvents(decodeBinlog(encodeBinlog(events)));
    expect(again[1]!.rows.slice(0, 2).map((r) => r.after)).toEqual(rows.slice(0, 2).map((r) => r.after));
    expect(again[1]!.rows[2]!.after).toMatchObject({ at: `${NOW.slice(0, 19)}.000000`, amount: '1234567890.10' });
  });

  it.each([
    ['amount', '1.', /'1\.' is not a decimal/],
    ['amount', '.5', /is not a decimal/],
    ['amount', '-', /is not a decimal/],
    ['amount', '', /is not a decimal/],
    ['amount', '1..2', /is not a decimal/],
    ['amount', '+1', /is not a decimal/],
    ['amount', ' 1', /is not a decimal/],
    ['amount', '1e5', /is not a decimal/],
    ['amount', '1.5-', /is not a decimal/],
    ['amount', '12345678901.00', /does not fit DECIMAL\(12,2\)/],
    ['amount', '1.234', /does not fit DECIMAL\(12,2\)/],
    ['amount', 1.5, /expected a decimal string/],
    ['at', `${NOW}7`, /is not a datetime/],
    ['at', NOW.replace(' ', 'T'), /is not a datetime/],
    ['status', 'lost', /'lost' is not a member/],
    ['note', 'a\ud800b', /lone surrogate/],
    ['id', 2 ** 31, /2147483648 is out of range/],
  ])('refuses %s = %j, naming the column', (column, value, problem) => {
    const events = decodeBinlog(binlog());
    // The row before holds a good value of the column: a writer keeping the last one must not take it.
    rowEvents(events)[2]!.rows[1]!.after![column] = value;
    const e = caught(EncodeError, () => encodeAll(events));
    expect(e.problem).toMatch(problem);
    expect(e.schemaPath).toBe(`$.rows[1].after.${column}`);
  });
});

describe('EventEncoder on an edited TABLE_MAP', () => {
  it(
    'reads it back, and writes the rows after it by it; ' + 'the same body as the one before again is read back too',
    () => {
      const events = decodeBinlog(binlog());
      // 300 bytes for VARCHAR(50)'s 200: the rows after it take a 2-byte length; after the third, 1 byte again.
      const meta = tableMaps(events)[1]!.columnMetadata![4] as MaxLengthMeta;
      meta.maxLength = 300;
      const bytes = encodeBinlog(events);
      const again = decodeBinlog(bytes);
      expect((tableMaps(again)[1]!.columnMetadata![4] as MaxLengthMeta).maxLength).toBe(300);
      expect(rowEvents(again).map((e) => e.rows)).toEqual(rowEvents(events).map((e) => e.rows));
      const sizes = rowEvents(again).map((e) => e.header.eventSize);
      expect(sizes[1]).toBe(sizes[0]! + 3); // one more length byte in each of the three rows
      expect(sizes[2]).toBe(sizes[0]);
    },
  );
});

describe('EventEncoder on rows with keys added or taken away', () => {
  /** The events with the first row's after image replaced by what `edit` makes of it. */
  function withRow(edit: (row: Record<string, unknown>) => object): BinlogEvent[] {
    const events = decodeBinlog(binlog());
    const change = rowEvents(events)[0]!.rows[0]!;
    change.after = edit(change.after!) as RowChange['after'];
    return events;
  }
  const same = (events: BinlogEvent[]) => expect(Buffer.compare(encodeBinlog(events), binlog())).toBe(0);

  it('refuses a key that is no column of the image, and a column without its key', () => {
    expect(caught(EncodeError, () => encodeAll(withRow((r) => ({ ...r, extra: 1 })))).problem).toBe(
      "column 'extra' is not present in this image",
    );
    const { note: _note, ...rest } = rowEvents(decodeBinlog(binlog()))[0]!.rows[0]!.after!;
    expect(caught(EncodeError, () => encodeAll(withRow(() => rest))).problem).toBe(
      "column 'note' is present in the image but has no value",
    );
  });

  it('counts the keys of a row without a prototype as those of a plain one', () => {
    same(withRow((r) => Object.assign(Object.create(null), r)));
    expect(
      caught(EncodeError, () => encodeAll(withRow((r) => Object.assign(Object.create(null), r, { extra: 1 })))).problem,
    ).toMatch(/'extra' is not present/);
  });

  it('counts only own keys while Object.prototype has an enumerable one', () => {
    Object.defineProperty(Object.prototype, 'inherited', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      same(withRow((r) => ({ ...r })));
      expect(caught(EncodeError, () => encodeAll(withRow((r) => ({ ...r, extra: 1 })))).problem).toMatch(
        /'extra' is not present/,
      );
    } finally {
      delete (Object.prototype as { inherited?: number }).inherited;
    }
  });
});
