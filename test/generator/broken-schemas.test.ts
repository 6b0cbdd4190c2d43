/**
 * Every file in test/schemas-broken/ is a schema with one mistake; its first line says the exact error
 * the generator must report (line:col, YAML path, problem). The file name is prefixed to it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateFiles } from '../../generator/generate.js';

const dir = join(import.meta.dirname, '..', 'schemas-broken');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('broken schemas are refused with an exact error', () => {
  it('has a corpus', () => expect(files.length).toBeGreaterThan(20));
  for (const f of files) {
    it(f, () => {
      const path = join(dir, f);
      const expected = /^# error: (.*)$/m.exec(readFileSync(path, 'utf8'))?.[1];
      expect(expected, `${f} must start with '# error: ...'`).toBeDefined();
      const result = generateFiles([path]);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((e) => e.message)).toEqual([`${relative(process.cwd(), path)}:${expected}`]);
    });
  }
});
