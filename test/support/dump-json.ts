/**
 * The dump's ways to JSON agree: the bytes the generated writers (runtime/events/event-json.ts) and
 * runtime/core/json-bytes.ts write for each event, and toJsonLine's string (the reference, what the dump
 * wrote before) in UTF-8.
 */
import { expect } from 'vitest';
import { JsonBytes } from '../../runtime/core/json-bytes.js';
import { toJsonLine } from '../../runtime/core/json-form.js';
import type { BinlogEvent, RowForm } from '../../runtime/events/event-codec.js';
import { writeDumpEvent, writeEventJson } from '../../runtime/events/event-json.js';
import { decodeBinlog } from '../../runtime/io/stream.js';
import { DUMP_ROWS } from '../../runtime/rows/row-tables.js';

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
export function jsonDisagreement<T>(values: Iterable<T>, write: WriteJson<T> = asValue): { at: number; reference: string; written: string } | undefined {
  const w = new JsonBytes(1 << 12);
  let at = 0;
  for (const v of values) {
    write(w, v);
    const written = w.take();
    const reference = Buffer.from(toJsonLine(v), 'utf8');
    if (!written.equals(reference)) return { at, reference: reference.toString('utf8'), written: written.toString('utf8') };
    at++;
  }
  return undefined;
}

export function expectSameJson<T>(values: Iterable<T>, where: string, write: WriteJson<T> = asValue): void {
  const d = jsonDisagreement(values, write);
  if (d) expect.fail(`${where}: value ${d.at} written as\n${d.written.slice(0, 2000)}\nnot as toJsonLine writes it:\n${d.reference.slice(0, 2000)}`);
}

/**
 * Every event of a binlog written three ways: as the dump writes it (decoded with the dump's rows, each
 * cell's JSON from its bytes), by the generated writers from the eager decode, and as JsonBytes.value does;
 * each against toJsonLine of the eager decode. Returns how many events there were, and how many the
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
  dumped.forEach((e, i) => {
    writeDumpEvent(w, e);
    const written = w.take().toString('utf8');
    const reference = toJsonLine(events[i]);
    if (written !== reference) expect.fail(`${where}: event ${i} with the dump's rows written as\n${written.slice(0, 2000)}\nnot as toJsonLine writes its eager decode:\n${reference.slice(0, 2000)}`);
  });
  return { events: events.length, generated };
}
