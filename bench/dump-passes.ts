/**
 * The dump's CPU time in one process, for comparing builds on a loaded machine:
 *   npx tsx bench/dump-passes.ts [--parts] FILE PASSES [TREE...]
 * For each tree (its compiled dist/, this one's by default), in turn pass after pass, FILE is read and written
 * as `binlog dump` writes it (readBinlog with the dump's rows, DumpLines) into a stream that drops the bytes.
 * A tree that has the schema history (runtime/tables/history.js) reads with a new one each pass, as its
 * `binlog dump` does. Each pass's CPU seconds (user + system, process.cpuUsage) and output size are printed,
 * then the medians of the passes after the first (the first one pays for the compilation). With --parts each pass
 * also measures the part of the dump before its JSON (the file read and its events decoded, rows kept as bytes) and
 * that part with every rows event's JSON rendered (JsonRows.render), so that the rows' share shows.
 */
import { Writable } from 'node:stream';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What a pass does: the whole dump, or (--parts) only the reading, or the reading and the rows' JSON. */
type Part = 'dump' | 'read' | 'rows';

interface Tree {
  name: string;
  run(part: Part, file: string, out: NodeJS.WritableStream): Promise<void>;
}

async function load(dir: string): Promise<Tree> {
  const at = (p: string) => import(pathToFileURL(path.join(dir, 'dist', p)).href);
  const [{ DumpLines }, { readBinlog }, { DUMP_ROWS }, { JsonBytes }, history] = await Promise.all([
    at('bin/dump-lines.js'),
    at('runtime/io/stream.js'),
    at('runtime/rows/row-tables.js'),
    at('runtime/core/dump-json-bytes.js'),
    // The trees before the schema history have no such module: they read without one.
    at('runtime/tables/history.js').catch(() => undefined),
  ]);
  return {
    name: dir,
    async run(part, file, out) {
      const schemaHistory = history ? { schemaHistory: new history.SchemaHistory() } : {};
      const events = readBinlog(file, { [DUMP_ROWS]: true, ...schemaHistory });
      if (part === 'dump') {
        const lines = new DumpLines(out);
        for await (const e of events) await lines.event(e);
        return lines.end();
      }
      const rows = new JsonBytes(1 << 16);
      for await (const e of events) {
        // A rows event's rows are a JsonRows (its render) where one pass writes them, decoded changes otherwise.
        if (part === 'rows' && typeof e.rows?.render === 'function') {
          rows.pos = 0;
          e.rows.render(rows);
        }
      }
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const parts: Part[] = args[0] === '--parts' ? (args.shift(), ['read', 'rows', 'dump']) : ['dump'];
  const [file, passes = '5', ...dirs] = args;
  if (!file) throw new Error('usage: npx tsx bench/dump-passes.ts [--parts] FILE PASSES [TREE...]');
  const trees = await Promise.all((dirs.length ? dirs : [path.join(import.meta.dirname, '..')]).map(load));
  const cpu = new Map(trees.flatMap((tree) => parts.map((part) => [`${tree.name} ${part}`, [] as number[]])));
  for (let i = 0; i < Number(passes); i++) {
    for (const tree of trees) {
      for (const part of parts) {
        let bytes = 0;
        const sink = new Writable({
          write(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            done();
          },
        });
        const c0 = process.cpuUsage();
        await tree.run(part, file, sink);
        const c = process.cpuUsage(c0);
        const seconds = cpu.get(`${tree.name} ${part}`)!;
        seconds.push((c.user + c.system) / 1e6);
        const what = part === 'dump' ? `${bytes} bytes` : part;
        process.stderr.write(`${tree.name} pass ${i + 1}: ${seconds.at(-1)!.toFixed(3)} s CPU, ${what}\n`);
      }
    }
  }
  for (const [name, seconds] of cpu) {
    const label = parts.length > 1 ? name : name.slice(0, -' dump'.length);
    process.stdout.write(`${label}: median CPU after the first pass ${median(seconds.slice(1)).toFixed(3)} s\n`);
  }
}

await main();
