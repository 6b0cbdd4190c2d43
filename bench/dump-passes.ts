/**
 * The dump's CPU time in one process, for comparing builds on a loaded machine:
 *   npx tsx bench/dump-passes.ts FILE PASSES [TREE...]
 * For each tree (its compiled dist/, this one's by default), in turn pass after pass, FILE is read and written
 * as `binlog dump` writes it (readBinlog with the dump's rows, DumpLines) into a stream that drops the bytes.
 * A tree that has the schema history (runtime/tables/history.js) reads with a new one each pass, as its
 * `binlog dump` does. Each pass's CPU seconds (user + system, process.cpuUsage) and output size are printed,
 * then the medians of the passes after the first (the first one pays for the compilation).
 */
import { Writable } from 'node:stream';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Tree {
  name: string;
  dump(file: string, out: NodeJS.WritableStream): Promise<void>;
}

async function load(dir: string): Promise<Tree> {
  const at = (p: string) => import(pathToFileURL(path.join(dir, 'dist', p)).href);
  const [{ DumpLines }, { readBinlog }, { DUMP_ROWS }, history] = await Promise.all([
    at('bin/dump-lines.js'),
    at('runtime/io/stream.js'),
    at('runtime/rows/row-tables.js'),
    // The trees before the schema history have no such module: they read without one.
    at('runtime/tables/history.js').catch(() => undefined),
  ]);
  return {
    name: dir,
    async dump(file, out) {
      const lines = new DumpLines(out);
      const schemaHistory = history ? { schemaHistory: new history.SchemaHistory() } : {};
      for await (const e of readBinlog(file, { [DUMP_ROWS]: true, ...schemaHistory })) await lines.event(e);
      await lines.end();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const [file, passes = '5', ...dirs] = process.argv.slice(2);
  if (!file) throw new Error('usage: npx tsx bench/dump-passes.ts FILE PASSES [TREE...]');
  const trees = await Promise.all((dirs.length ? dirs : [path.join(import.meta.dirname, '..')]).map(load));
  const cpu = trees.map(() => [] as number[]);
  for (let i = 0; i < Number(passes); i++) {
    for (const [k, tree] of trees.entries()) {
      let bytes = 0;
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done();
        },
      });
      const c0 = process.cpuUsage();
      await tree.dump(file, sink);
      const c = process.cpuUsage(c0);
      cpu[k]!.push((c.user + c.system) / 1e6);
      process.stderr.write(`${tree.name} pass ${i + 1}: ${cpu[k]!.at(-1)!.toFixed(3)} s CPU, ${bytes} bytes\n`);
    }
  }
  for (const [k, tree] of trees.entries())
    process.stdout.write(`${tree.name}: median CPU after the first pass ${median(cpu[k]!.slice(1)).toFixed(3)} s\n`);
}

await main();
