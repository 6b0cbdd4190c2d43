/**
 * The project's line limit: Prettier lays code out in 120 columns, but it leaves long strings, templates and
 * comments as they are, so this holds every hand-written line to the limit itself.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_COLUMNS = 120;

/** The lines of `text` longer than the limit, as "file:line (n columns)"; columns count code points. */
function longLines(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => ({ line: i + 1, columns: [...line].length }))
    .filter((l) => l.columns > MAX_COLUMNS)
    .map((l) => `${file}:${l.line} (${l.columns} columns)`);
}

/** The TypeScript files git tracks, but for generated/ (the generator writes it, from schemas/). */
function handWrittenFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z', '--', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git ls-files failed in ${ROOT}: ${git.stderr || git.error?.message}`);
  return git.stdout.split('\0').filter((f) => f !== '' && !f.startsWith('generated/'));
}

describe('the line limit', () => {
  it('names each line over 120 columns by file and line, and lets one of 120 pass', () => {
    const text = ['a'.repeat(120), 'é'.repeat(121), '', `'${'x'.repeat(119)}'`].join('\n');
    expect(longLines('f.ts', text)).toEqual(['f.ts:2 (121 columns)', 'f.ts:4 (121 columns)']);
  });

  it('holds for every hand-written .ts file', () => {
    const files = handWrittenFiles();
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('test/style.test.ts');
    const long = files.flatMap((f) => longLines(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(long).toEqual([]);
  });
});
