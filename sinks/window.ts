/**
 * The messages published and not yet acknowledged, at most `limit` of them (back-pressure: a slow or
 * stopped broker holds the reader at `room`, so nothing grows without bound), and the checkpoints that
 * become durable once every message before them is acknowledged, handed to `durable` in order.
 *
 * Acknowledgements come by sequence number (the sink's `SinkAcks`), in any order, and are kept in rings
 * of `limit` slots: no promise, no timer and no allocation per message. One timer looks at the oldest
 * unacknowledged message only: when it has waited longer than the timeout, its acknowledgement is taken
 * as lost, and the window fails.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { SinkAcks, SinkMessage } from './sink.js';

export class AckWindow implements SinkAcks {
  private sent = 0;
  /** Messages acknowledged from the first, with none missing. */
  private acknowledged = 0;
  /** Per slot (the sequence number modulo the limit) they hold whether a message is acknowledged, its send time, it. */
  private readonly done: Uint8Array;
  private readonly sentAt: Float64Array;
  private readonly messages: (SinkMessage | undefined)[];
  /** Checkpoints waiting for the messages before them: each after `sent` of them. */
  private readonly marks: { after: number; checkpoint: Checkpoint; at: number }[] = [];
  private wake: (() => void) | undefined;
  /** What is in flight when the waiter is woken: room's low-water mark, or drain's 0. */
  private wakeAt = 0;
  /**
   * Room waits until the window is down to this, a quarter below the limit: woken at every acknowledgement
   * the reader would publish one message a turn, a promise and a socket write each, when the broker sets
   * the pace; woken here it sends a quarter of the window at once.
   */
  private readonly lowWater: number;
  private readonly timer: NodeJS.Timeout;
  /** Why the window failed (a message refused, an acknowledgement missing, the connection lost): it takes no more. */
  failure: Error | undefined;
  duplicates = 0;

  constructor(
    private readonly limit: number,
    /** Milliseconds the oldest unacknowledged message may wait for its acknowledgement. */
    private readonly timeout: number,
    /**
     * The newest checkpoint whose messages are all acknowledged, the time of its last event (seconds), and how many
     * transactions it passed.
     */
    private readonly durable: (checkpoint: Checkpoint, at: number, transactions: number) => void,
    /** Told of the first failure. */
    private readonly failed: (e: Error) => void,
  ) {
    this.lowWater = limit - Math.max(1, Math.floor(limit / 4));
    this.done = new Uint8Array(limit);
    this.sentAt = new Float64Array(limit);
    this.messages = new Array<SinkMessage | undefined>(limit).fill(undefined);
    // A quarter of the timeout between looks: a lost acknowledgement is found within 1.25 timeouts.
    this.timer = setInterval(() => this.checkOldest(), Math.max(10, timeout / 4));
    this.timer.unref();
  }

  get inFlight(): number {
    return this.sent - this.acknowledged;
  }

  /** Whether messages, or a transaction read, wait for acknowledgements. */
  get waiting(): boolean {
    return this.inFlight > 0 || this.marks.length > 0;
  }

  /** Whether `room` would wait: the window holds its limit. */
  get full(): boolean {
    return this.inFlight >= this.limit;
  }

  /**
   * Counts `message` in; its sequence number, to publish it with. Only when the window is not full; throws
   * its failure, since a message sent after a refused one could be stored before that one is sent again.
   */
  take(message: SinkMessage): number {
    this.check();
    const seq = this.sent++;
    const slot = seq % this.limit;
    this.done[slot] = 0;
    this.sentAt[slot] = performance.now();
    this.messages[slot] = message;
    return seq;
  }

  /** Waits while the window is full; throws its failure. */
  async room(): Promise<void> {
    if (this.full && this.failure === undefined) await this.settle(this.lowWater);
    this.check();
  }

  acked(seq: number, duplicate: boolean): void {
    // An acknowledgement of a failed window, or one not of this window's messages, is no news.
    if (this.failure !== undefined || seq < this.acknowledged || seq >= this.sent) return;
    const slot = seq % this.limit;
    if (this.done[slot]) return;
    this.done[slot] = 1;
    if (duplicate) this.duplicates++;
    if (seq !== this.acknowledged) return;
    while (this.acknowledged < this.sent && this.done[this.acknowledged % this.limit]) {
      this.messages[this.acknowledged++ % this.limit] = undefined;
    }
    this.release();
    if (this.inFlight <= this.wakeAt) this.wake?.();
  }

  lost(error: Error, seq?: number): void {
    const waiting = seq !== undefined && seq >= this.acknowledged && seq < this.sent;
    const m = waiting ? this.messages[seq % this.limit] : undefined;
    this.fail(m ? new Error(`${error.message}, for the message ${m.id} on ${m.subject}`, { cause: error }) : error);
  }

  /** The transaction whose messages are those sent so far ends at `checkpoint` (its last event at `at`). */
  mark(checkpoint: Checkpoint, at: number): void {
    this.marks.push({ after: this.sent, checkpoint, at });
    this.release();
  }

  /** Waits until every message sent is acknowledged (or one failed). */
  async drain(): Promise<void> {
    if (this.inFlight > 0 && this.failure === undefined) await this.settle(0);
    this.check();
  }

  /** Stops the timer: the window is done with. */
  close(): void {
    clearInterval(this.timer);
  }

  private checkOldest(): void {
    if (this.inFlight === 0 || this.failure !== undefined) return;
    const slot = this.acknowledged % this.limit;
    const waited = performance.now() - this.sentAt[slot]!;
    if (waited <= this.timeout) return;
    const m = this.messages[slot]!;
    this.fail(new Error(`no acknowledgement of the message ${m.id} on ${m.subject} within ${this.timeout / 1000} s`));
  }

  private release(): void {
    let last: (typeof this.marks)[number] | undefined;
    let passed = 0;
    while (this.marks.length && this.marks[0]!.after <= this.acknowledged) ((last = this.marks.shift()), passed++);
    if (last) this.durable(last.checkpoint, last.at, passed);
  }

  private fail(e: Error): void {
    if (this.failure !== undefined) return;
    this.failure = e;
    this.failed(e);
    this.wake?.();
  }

  /** Resolves once no more than `inFlight` messages are in flight, or the window fails. */
  private settle(inFlight: number): Promise<void> {
    this.wakeAt = inFlight;
    return new Promise((resolve) => (this.wake = resolve));
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
