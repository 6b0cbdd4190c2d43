/**
 * When a dump's connection is lost (the server restarted, the dump thread killed, the network cut, the
 * server silent past its heartbeats), whether to connect again, and when: backoff between attempts, and
 * a give-up after so many attempts or so long since the loss.
 */
import { ConnectionError, GaveUpError, ServerError } from '../runtime/core/errors.js';

export interface ReconnectOptions {
  /** Attempts in a row, after a loss, before giving up (default 10). A dump that starts again resets the count. */
  retries?: number;
  /** Seconds before the first attempt (default 1), doubled after each failed one. */
  delay?: number;
  /** The longest wait between attempts, in seconds (default 30). */
  maxDelay?: number;
  /** Seconds since the loss after which no attempt is made (default: none, only `retries` counts). */
  giveUpAfter?: number;
}

const DEFAULTS = { retries: 10, delay: 1, maxDelay: 30 };

/**
 * The server's errors that say the connection ended rather than that the request is wrong: asking again
 * may work. 1053 ER_SERVER_SHUTDOWN (the server is stopping), 1927 ER_CONNECTION_KILLED (MariaDB: the
 * connection was KILLed), 1317 ER_QUERY_INTERRUPTED, and MariaDB's 4052 (a replica of the same server id
 * is connected): the dump thread of the connection lost lingers a moment after it (a second replica of
 * the same id really connected is given up on after the attempts allowed).
 */
const TRANSIENT_SERVER_ERRORS: ReadonlySet<number> = new Set([1053, 1317, 1927, 4052]);

/** Whether a dump that failed with `e` may be started again. */
export function isTransient(e: unknown): boolean {
  if (e instanceof GaveUpError) return false;
  if (e instanceof ConnectionError) return true;
  return e instanceof ServerError && TRANSIENT_SERVER_ERRORS.has(e.errorCode);
}

/** The attempts after one loss: each `next` waits its turn, or throws GaveUpError when there is none. */
export class Backoff {
  private readonly options: Required<Omit<ReconnectOptions, 'giveUpAfter'>> & Pick<ReconnectOptions, 'giveUpAfter'>;
  private attempts = 0;
  private lostAt = 0;
  private wake: (() => void) | undefined;
  private cancelled = false;

  constructor(options: ReconnectOptions | true) {
    const o = options === true ? {} : options;
    this.options = {
      retries: o.retries ?? DEFAULTS.retries,
      delay: o.delay ?? DEFAULTS.delay,
      maxDelay: o.maxDelay ?? DEFAULTS.maxDelay,
      giveUpAfter: o.giveUpAfter,
    };
  }

  /** A dump started: the next loss starts counting afresh. */
  started(): void {
    this.attempts = 0;
  }

  /** Waits before the next attempt after `e`; throws GaveUpError when the options allow none. */
  async next(e: Error): Promise<void> {
    const { retries, delay, maxDelay, giveUpAfter } = this.options;
    if (this.attempts === 0) this.lostAt = Date.now();
    const wait = Math.min(delay * 2 ** this.attempts, maxDelay) * 1000;
    const late = giveUpAfter !== undefined && Date.now() + wait - this.lostAt > giveUpAfter * 1000;
    if (this.attempts >= retries || late) throw new GaveUpError(this.attempts, (Date.now() - this.lostAt) / 1000, e);
    this.attempts++;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.cancelled) this.wake();
    });
    this.wake = undefined;
  }

  /** Ends a wait at once (the dump is being closed). */
  cancel(): void {
    this.cancelled = true;
    this.wake?.();
  }
}
