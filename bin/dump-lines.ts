/** The dump's output: each event as a line of JSON, written as bytes in large writes. */
import { once } from 'node:events';
import { JsonBytes } from '../runtime/core/json-bytes.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { writeEventJson } from '../runtime/events/event-json.js';

/** Lines are written out once this many bytes wait. */
const BATCH = 1 << 16;

/** Batches events' lines into large writes and waits when the pipe is full, so memory stays flat. */
export class DumpLines {
  private readonly w = new JsonBytes(BATCH * 2);
  constructor(private readonly stream: NodeJS.WritableStream) {}

  async event(e: BinlogEvent): Promise<void> {
    writeEventJson(this.w, e);
    this.w.byte(0x0a);
    if (this.w.pos > BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.w.pos === 0) return;
    if (!this.stream.write(this.w.take())) await once(this.stream, 'drain');
  }
}
