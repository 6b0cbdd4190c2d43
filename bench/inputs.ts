/**
 * The benchmarks' inputs: a whole file in memory, and a file's events in batches. The encode benchmarks
 * decode a file untimed and time only the encoding; holding every decoded event of a large file at once
 * would measure the heap instead, so the events come in batches.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The whole file in one Uint8Array (readFileSync stops at 2 GiB). */
export function readAll(file: string): Uint8Array {
  const fd = openSync(file, 'r');
  const out = new Uint8Array(fstatSync(fd).size);
  for (let at = 0; at < out.length;) at += readSync(fd, out, at, Math.min(1 << 30, out.length - at), at);
  closeSync(fd);
  return out;
}

/** About this many bytes of the file's events are decoded and held at a time. */
const BATCH_BYTES = 64e6;

/** The events in batches of about 64 MB of the file, in order. */
export function* batchesOf<E extends { header: { eventSize: number } }>(events: Iterable<E>): Generator<E[]> {
  let batch: E[] = [];
  let bytes = 0;
  for (const e of events) {
    batch.push(e);
    bytes += e.header.eventSize;
    if (bytes >= BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}
