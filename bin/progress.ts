/**
 * `binlog dump`'s progress line on stderr: bytes and events read, the rate, and when the input's size is
 * known its share and the time left. It is redrawn in place as reading goes on; the last line drawn is
 * the final count, so that what stays on the screen is what was read.
 */

/** What has been read so far. */
export interface Count {
  bytes: number;
  events: number;
  /** Events written out (fewer than read under filters). */
  written: number;
}

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** Bytes in the largest decimal unit they reach, with one decimal (bytes whole). */
export function size(bytes: number): string {
  let i = 0;
  let v = bytes;
  while (v >= 1000 && i < UNITS.length - 1) ((v /= 1000), i++);
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${UNITS[i]}`;
}

/** Seconds as "4.2 s" under a minute, else m:ss (h:mm:ss past an hour). */
export function clock(seconds: number): string {
  if (seconds < 59.95) return `${Math.max(0, seconds).toFixed(1)} s`;
  const s = Math.round(seconds);
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const mm = h ? String(m).padStart(2, '0') : String(m);
  return `${h ? `${h}:` : ''}${mm}:${String(r).padStart(2, '0')}`;
}

/**
 * The line for `count`, `elapsed` seconds in; `total` the input's size when it is known. The final line
 * says how long reading took instead of how long is left.
 */
export function progressLine(count: Count, total: number | undefined, elapsed: number, final: boolean): string {
  const rate = count.bytes / Math.max(elapsed, 0.001);
  const parts = [
    total === undefined
      ? size(count.bytes)
      : `${size(count.bytes)} of ${size(total)} (${Math.floor((100 * count.bytes) / Math.max(total, 1))}%)`,
  ];
  parts.push(`${count.events} events` + (count.written === count.events ? '' : `, ${count.written} written`));
  parts.push(`${size(rate)}/s`);
  if (final) parts.push(`in ${clock(elapsed)}`);
  else if (total !== undefined && rate > 0) parts.push(`ETA ${clock((total - count.bytes) / rate)}`);
  return parts.join(', ');
}

/**
 * A status line on a terminal, drawn every `intervalMs` from `line(elapsed seconds, final)`, and a last time at
 * `done()`.
 */
export class StatusLine {
  private readonly start = Date.now();
  private drawn = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly out: { write(s: string): unknown },
    private readonly line: (elapsed: number, final: boolean) => string,
    intervalMs = 200,
  ) {
    this.timer = setInterval(() => this.draw(false), intervalMs);
    this.timer.unref();
  }

  private draw(final: boolean): void {
    const line = this.line((Date.now() - this.start) / 1000, final);
    // Spaces over what is left of a longer line before it.
    this.out.write(`\r${line}${' '.repeat(Math.max(0, this.drawn - line.length))}${final ? '\n' : ''}`);
    this.drawn = line.length;
  }

  done(): void {
    clearInterval(this.timer);
    this.draw(true);
  }
}

/** `binlog dump`'s line: from `read()`, `total` the input's size when known. */
export class Progress extends StatusLine {
  constructor(out: { write(s: string): unknown }, read: () => Count, total: number | undefined, intervalMs = 200) {
    super(out, (elapsed, final) => progressLine(read(), total, elapsed, final), intervalMs);
  }
}

/** The progress line is for people, so it is on when stderr is a terminal and stdout is not, or when asked for. */
export function showsProgress(asked: boolean | undefined): boolean {
  return asked ?? (process.stderr.isTTY === true && !process.stdout.isTTY);
}
