/**
 * CPU time of builds side by side in one process, for comparing them on a loaded machine:
 *   npx tsx bench/passes.ts MODES FILE PASSES [TREE...]
 * MODES is a comma-separated list of
 *   decode  iterateBinlog over the file in memory: every event and every row cell decoded
 *   lazy    iterateBinlog with rows: 'lazy': every event decoded, the first column of each row change read
 *   encode  EventEncoder.encode of every event, decoded untimed in batches of about 64 MB
 *   dump    the file read from disk and written as `binlog dump` writes it (readBinlog with the dump's rows,
 *           DumpLines) into a stream that drops the bytes; a tree that has the schema history
 *           (runtime/tables/history.js) reads with a new one each pass, as its `binlog dump` does
 *   read    the dump's part before its JSON: the file read and its events decoded as the dump reads them, with
 *           the rows kept as bytes
 *   rows    that part with every rows event's JSON rendered (JsonRows.render) and dropped, so that the rows'
 *           share of the dump shows beside the two modes above
 * Each tree is one compiled dist/ (this one's by default). In every pass each mode runs once in each tree,
 * the trees taking turns, their order rotated from pass to pass so that none always runs first. Each run's
 * CPU seconds (user + system, process.cpuUsage) are printed, then per mode and tree the median of the passes
 * after the first (the first one pays for the compilation).
 */
import { Writable } from 'node:stream';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { batchesOf, readAll } from './inputs.js';

const MODES = ['decode', 'lazy', 'encode', 'dump', 'read', 'rows'] as const;
type Mode = (typeof MODES)[number];

/** The few parts of a tree's dist/ that the modes use, typed as loosely as two builds of them agree. */
interface Event {
  header: { eventSize: number };
  rows?: unknown;
}
interface LazyChange {
  before?: { get(k: number): unknown };
  after?: { get(k: number): unknown };
}
interface Modules {
  iterateBinlog(bytes: Uint8Array, options?: object): Iterable<Event>;
  EventEncoder: new () => { encode(e: Event, offset: number): Uint8Array };
  dump(file: string, out: NodeJS.WritableStream): Promise<void>;
  /** Reads the file as the dump does, each rows event's JSON rendered when `render` is set; gives the events. */
  read(file: string, render: boolean): Promise<number>;
}

/** A run's CPU seconds, and a count of what it did so that the trees can be seen to agree. */
interface Run {
  cpu: number;
  count: number;
}

interface Tree {
  name: string;
  run: Record<Mode, (file: string, bytes: Uint8Array) => Promise<Run>>;
}

async function load(dir: string): Promise<Tree> {
  const at = (p: string) => import(pathToFileURL(path.join(dir, 'dist', p)).href);
  const [{ DumpLines }, { readBinlog, iterateBinlog }, rowTables, { EventEncoder }, { JsonBytes }, history] =
    await Promise.all([
      at('bin/dump-lines.js'),
      at('runtime/io/stream.js'),
      at('runtime/rows/row-tables.js'),
      at('runtime/events/event-codec.js'),
      // The trees before issue 38 named it json-bytes.js; the modes read and rows need it, the others do not.
      at('runtime/core/dump-json-bytes.js').catch(() => at('runtime/core/json-bytes.js')),
      // The trees before the schema history have no such module: they read without one.
      at('runtime/tables/history.js').catch(() => undefined),
    ]);
  // The trees before DUMP_ROWS asked for the dump's rows with the option `rows: 'json'`.
  const dumpRows = rowTables.DUMP_ROWS ? { [rowTables.DUMP_ROWS]: true } : { rows: 'json' };
  const dumpRead = (file: string) =>
    readBinlog(file, { ...dumpRows, ...(history ? { schemaHistory: new history.SchemaHistory() } : {}) });
  const modules: Modules = {
    iterateBinlog,
    EventEncoder,
    async dump(file, out) {
      const lines = new DumpLines(out);
      for await (const e of dumpRead(file)) await lines.event(e);
      await lines.end();
    },
    async read(file, render) {
      const rows = new JsonBytes(1 << 16);
      let count = 0;
      for await (const e of dumpRead(file)) {
        count++;
        // A rows event's rows are a JsonRows (its render) where the dump writes them from their bytes.
        if (render && typeof e.rows?.render === 'function') {
          rows.pos = 0;
          e.rows.render(rows);
        }
      }
      return count;
    },
  };
  return {
    name: dir,
    run: {
      decode: async (_, bytes) => decode(modules, bytes),
      lazy: async (_, bytes) => lazy(modules, bytes),
      encode: async (_, bytes) => encode(modules, bytes),
      dump: (file) => dump(modules, file),
      read: (file) => read(modules, file, false),
      rows: (file) => read(modules, file, true),
    },
  };
}

/** The CPU seconds `f` takes, this process's user and system time together. */
function cpuOf(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

function decode(m: Modules, bytes: Uint8Array): Run {
  let count = 0;
  const cpu = cpuOf(() => {
    for (const e of m.iterateBinlog(bytes)) if (Array.isArray(e.rows)) count += e.rows.length;
  });
  return { cpu, count };
}

/** Counts the row changes whose first column is not NULL, so that every read is used. */
function lazy(m: Modules, bytes: Uint8Array): Run {
  let count = 0;
  const cpu = cpuOf(() => {
    for (const e of m.iterateBinlog(bytes, { rows: 'lazy' })) {
      if (!e.rows) continue;
      for (const change of e.rows as Iterable<LazyChange>) if ((change.after ?? change.before)?.get(0) != null) count++;
    }
  });
  return { cpu, count };
}

/**
 * Only the encoding is timed: the events are decoded in batches of about 64 MB of the file (holding a
 * whole large file's events at once would measure the heap), and the output is checked against the input.
 */
function encode(m: Modules, bytes: Uint8Array): Run {
  const encoder = new m.EventEncoder();
  let offset = 4;
  let cpu = 0;
  for (const batch of batchesOf(m.iterateBinlog(bytes))) {
    cpu += cpuOf(() => {
      for (const e of batch) {
        const b = encoder.encode(e, offset);
        if (Buffer.compare(b, bytes.subarray(offset, offset + b.length)) !== 0)
          throw new Error(`the encoding differs from the input in the event at ${offset}`);
        offset += b.length;
      }
    });
  }
  if (offset !== bytes.length) throw new Error(`the encoding is ${offset} bytes, the input ${bytes.length}`);
  return { cpu, count: offset };
}

/** The CPU seconds `f` takes, and the count it gives. */
async function cpuOfRun(f: () => Promise<number>): Promise<Run> {
  const c0 = process.cpuUsage();
  const count = await f();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1e6, count };
}

/** The CPU of a whole dump, and the bytes it wrote. */
function dump(m: Modules, file: string): Promise<Run> {
  let count = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      count += chunk.length;
      done();
    },
  });
  return cpuOfRun(async () => {
    await m.dump(file, sink);
    return count;
  });
}

/** The CPU of the dump's reading, with or without the rows' JSON, and the events read. */
function read(m: Modules, file: string, render: boolean): Promise<Run> {
  return cpuOfRun(() => m.read(file, render));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function modesOf(list: string): Mode[] {
  const modes = list.split(',');
  const unknown = modes.find((m) => !(MODES as readonly string[]).includes(m));
  if (unknown) throw new Error(`unknown mode '${unknown}': the modes are ${MODES.join(', ')}`);
  return modes as Mode[];
}

/** The trees of pass `i`, rotated by `i`. */
const inTurn = <T>(xs: T[], i: number): T[] => [...xs.slice(i % xs.length), ...xs.slice(0, i % xs.length)];

async function main(): Promise<void> {
  const [list, file, passes = '5', ...dirs] = process.argv.slice(2);
  if (!list || !file) throw new Error(`usage: npx tsx bench/passes.ts ${MODES.join('|')}[,…] FILE PASSES [TREE...]`);
  const modes = modesOf(list);
  const trees = await Promise.all((dirs.length ? dirs : [path.join(import.meta.dirname, '..')]).map(load));
  const bytes = modes.some((m) => ['decode', 'lazy', 'encode'].includes(m)) ? readAll(file) : new Uint8Array(0);
  const cpu = new Map(trees.map((t) => [t, new Map(modes.map((m) => [m, [] as number[]]))]));
  for (let i = 0; i < Number(passes); i++) {
    for (const mode of modes) {
      for (const tree of inTurn(trees, i)) {
        const { cpu: secs, count } = await tree.run[mode](file, bytes);
        cpu.get(tree)!.get(mode)!.push(secs);
        process.stderr.write(`pass ${i + 1} ${mode} ${tree.name}: ${secs.toFixed(3)} s CPU, ${count}\n`);
      }
    }
  }
  for (const mode of modes) {
    for (const tree of trees) {
      const secs = cpu.get(tree)!.get(mode)!.slice(1);
      const shown = secs.length ? `${median(secs).toFixed(3)} s (min ${Math.min(...secs).toFixed(3)})` : '-';
      process.stdout.write(`${mode} ${tree.name}: median CPU after the first pass ${shown}\n`);
    }
  }
}

await main();
