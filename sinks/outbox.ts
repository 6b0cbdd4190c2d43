/**
 * The messages read and rendered but not yet sent, in order with the ends of their transactions, sent as
 * the window of unacknowledged messages (window.ts) has room. While the window is full the reader goes on
 * reading and rendering the next events, up to `ahead` messages more, so that the decode overlaps the
 * broker's work instead of waiting for it (issue 43); then it waits too. What is held here was never
 * sent, and no checkpoint passes it, so a loss or a stop sends it again from the checkpoint.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { Sink, SinkMessage } from './sink.js';
import type { AckWindow } from './window.js';

/** The end of a transaction: its checkpoint, marked in the window once its messages are all sent. */
interface End {
  checkpoint: Checkpoint;
  at: number;
}

/** How many items sent before those sent are let go of (when they are at least half of those held). */
const COMPACT_AT = 1024;

export class Outbox {
  private items: (SinkMessage | End)[] = [];
  /** The next item to send. */
  private next = 0;
  /** Messages among the items not yet sent. */
  private held = 0;
  private sending = false;
  private closed = false;
  private failure: unknown;
  private wake: (() => void) | undefined;

  constructor(
    private readonly sink: Pick<Sink, 'publish'>,
    private readonly window: AckWindow,
    /** Messages held at most before `room` waits. */
    private readonly ahead: number,
    /** Told of each message as it is sent. */
    private readonly sent: () => void,
  ) {}

  /** Holds `messages` after those held, and sends what the window has room for. */
  add(messages: readonly SinkMessage[]): void {
    this.check();
    for (const m of messages) this.items.push(m);
    this.held += messages.length;
    this.send();
  }

  /** Says that the transaction of the messages added so far ends at `checkpoint` (its last event at `at`). */
  end(checkpoint: Checkpoint, at: number): void {
    this.check();
    this.items.push({ checkpoint, at });
    this.send();
  }

  /** Waits while `ahead` messages or more are held; throws the sending's failure (the window's). */
  async room(): Promise<void> {
    while (this.held >= this.ahead && this.failure === undefined) await new Promise<void>((r) => (this.wake = r));
    this.check();
  }

  /** Waits until everything held is sent; throws the sending's failure. */
  async flush(): Promise<void> {
    while (this.next < this.items.length && this.failure === undefined) {
      await new Promise<void>((r) => (this.wake = r));
    }
    this.check();
  }

  /**
   * Sends the items in order while the window has room, waiting for it when full; one such loop at a time.
   * It runs at once as far as it can: with room in the window, an added message is sent before add returns.
   */
  private send(): void {
    if (this.sending || this.next === this.items.length) return;
    this.sending = true;
    this.loop().catch((e: unknown) => {
      this.failure = e;
      this.woken();
    });
  }

  private async loop(): Promise<void> {
    try {
      while (this.next < this.items.length && !this.closed) {
        if (this.window.full) await this.window.room();
        if (this.closed) return;
        const item = this.items[this.next++]!;
        // What was sent is let go of now and then, not kept until the reader next waits for nothing.
        if (this.next >= COMPACT_AT && this.next * 2 >= this.items.length) {
          this.items = this.items.slice(this.next);
          this.next = 0;
        }
        if ('checkpoint' in item) this.window.mark(item.checkpoint, item.at);
        else {
          this.held--;
          this.sent();
          this.sink.publish(item, this.window.take(item));
          if (this.held < this.ahead) this.woken();
        }
      }
      // Everything is sent: the array starts again rather than growing.
      this.items = [];
      this.next = 0;
      this.woken();
    } finally {
      this.sending = false;
    }
  }

  /** Sends nothing more: the dump that held these is over. */
  close(): void {
    this.closed = true;
  }

  private woken(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
