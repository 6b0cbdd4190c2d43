/**
 * The dump's two ways to JSON agree: the bytes runtime/core/json-bytes.ts writes for each event, and
 * toJsonLine's string (the reference, what the dump wrote before) in UTF-8.
 */
import { expect } from 'vitest';
import { JsonBytes } from '../../runtime/core/json-bytes.js';
import { toJsonLine } from '../../runtime/core/json-form.js';
import { decodeBinlog } from '../../runtime/io/stream.js';

/** Every event a binlog gives when undecodable events are kept as their bytes; those before a framing error. */
export function dumpedEvents(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  try {
    for (const e of decodeBinlog(bytes, { onError: () => 'skip' })) out.push(e);
  } catch {
    // A framing error ends the file: the events before it are out.
  }
  return out;
}

/** The first value whose two JSON forms differ, with both; undefined when all agree. */
export function jsonDisagreement(values: Iterable<unknown>): { at: number; reference: string; written: string } | undefined {
  const w = new JsonBytes(1 << 12);
  let at = 0;
  for (const v of values) {
    w.value(v);
    const written = w.take();
    const reference = Buffer.from(toJsonLine(v), 'utf8');
    if (!written.equals(reference)) return { at, reference: reference.toString('utf8'), written: written.toString('utf8') };
    at++;
  }
  return undefined;
}

export function expectSameJson(values: Iterable<unknown>, where: string): void {
  const d = jsonDisagreement(values);
  if (d) expect.fail(`${where}: value ${d.at} written as\n${d.written.slice(0, 2000)}\nnot as toJsonLine writes it:\n${d.reference.slice(0, 2000)}`);
}
