/**
 * Suites that need something outside the clone (the shared fixtures, a MariaDB server). Without it they
 * never run their body, since a suite body may read what is missing while vitest collects it; each such
 * suite is noted (noteSkip), and the run ends with one line that counts them by what was missing
 * (skips.ts, the global setup). Under CI=true the absence is a failure instead.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, inject, it } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where the workers note what they skipped, for the run's summary line (skips.ts). */
    skipsDir: string;
  }
}

/**
 * Notes that something was not run and why, for the summary line at the end of the run. Without the global
 * setup (vitest run with another config) the reason goes to stderr at once.
 */
export function noteSkip(reason: string): void {
  const dir = inject('skipsDir');
  if (dir) appendFileSync(join(dir, `${process.pid}.txt`), `${reason.replace(/\n/g, ' ')}\n`);
  else process.stderr.write(`SKIPPED: ${reason}\n`);
}

/** describe(name, fn) when `available`, else one marker test that says what is missing. */
export function describeWhen(available: boolean, name: string, missing: () => string, fn: () => void): void {
  if (available) {
    describe(name, fn);
    return;
  }
  it(`${name}: not run`, (ctx) => {
    const msg = `${missing()}: the tests of "${name}" were not run`;
    if (process.env.CI === 'true') throw new Error(`CI=true: ${msg}`);
    noteSkip(missing());
    ctx.skip(msg);
  });
}

/** What a test says of itself for who investigates it (timings, counts): on stderr only with BINLOG_TEST_DEBUG=1. */
export function debug(line: string): void {
  if (process.env.BINLOG_TEST_DEBUG === '1') process.stderr.write(`${line}\n`);
}
