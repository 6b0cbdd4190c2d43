/** generated/ must be exactly what the schemas give: generation is deterministic and the output committed. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';

const root = join(import.meta.dirname, '..', '..');

describe('generated/', () => {
  const result = generate(join(root, 'schemas'));
  it('the schemas are valid', () => {
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });
  it('is up to date with schemas/ (run `npm run generate`)', () => {
    if (!result.ok) return;
    const committed = readdirSync(join(root, 'generated')).filter((f) => f.endsWith('.ts')).sort();
    expect(committed).toEqual(result.files.map((f) => f.path).sort());
    for (const f of result.files) {
      const path = join(root, 'generated', f.path);
      expect(existsSync(path) && readFileSync(path, 'utf8') === f.text, `generated/${f.path} is stale`).toBe(true);
    }
  });
  it('is deterministic', () => {
    const again = generate(join(root, 'schemas'));
    expect(again.ok && result.ok && again.files.map((f) => f.text)).toEqual(result.ok && result.files.map((f) => f.text));
  });
  it('contains no interpreter: no eval, no new Function', () => {
    if (!result.ok) return;
    for (const f of result.files) expect(f.text).not.toMatch(/\beval\(|new Function/);
  });
});
