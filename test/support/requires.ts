/**
 * Suites that need something outside the clone (the shared fixtures, a MariaDB server). Without it they
 * skip loudly and never run their body, since a suite body may read what is missing while vitest collects
 * it; under CI=true the absence is a failure instead.
 */
import { describe, it } from 'vitest';

/** describe(name, fn) when `available`, else one marker test that says what is missing. */
export function describeWhen(available: boolean, name: string, missing: () => string, fn: () => void): void {
  if (available) {
    describe(name, fn);
    return;
  }
  it(`${name}: not run`, (ctx) => {
    const msg = `${missing()}: the tests of "${name}" were not run`;
    if (process.env.CI === 'true') throw new Error(`CI=true: ${msg}`);
    process.stderr.write(`\n${'!'.repeat(78)}\nSKIPPED: ${msg}\n${'!'.repeat(78)}\n\n`);
    ctx.skip(msg);
  });
}
