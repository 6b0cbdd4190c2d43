/** `npm run fuzz -- [--count N] [--seed S]`: a long fuzz run, printing its figures and any failure. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fuzzSeeds } from './corpus.js';
import { fuzz } from './fuzz.js';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '200000' }, seed: { type: 'string', default: '1' } },
});
const count = Number(values.count);
const seed = Number(values.seed);
const corpus = fuzzSeeds();
const start = performance.now();
const r = fuzz(corpus, count, seed);
const seconds = (performance.now() - start) / 1000;
console.log(
  `${r.cases} cases (seed ${seed}) over ${corpus.length} seed binlogs in ${seconds.toFixed(1)} s ` +
    `(${(r.cases / seconds).toFixed(0)}/s)`,
);
console.log(
  `decoded and re-encoded exactly: ${r.decoded}; refused with a typed error: ${r.refused}; slowest case: ` +
    `${r.slowestMs.toFixed(1)} ms`,
);
console.log(`failures: ${r.failures.length}`);
for (const f of r.failures.slice(0, 10)) {
  const file = `/tmp/fuzz-failure-${seed}-${f.case}.bin`;
  writeFileSync(file, f.input);
  console.log(`  case ${f.case} (${f.mutation}): ${f.problem} — input saved to ${file}`);
}
process.exit(r.failures.length ? 1 : 0);
