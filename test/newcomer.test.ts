/**
 * A newcomer's clone has no ../shared beside it: the suites that read the shared fixtures must then skip
 * loudly, not fail while vitest collects them; under CI=true the same absence must fail the run.
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
  return spawnSync('npx', ['vitest', 'run', '--testNamePattern', ': not run$', ...fixtureSuites()], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
}

describe('without ../shared/fixtures', () => {
  it('finds the suites that read the fixtures, and not itself', () => {
    expect(fixtureSuites()).not.toContain('test/newcomer.test.ts');
    expect(fixtureSuites()).toEqual(expect.arrayContaining(['test/fixtures.test.ts', 'test/payload.test.ts', 'test/rows-v0.test.ts']));
  });

  it('skips those suites loudly and passes', () => {
    const run = runWithoutFixtures(false);
    expect(run.stderr).toContain(`SKIPPED: shared fixtures not found at ${empty}`);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  }, 120_000);

  it('fails them under CI=true', () => {
    const run = runWithoutFixtures(true);
    expect(run.stdout + run.stderr).toContain(`CI=true: shared fixtures not found at ${empty}`);
    expect(run.status).not.toBe(0);
  }, 120_000);
});
