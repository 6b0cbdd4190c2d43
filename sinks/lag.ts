/**
 * How far the broker's acknowledged state is behind the server, in seconds. The server's newest event
 * is not known to a replica until it reads it, so the lag is measured from what is: events' timestamps
 * (the server's clock, whole seconds) against the reader's clock.
 * - Messages waiting for the broker: the time since the newest acknowledged transaction was written
 *   (it grows while a slow or stopped broker holds the reader).
 * - Nothing waiting, and a heartbeat since the last event (the server had nothing newer): 0.
 * - Nothing waiting, no heartbeat yet: the lag the newest acknowledged transaction had when it was
 *   acknowledged (catching up on old events keeps it high until they are new).
 * A server clock ahead of the reader's reads as 0, never less.
 */
export class Lag {
  /** Timestamp of the newest acknowledged transaction (or, before any, of the first event read), seconds. */
  private acked: number | undefined;
  /** Its lag when it was acknowledged. */
  private atAck = 0;
  private caughtUp = false;

  constructor(private readonly now: () => number = () => Date.now() / 1000) {}

  /** An event of the server's binlog was read. */
  read(timestamp: number): void {
    this.caughtUp = false;
    this.acked ??= timestamp;
  }

  /** A heartbeat came: the server's word that it has nothing newer. */
  heartbeat(): void {
    this.caughtUp = true;
  }

  /** A transaction written at `timestamp` and everything before it are acknowledged. */
  acknowledged(timestamp: number): void {
    this.acked = Math.max(this.acked ?? timestamp, timestamp);
    this.atAck = this.behind(this.acked);
  }

  /** The lag now, `waiting`: whether messages or a transaction read wait for the broker. */
  seconds(waiting: boolean): number {
    if (this.acked === undefined) return 0;
    if (waiting) return this.behind(this.acked);
    return this.caughtUp ? 0 : this.atAck;
  }

  private behind(timestamp: number): number {
    return Math.max(0, Math.round((this.now() - timestamp) * 1000) / 1000);
  }
}
