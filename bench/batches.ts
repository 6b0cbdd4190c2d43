/**
 * The encode benchmarks decode a file untimed and time only the encoding. Holding every decoded event of a
 * large file at once would measure the heap instead, so the events come in batches.
 */

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
