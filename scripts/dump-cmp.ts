/**
 * Checks that `binlog dump` of this tree writes what another tree's does, byte for byte:
 *   npx tsx scripts/dump-cmp.ts OTHER_TREE [FILE...]
 * Without FILEs it dumps every binlog of bench/data/ and every shared fixture (test/support/fixtures.ts:
 * ../shared/fixtures, or BINLOG_FIXTURES). Both trees run their compiled CLI (npm run build in each first); their
 * standard output, standard error and exit status must be the same. It prints each file that differs and exits 1 if
 * any does.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtures, fixturesAvailable } from '../test/support/fixtures.js';

const ROOT = join(import.meta.dirname, '..');

/** The bench's binlogs and the shared fixtures. */
function defaultFiles(): string[] {
  const bench = join(ROOT, 'bench', 'data');
  const files = existsSync(bench)
    ? readdirSync(bench)
        .filter((f) => f.endsWith('.bin'))
        .map((f) => join(bench, f))
    : [];
  if (!fixturesAvailable) process.stderr.write('the shared fixtures are not there: only bench/data/ is compared\n');
  return fixturesAvailable ? [...files, ...fixtures().map((f) => f.path)] : files;
}

/** Runs the tree's `binlog dump FILE`, its standard output into `out`; gives its status and standard error. */
function dump(tree: string, file: string, out: string): string {
  const fd = openSync(out, 'w');
  try {
    const r = spawnSync(process.execPath, [join(tree, 'bin', 'binlog'), 'dump', file], {
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
      timeout: 600_000,
    });
    return `${r.status} ${r.signal ?? ''}\n${r.stderr}`;
  } finally {
    closeSync(fd);
  }
}

function main(): number {
  const [other, ...given] = process.argv.slice(2);
  if (!other) throw new Error('usage: npx tsx scripts/dump-cmp.ts OTHER_TREE [FILE...]');
  const files = given.length ? given : defaultFiles();
  const dir = mkdtempSync(join(tmpdir(), 'dump-cmp-'));
  let differ = 0;
  try {
    for (const file of files) {
      const [a, b] = [join(dir, 'a'), join(dir, 'b')];
      const [ea, eb] = [dump(ROOT, file, a), dump(other, file, b)];
      const same = ea === eb && spawnSync('cmp', ['-s', a, b]).status === 0;
      if (!same) {
        differ++;
        process.stdout.write(`differs: ${file}\n`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${files.length - differ} of ${files.length} files dump the same\n`);
  return differ ? 1 : 0;
}

process.exitCode = main();
