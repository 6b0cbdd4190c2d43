/**
 * The global setup of the suite (vitest.config.ts): a folder where the workers note the suites they could
 * not run (requires.ts), and at the end of the run one line on stderr that counts them by what was missing,
 * instead of a banner per suite.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'binlog-codec-skips-'));
  project.provide('skipsDir', dir);
  return () => {
    const reasons = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean));
    rmSync(dir, { recursive: true, force: true });
    if (reasons.length) process.stderr.write(`${summary(reasons)}\n`);
  };
}

/** `SKIPPED n: k × reason; …`, the most frequent reason first. */
export function summary(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${n} × ${r}`);
  return `SKIPPED ${reasons.length} (not run, as what they need is missing): ${parts.join('; ')}`;
}
