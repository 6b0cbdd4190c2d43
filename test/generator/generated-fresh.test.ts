/** Each generated folder must be exactly what its schemas give: generation is deterministic and committed. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withEventDocs } from '../../generator/docs.js';
import { formatted } from '../../generator/format.js';
import { generate, TARGETS } from '../../generator/generate.js';

const root = join(import.meta.dirname, '..', '..');

describe.each(TARGETS)('$out/', { timeout: 60_000 }, (target) => {
  const result = generate(join(root, target.schemas), target.runtime);
  it('comes from valid schemas', () => {
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });
  it('is up to date with its schemas (run `npm run generate`)', async () => {
    if (!result.ok) return;
    const committed = readdirSync(join(root, target.out))
      .filter((f) => f.endsWith('.ts'))
      .sort();
    expect(committed).toEqual(result.files.map((f) => f.path).sort());
    for (const f of await formatted(result.files, join(root, target.out))) {
      const path = join(root, target.out, f.path);
      expect(existsSync(path) && readFileSync(path, 'utf8') === f.text, `${target.out}/${f.path} is stale`).toBe(true);
    }
  });
  it.runIf(target.reference)('its event reference is up to date', () => {
    if (!result.ok || !target.reference) return;
    const doc = readFileSync(join(root, target.reference), 'utf8');
    expect(
      withEventDocs(doc, result.ir, target.reference) === doc,
      `${target.reference} is stale: run \`npm run generate\``,
    ).toBe(true);
  });
  it('is deterministic', { timeout: 60_000 }, () => {
    const again = generate(join(root, target.schemas), target.runtime);
    expect(again.ok && again.files.map((f) => f.text)).toEqual(result.ok && result.files.map((f) => f.text));
  });
  it('contains no interpreter: no eval, no new Function', () => {
    if (!result.ok) return;
    for (const f of result.files) expect(f.text).not.toMatch(/\beval\(|new Function/);
  });
});
