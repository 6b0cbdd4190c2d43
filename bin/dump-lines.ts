/** The dump's output: each event as a line of JSON (or an element of one array), written as bytes in large writes. */
import { once } from 'node:events';
import { JsonBytes } from '../runtime/core/json-bytes.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { writeEventJson } from '../runtime/events/event-json.js';

/** Lines are written out once this many bytes wait. */
const BATCH = 1 << 16;

/** How dump writes its events: JSON Lines (the default), or (--format=json) one array, maybe indented. */
export interface OutputForm {
  array: boolean;
  pretty: boolean;
}

/** Batches events' lines into large writes and waits when the pipe is full, so memory stays flat. */
export class DumpLines {
  private readonly w = new JsonBytes(BATCH * 2);
  private written = 0;
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly form: OutputForm = { array: false, pretty: false },
  ) {}

  async event(e: BinlogEvent): Promise<void> {
    // An array's elements are "[\n" e1 ",\n" e2 … "]\n": the comma is known before the next element.
    if (this.form.array) this.w.ascii(this.written === 0 ? '[\n' : ',\n');
    if (this.form.pretty) this.w.raw(Buffer.from(JSON.stringify(JSON.parse(eventText(e)), null, 2)));
    else writeEventJson(this.w, e);
    if (!this.form.array) this.w.byte(0x0a);
    this.written++;
    if (this.w.pos > BATCH) await this.flush();
  }

  /** The last lines out, and the array closed. */
  async end(): Promise<void> {
    if (this.form.array) this.w.ascii(this.written === 0 ? '[]\n' : ']\n');
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.w.pos === 0) return;
    if (!this.stream.write(this.w.take())) await once(this.stream, 'drain');
  }
}

/** An event's line as text, for --pretty's re-indenting (the rare, slow path). */
function eventText(e: BinlogEvent): string {
  const w = new JsonBytes();
  writeEventJson(w, e);
  return w.take().toString('utf8');
}
