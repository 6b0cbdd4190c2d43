/**
 * The dump's ways to JSON agree with the reference: the bytes the generated writers
 * (runtime/events/event-dump-json.ts) and JsonBytes.value (runtime/core/dump-json-bytes.ts) write for each event,
 * and what the platform's JSON.stringify writes with the dump's rules for the values plain JSON lacks.
 */
import { expect } from 'vitest';
import { JsonBytes } from '../../runtime/core/dump-json-bytes.js';
import type { BinlogEvent, RowForm } from '../../runtime/events/event-codec.js';
import { type DumpReadEvent, writeDumpEvent, writeEventJson } from '../../runtime/events/event-dump-json.js';
import { decodeBinlog } from '../../runtime/io/stream.js';
import { DUMP_ROWS } from '../../runtime/rows/row-tables.js';

/**
 * The dump's JSON form by JSON.stringify, a reference written apart from the code under test: 64-bit
 * integers are numbers when safe and decimal strings otherwise, bytes are {"hex": …}, -0 is "-0".
 */
function replacer(this: Record<string, unknown>, key: string, v: unknown): unknown {
  // A Buffer has already become { type, data } through its toJSON; the holder still has the bytes.
  const raw = this[key];
  if (raw instanceof Uint8Array)
    return { hex: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('hex') };
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return v;
}

export function referenceLine(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/**
 * Every event a binlog gives when undecodable events are kept as their bytes, its rows eager, lazy or
 * the dump's (`'dump'`); those before a framing error.
 */
export function dumpedEvents(bytes: Uint8Array, rows: RowForm | 'dump' = 'eager'): BinlogEvent[] {
  const out: BinlogEvent[] = [];
  const form = rows === 'dump' ? { [DUMP_ROWS]: true as const } : { rows };
  try {
    for (const e of decodeBinlog(bytes, { onError: () => 'skip', ...form })) out.push(e as BinlogEvent);
  } catch {
    // A framing error ends the file: the events before it are out.
  }
  return out;
}

/** How values are written as bytes: JsonBytes.value, or the generated writers of an event (the dump's way). */
export type WriteJson<T> = (w: JsonBytes, v: T) => void;
const asValue: WriteJson<unknown> = (w, v) => w.value(v);

/** The first value whose two JSON forms differ, with both; undefined when all agree. */
export function jsonDisagreement<T>(
  values: Iterable<T>,
  write: WriteJson<T> = asValue,
): { at: number; reference: string; written: string } | undefined {
  const w = new JsonBytes(1 << 12);
  let at = 0;
  for (const v of values) {
    write(w, v);
    const written = w.take();
    const reference = Buffer.from(referenceLine(v), 'utf8');
    if (!written.equals(reference))
      return { at, reference: reference.toString('utf8'), written: written.toString('utf8') };
    at++;
  }
  return undefined;
}

export function expectSameJson<T>(values: Iterable<T>, where: string, write: WriteJson<T> = asValue): void {
  const d = jsonDisagreement(values, write);
  if (d)
    expect.fail(
      `${where}: value ${d.at} written as\n${d.written.slice(0, 2000)}\nnot as the reference writes ` +
        `it:\n${d.reference.slice(0, 2000)}`,
    );
}

/**
 * Every event of a binlog written three ways: as the dump writes it (decoded with the dump's rows, each
 * cell's JSON from its bytes), by the generated writers from the eager decode, and as JsonBytes.value does;
 * each against the reference line of the eager decode. Returns how many events there were, and how many the
 * generated writers wrote.
 */
export function expectSameEventJson(bytes: Uint8Array, where: string): { events: number; generated: number } {
  const events = dumpedEvents(bytes);
  let generated = 0;
  expectSameJson(events, where, (w, e) => {
    if (writeEventJson(w, e)) generated++;
  });
  expectSameJson(events, where);
  const dumped = dumpedEvents(bytes, 'dump');
  expect(dumped.length, `${where}: events decoded with the dump's rows`).toBe(events.length);
  const w = new JsonBytes(1 << 12);
  const rows = new JsonBytes(1 << 12);
  dumped.forEach((e, i) => {
    writeDumpEvent(w, rows, e as DumpReadEvent);
    const written = w.take().toString('utf8');
    const reference = referenceLine(events[i]);
    if (written !== reference)
      expect.fail(
        `${where}: event ${i} with the dump's rows written as\n${written.slice(0, 2000)}\nnot as the reference ` +
          `writes its eager decode:\n${reference.slice(0, 2000)}`,
      );
  });
  return { events: events.length, generated };
}
