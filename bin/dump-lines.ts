/**
 * The dump's output. Each event becomes a line of JSON (or an element of one array), and the lines are
 * written out as bytes in large writes.
 */
import { once } from 'node:events';
import { JsonBytes } from '../runtime/core/dump-json-bytes.js';
import { type DumpEvent, type DumpReadEvent, writeDumpEvent } from '../runtime/events/event-dump-json.js';

/**
 * Lines are written out once this many bytes wait. Each write is a call into the stream and the file (16 ms of
 * the 122.5 MB bench file's dump in 64 KB writes, about 5 ms in 512 KB ones, by `--cpu-prof`).
 */
const BATCH = 1 << 19;

/** Says how dump writes its events: as JSON Lines (the default), or (--format=json) as one array, maybe indented. */
export interface OutputForm {
  array: boolean;
  pretty: boolean;
}

/**
 * Batches events' lines into large writes and waits when the pipe is full, so that memory stays flat. The
 * stream must be done with a chunk when it calls the chunk's write callback, as Node's stdout is.
 */
export class DumpLines {
  private readonly w = new JsonBytes(BATCH * 2);
  /**
   * Where a rows event's values do not all read, its rows are tried here before its line is written again
   * with its images kept as bytes (writeDumpEvent), and the rows of the events inside an event are written here.
   */
  private readonly rows = new JsonBytes(BATCH);
  private written = 0;
  /**
   * Buffers written out, to be written into again. A new buffer per write made V8 count as much external
   * memory as the whole output, which set off a full collection about every 12 MB (23 in a 282 MB dump).
   * The stream gives a buffer back at its write's callback, when it no longer holds it (as stdout does,
   * whether a file, a pipe or a terminal).
   */
  private readonly spare: Buffer[] = [];
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly form: OutputForm = { array: false, pretty: false },
  ) {}

  /** Writes an event; returns it as written, its rows' JSON or, where a value does not read, its images as bytes. */
  async event(e: DumpReadEvent): Promise<DumpEvent> {
    // An array's elements are "[\n" e1 ",\n" e2 … "]\n", so the comma is known before the next element.
    if (this.form.array) this.w.ascii(this.written === 0 ? '[\n' : ',\n');
    const written = this.form.pretty ? this.pretty(e) : writeDumpEvent(this.w, this.rows, e);
    if (!this.form.array) this.w.byte(0x0a);
    this.written++;
    if (this.w.pos > BATCH) await this.flush();
    return written;
  }

  /** Writes a line of JSON that is no event (a snapshot's lines), as an event's line is written. */
  async line(value: unknown): Promise<void> {
    if (this.form.array) this.w.ascii(this.written === 0 ? '[\n' : ',\n');
    this.w.value(value);
    if (!this.form.array) this.w.byte(0x0a);
    this.written++;
    if (this.w.pos > BATCH) await this.flush();
  }

  /** An event's line re-indented (--pretty, which is rare and may be slow); the event as written. */
  private pretty(e: DumpReadEvent): DumpEvent {
    const line = new JsonBytes();
    const written = writeDumpEvent(line, this.rows, e);
    this.w.raw(Buffer.from(JSON.stringify(JSON.parse(line.take().toString('utf8')), null, 2)));
    return written;
  }

  /** Writes out the last lines and closes the array. */
  async end(): Promise<void> {
    if (this.form.array) this.w.ascii(this.written === 0 ? '[]\n' : ']\n');
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.w.pos === 0) return;
    const full = this.w.buf;
    const out = full.subarray(0, this.w.pos);
    this.w.use(this.spare.pop() ?? Buffer.allocUnsafe(BATCH * 2));
    this.w.pos = 0;
    if (!this.stream.write(out, () => this.spare.push(full))) await once(this.stream, 'drain');
  }
}
