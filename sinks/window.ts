/**
 * The publishes in flight, at most `limit` of them (back-pressure: a slow or stopped broker holds the
 * reader at `add`, so nothing grows without bound), and the checkpoints that become durable once every
 * message before them is acknowledged, handed to `durable` in order.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';

export class AckWindow {
  private sent = 0;
  /** Messages acknowledged from the first, with none missing: acks may arrive in any order. */
  private acked = 0;
  private readonly done = new Set<number>();
  /** Checkpoints waiting for the messages before them: each after `sent` of them. */
  private readonly marks: { after: number; checkpoint: Checkpoint; at: number }[] = [];
  private wake: (() => void) | undefined;
  /** Why a publish failed: the window takes no more. */
  failure: unknown;
  duplicates = 0;

  constructor(
    private readonly limit: number,
    /** The newest checkpoint whose messages are all acknowledged, the time of its last event (seconds), and how many transactions it passed. */
    private readonly durable: (checkpoint: Checkpoint, at: number, transactions: number) => void,
    /** Told of the first failure. */
    private readonly failed: (e: unknown) => void,
  ) {}

  get inFlight(): number {
    return this.sent - this.acked;
  }

  /** Whether messages, or a transaction read, wait for acknowledgements. */
  get waiting(): boolean {
    return this.inFlight > 0 || this.marks.length > 0;
  }

  /** Counts one publish in; waits while the window is full. */
  async add(publish: Promise<{ duplicate: boolean }>): Promise<void> {
    const n = this.sent++;
    publish.then(
      (ack) => {
        if (ack.duplicate) this.duplicates++;
        this.settled(n);
      },
      (e: unknown) => this.fail(e),
    );
    while (this.inFlight >= this.limit && this.failure === undefined) await this.settle();
    this.check();
  }

  /** The transaction whose messages are those sent so far ends at `checkpoint` (its last event at `at`). */
  mark(checkpoint: Checkpoint, at: number): void {
    this.marks.push({ after: this.sent, checkpoint, at });
    this.release();
  }

  /** Waits until every message sent is acknowledged (or one failed). */
  async drain(): Promise<void> {
    while (this.inFlight > 0 && this.failure === undefined) await this.settle();
    this.check();
  }

  private settled(n: number): void {
    this.done.add(n);
    while (this.done.delete(this.acked)) this.acked++;
    this.release();
    this.wake?.();
  }

  private release(): void {
    let last: (typeof this.marks)[number] | undefined;
    let passed = 0;
    while (this.marks.length && this.marks[0]!.after <= this.acked) (last = this.marks.shift()), passed++;
    if (last) this.durable(last.checkpoint, last.at, passed);
  }

  private fail(e: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = e ?? new Error('a publish failed');
    this.failed(this.failure);
    this.wake?.();
  }

  private settle(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
