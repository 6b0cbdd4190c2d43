/**
 * The shared real-binlog fixtures (../shared/fixtures beside the checkout): read at run time, never copied
 * into the project. Absent, tests that need them are not run (the run's last line counts them); under
 * CI=true their absence is a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWhen } from './requires.js';

/** ../shared/fixtures beside the checkout, or BINLOG_FIXTURES (a test points it at an empty folder). */
export const FIXTURES =
  process.env.BINLOG_FIXTURES ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');
export const fixturesAvailable = existsSync(join(FIXTURES, 'MANIFEST.tsv'));

export interface Fixture {
  /** Path relative to binlogs/, as MANIFEST.tsv names it. */
  name: string;
  path: string;
  serverVersion: string;
  notes: string;
}

export function fixtures(): Fixture[] {
  const [head, ...rows] = readFileSync(join(FIXTURES, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const cols = head!.split('\t');
  const col = (row: string[], name: string) => row[cols.indexOf(name)] ?? '';
  return rows.map((line) => {
    const row = line.split('\t');
    const name = col(row, 'local_file');
    return {
      name,
      path: join(FIXTURES, 'binlogs', name),
      serverVersion: col(row, 'server_version'),
      notes: col(row, 'notes'),
    };
  });
}

/** What is missing when the fixtures are: where they were looked for, and what they are. */
export const fixturesMissing = () =>
  `the shared real-binlog fixtures not found at ${FIXTURES} (the README's "Two commands" says what they are)`;

/** describe() that skips when the fixtures are absent (noted for the run's summary line), and fails under CI. */
export function describeWithFixtures(name: string, fn: () => void): void {
  describeWhen(fixturesAvailable, name, fixturesMissing, fn);
}
