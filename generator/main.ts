/**
 * `npm run generate`: regenerates generated/ (and the language-feature tests' codecs) from their schemas.
 * With `--check`, writes nothing and exits 1 when any output differs from what the schemas give.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withEventDocs } from './docs.js';
import { formatted } from './format.js';
import { generate, TARGETS } from './generate.js';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let failed = false;

for (const target of TARGETS) {
  const outDir = join(root, target.out);
  const result = generate(join(root, target.schemas), target.runtime);
  if (!result.ok) {
    for (const e of result.errors) console.error(e.message);
    console.error(
      `${result.errors.length} schema error${result.errors.length === 1 ? '' : 's'}; ${target.out}/ not generated.`,
    );
    failed = true;
    continue;
  }
  const files = await formatted(result.files, outDir);
  const wanted = new Map(files.map((f) => [join(outDir, f.path), f.text]));
  if (target.reference) {
    const reference = join(root, target.reference);
    wanted.set(reference, withEventDocs(readFileSync(reference, 'utf8'), result.ir, target.reference));
  }
  const present = existsSync(outDir)
    ? readdirSync(outDir)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(outDir, f))
    : [];
  const stale = [
    ...[...wanted].filter(([p, text]) => !existsSync(p) || readFileSync(p, 'utf8') !== text).map(([p]) => p),
    ...present.filter((p) => !wanted.has(p)),
  ].map((p) => p.slice(root.length + 1));
  if (check) {
    if (stale.length) {
      console.error(`${target.out}/ is stale (run \`npm run generate\`): ${stale.join(', ')}`);
      failed = true;
    } else {
      console.log(`${target.out}/ is up to date (${wanted.size} files).`);
    }
    continue;
  }
  mkdirSync(outDir, { recursive: true });
  for (const p of present) if (!wanted.has(p)) rmSync(p);
  for (const [p, text] of wanted) writeFileSync(p, text);
  console.log(`generated ${wanted.size} files into ${target.out}/ (${stale.length} changed).`);
}
process.exit(failed ? 1 : 0);
