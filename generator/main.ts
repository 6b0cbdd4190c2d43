/**
 * `npm run generate`: regenerates generated/ from schemas/. With `--check`, writes nothing and exits 1
 * when generated/ differs from what the schemas give (CI's staleness check).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './generate.js';

const root = join(import.meta.dirname, '..');
const outDir = join(root, 'generated');
const check = process.argv.includes('--check');

const result = generate(join(root, 'schemas'));
if (!result.ok) {
  for (const e of result.errors) console.error(e.message);
  console.error(`${result.errors.length} schema error${result.errors.length === 1 ? '' : 's'}; nothing generated.`);
  process.exit(1);
}

const wanted = new Map(result.files.map((f) => [f.path, f.text]));
const present = existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith('.ts')) : [];
const stale = [
  ...[...wanted].filter(([p, text]) => !existsSync(join(outDir, p)) || readFileSync(join(outDir, p), 'utf8') !== text).map(([p]) => p),
  ...present.filter((p) => !wanted.has(p)),
];

if (check) {
  if (stale.length) {
    console.error(`generated/ is stale (run \`npm run generate\`): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(`generated/ is up to date (${wanted.size} files).`);
} else {
  mkdirSync(outDir, { recursive: true });
  for (const p of present) if (!wanted.has(p)) rmSync(join(outDir, p));
  for (const [p, text] of wanted) writeFileSync(join(outDir, p), text);
  console.log(`generated ${wanted.size} files into generated/ (${stale.length} changed).`);
}
