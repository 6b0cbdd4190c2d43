/**
 * A newcomer's clone has no ../shared beside it: the suites that read the shared fixtures must then be
 * skipped, not fail while vitest collects them, and the run must end with one line that says so; under
 * CI=true the same absence must fail the run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const empty = mkdtempSync(join(tmpdir(), 'no-fixtures-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

const IMPORTS_FIXTURES = /^import .* from '(?:\.\.?\/)+support\/fixtures\.js';$/m;

/** Every suite that imports the fixtures helper, found afresh so that a new one is covered too. */
function fixtureSuites(dir = 'test'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) return fixtureSuites(rel);
    return d.name.endsWith('.test.ts') && IMPORTS_FIXTURES.test(readFileSync(join(ROOT, rel), 'utf8')) ? [rel] : [];
  });
}

/** Only the marker tests run: what can fail without fixtures is collection, which runs every suite body. */
function runWithoutFixtures(ci: boolean) {
  const env: NodeJS.ProcessEnv = { ...process.env, BINLOG_FIXTURES: empty };
  delete env.CI;
  if (ci) env.CI = 'true';
  return spawnSync('npx', ['vitest', 'run', '--testNamePattern', ': not run$', ...fixtureSuites()], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('without ../shared/fixtures', () => {
  it('finds the suites that read the fixtures, and not itself', () => {
    expect(fixtureSuites()).not.toContain('test/newcomer.test.ts');
    expect(fixtureSuites()).toEqual(
      expect.arrayContaining(['test/fixtures.test.ts', 'test/payload.test.ts', 'test/rows-v0.test.ts']),
    );
  });

  it('skips those suites, says so in one line at the end that counts them by what is missing, and passes', () => {
    const run = runWithoutFixtures(false);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const said = run.stderr.split('\n').filter((l) => l.includes('SKIPPED'));
    expect(said).toHaveLength(1);
    // Every marker test's reason is the fixtures' absence, mariadb-binlog being installed or not.
    const [, count, same, where] =
      new RegExp(
        String.raw`^SKIPPED (\d+) \(not run, as what they need is missing\): ` +
          String.raw`(\d+) × the shared real-binlog fixtures not found at (\S+) `,
      ).exec(said[0]!) ?? [];
    expect([same, where]).toEqual([count, empty]);
    expect(Number(count)).toBeGreaterThan(20);
  }, 120_000);

  it('fails them under CI=true', () => {
    const run = runWithoutFixtures(true);
    expect(run.stdout + run.stderr).toContain(`CI=true: the shared real-binlog fixtures not found at ${empty}`);
    expect(run.status).not.toBe(0);
  }, 120_000);
});
