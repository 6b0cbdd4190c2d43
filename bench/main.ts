/**
 * npm run bench [-- --mb=N --runs=N --data=server|builder --profile --live-rows=N]: speed and memory of the
 * codec on one large binlog, beside @vlasky/zongji and mariadb-binlog, and (live) reading a server's
 * binlog beside zongji. See bench/README.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { findMariadb } from '../test/support/mariadb.js';
import { DATA_DIR, ensureBinlog, type DataSource } from './data.js';
import { liveBench } from './live.js';
import { snapshotBench } from './snapshot.js';
import { streamNatsBench } from './stream-nats.js';
import type { Result } from './measure.js';
import { topFunctions } from './profile.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const MB = Number(arg('mb') ?? process.env.BENCH_MB ?? 500);
const RUNS = Number(arg('runs') ?? process.env.BENCH_RUNS ?? 5);
const DATA = (arg('data') ?? process.env.BENCH_DATA ?? 'server') as DataSource;
const LIVE_ROWS = Number(arg('live-rows') ?? process.env.BENCH_LIVE_ROWS ?? 1_000_000);
/** The sizes of the snapshot's table, a comma-separated list: the table is filled up to each in turn. */
const SNAPSHOT_ROWS = (arg('snapshot-rows') ?? process.env.BENCH_SNAPSHOT_ROWS ?? '150000').split(',').map(Number);
/** Another tree (main's, say) whose streamer stream-nats runs beside this one's. */
const BEFORE = arg('before') ?? process.env.BENCH_BEFORE;
const PROFILE = process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1';
const log = (s: string) => process.stderr.write(`${s}\n`);
const LOAD = os.loadavg()[0]!.toFixed(2);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** measure.ts as one plain ES module, so that the figures are those of compiled code (no tsx loader). */
async function bundle(): Promise<string> {
  const out = path.join(DATA_DIR, 'build', 'measure.mjs');
  await build({
    entryPoints: [path.join(import.meta.dirname, 'measure.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'error',
  });
  return out;
}

function measure(script: string, kind: string, file: string, runs: number, nodeArgs: string[] = []): Promise<Result> {
  log(`run: ${kind} × ${runs}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, kind, file, String(runs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`measure ${kind} exited with ${code}`)),
    );
  });
}

/** Wall seconds of `mariadb-binlog --no-defaults --verbose FILE > /dev/null`, each run. */
function mariadbBinlog(tool: string, file: string, runs: number): number[] {
  log(`run: mariadb-binlog --verbose × ${runs}`);
  const secs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const devnull = fs.openSync('/dev/null', 'w');
    const t0 = performance.now();
    const r = spawnSync(tool, ['--no-defaults', '--verbose', file], { stdio: ['ignore', devnull, 'pipe'] });
    secs.push((performance.now() - t0) / 1000);
    fs.closeSync(devnull);
    if (r.status !== 0) throw new Error(`mariadb-binlog failed (${r.status}): ${r.stderr}`);
  }
  return secs;
}

/** `time -f %M`'s peak RSS in KB is its last stderr line; where there is no /usr/bin/time, commands run without it. */
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * Wall seconds and peak RSS (bytes, when /usr/bin/time is there) of each command `> /dev/null`, the
 * commands taking turns run after run so that a change in the machine's load falls on all of them.
 */
function alternate(commands: { name: string; argv: string[] }[], runs: number): Result[] {
  log(`run: ${commands.map((c) => c.name).join(' and ')}, taking turns × ${runs}`);
  const out = commands.map((c) => ({ kind: c.name, secs: [] as number[], rssPeak: 0 }));
  for (let i = 0; i < runs; i++) {
    commands.forEach((c, k) => {
      const argv = TIME ? [TIME, '-f', '%M', ...c.argv] : c.argv;
      const devnull = fs.openSync('/dev/null', 'w');
      const t0 = performance.now();
      const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', devnull, 'pipe'], encoding: 'utf8' });
      out[k]!.secs.push((performance.now() - t0) / 1000);
      fs.closeSync(devnull);
      if (r.status !== 0) throw new Error(`${c.name} failed (${r.status}): ${r.stderr}`);
      const kb = TIME ? Number(r.stderr.trim().split('\n').pop()) : 0;
      out[k]!.rssPeak = Math.max(out[k]!.rssPeak, kb * 1024);
    });
  }
  return out;
}

/**
 * Start-up (issues 16 and 45), in fresh processes: `import` of the library (dist/index.js: its time, and the
 * RSS after it), and the command's wall time and peak RSS for `--version` and for `dump` of the bundled
 * sample (bin/binlog, which runs the CLI's bundle: npm run build first), taking turns, beside bare
 * `node -e 0`; with `before`, another tree's `--version` and `dump` take their turns too.
 */
function startup(runs: number, before: string | undefined): string[] {
  log(`run: start-up × ${runs}`);
  const root = path.join(import.meta.dirname, '..');
  const lib = pathToFileURL(path.join(root, 'dist', 'index.js')).href;
  const timed =
    `const t = performance.now(); await import(${JSON.stringify(lib)}); console.log(JSON.stringify({ ms: ` +
    `performance.now() - t, rss: process.memoryUsage.rss() }))`;
  const imports = Array.from(
    { length: runs },
    () =>
      JSON.parse(spawnSync(process.execPath, ['--input-type=module', '-e', timed], { encoding: 'utf8' }).stdout) as {
        ms: number;
        rss: number;
      },
  );
  const sample = path.join(root, 'test', 'fixtures', 'sample.bin');
  const commands = (tree: string, label: string) => [
    { name: `binlog --version${label}`, argv: [process.execPath, path.join(tree, 'bin', 'binlog'), '--version'] },
    {
      name: `binlog dump test/fixtures/sample.bin${label}`,
      argv: [process.execPath, path.join(tree, 'bin', 'binlog'), 'dump', sample],
    },
  ];
  const runsOf = alternate(
    [
      { name: 'node -e 0', argv: [process.execPath, '-e', '0'] },
      ...commands(root, ''),
      ...(before ? commands(before, ' (before)') : []),
    ],
    runs,
  );
  const ms = (secs: number[]) =>
    `${(median(secs) * 1000).toFixed(0)} ms ` +
    `(${(Math.min(...secs) * 1000).toFixed(0)}–${(Math.max(...secs) * 1000).toFixed(0)})`;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  return [
    `start-up, median (min–max) of ${runs}:`,
    `  import of the library (dist/index.js)   ${ms(imports.map((i) => i.ms / 1000))}, ` +
      `RSS after it ${mb(Math.max(...imports.map((i) => i.rss)))}`,
    ...runsOf.map((r) => {
      const rss = TIME ? mb(r.rssPeak ?? 0) : 'not measured (no /usr/bin/time)';
      return `  ${r.kind.padEnd(47)}  ${ms(r.secs)} wall, peak RSS ${rss}`;
    }),
  ];
}

const KINDS = [
  'frame',
  'decode',
  'lazy',
  'stream',
  'encode',
  'zongji',
  'text',
  'mariadb-binlog',
  'dump',
  'live',
  'stream-nats',
  'snapshot',
  'startup',
] as const;
/** The kinds that need no binlog file: a live server's, or none. */
const FILELESS: readonly string[] = ['live', 'stream-nats', 'snapshot', 'startup'];
type Kind = (typeof KINDS)[number];
const ONLY = (arg('only') ?? process.env.BENCH_ONLY)?.split(',') ?? [...KINDS];

async function main(): Promise<void> {
  if (
    !(MB > 0) ||
    !(RUNS >= 1) ||
    SNAPSHOT_ROWS.some((n) => !Number.isSafeInteger(n) || n < 1) ||
    (DATA !== 'server' && DATA !== 'builder') ||
    ONLY.some((k) => !KINDS.includes(k as Kind))
  ) {
    throw new Error(
      'usage: npm run bench [-- --mb=N --runs=N --data=server|builder --only=KIND,… --profile] ' +
        `(or BENCH_MB, BENCH_RUNS, BENCH_DATA, BENCH_ONLY, BENCH_PROFILE=1); KIND is ${KINDS.join(', ')}`,
    );
  }
  const start = ONLY.includes('startup') ? startup(RUNS, BEFORE) : [];
  if (ONLY.every((k) => k === 'startup')) {
    process.stdout.write(start.join('\n') + '\n');
    return;
  }
  const bin = findMariadb();
  if (!bin) {
    throw new Error(
      'npm run bench needs MariaDB: mariadbd, mariadb-install-db, mariadb and mariadb-binlog must be on PATH, ' +
        '/usr/sbin or /usr/bin (Debian: apt-get install mariadb-server mariadb-client)',
    );
  }
  const live = [
    ...(ONLY.includes('live') ? await liveBench(LIVE_ROWS, RUNS, log) : []),
    ...(ONLY.includes('stream-nats') ? await streamNatsBench(LIVE_ROWS, RUNS, BEFORE, log) : []),
    ...(ONLY.includes('snapshot') ? await snapshotBench(SNAPSHOT_ROWS, RUNS, log) : []),
  ];
  if (ONLY.every((k) => FILELESS.includes(k))) {
    process.stdout.write([...live, ...start].join('\n') + '\n');
    return;
  }
  const file = await ensureBinlog(MB, DATA, log);
  const size = fs.statSync(file).size;
  const script = await bundle();

  const r: Partial<Record<Kind, Result>> = {};
  for (const kind of KINDS) {
    if (!ONLY.includes(kind) || FILELESS.includes(kind) || kind === 'dump') continue;
    r[kind] =
      kind === 'mariadb-binlog'
        ? { kind, secs: mariadbBinlog(bin.binlogTool, file, RUNS) }
        : await measure(script, kind, file, RUNS);
  }
  // The CLI end to end (the compiled one: npm run build first) against the C++ tool's same job, rows decoded.
  const [dump, cxxRows] = ONLY.includes('dump')
    ? alternate(
        [
          {
            name: 'binlog dump',
            argv: [process.execPath, path.join(import.meta.dirname, '..', 'bin', 'binlog'), 'dump', file],
          },
          {
            name: 'mariadb-binlog -v',
            argv: [bin.binlogTool, '--no-defaults', '-v', '--base64-output=DECODE-ROWS', file],
          },
        ],
        RUNS,
      )
    : [];
  const { frame, decode, lazy, stream, encode, zongji, text } = r;
  const cxx = r['mariadb-binlog'];
  const counted = decode ?? stream;
  if (zongji && counted && zongji.rows !== counted.rows)
    log(`WARNING: zongji counted ${zongji.rows} row changes, we ${counted.rows}`);

  const mbps = (x: Result) => size / 1e6 / median(x.secs);
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  const lines: string[] = [];
  const p = (s = '') => lines.push(s);
  const made = DATA === 'server' ? 'written by a MariaDB server' : 'written by builder/binlog-writer.ts';
  const what = counted ? `, ${counted.events} events, ${counted.rows} row changes` : '';
  p(`binlog-codec bench: ${path.relative(process.cwd(), file)} (${made}), ${(size / 1e6).toFixed(1)} MB${what}`);
  p(
    `median of ${RUNS} run(s); MB = 10^6 bytes; node ${process.version}, ${os.cpus().length} CPU(s) ` +
      `${os.cpus()[0]?.model ?? ''}, load average at start ${LOAD}`,
  );
  p();
  const cols = (a: string, b: string, c: string, d: string, e: string, f: string, g: string) =>
    p(`${a.padEnd(42)}${b.padStart(9)}${c.padStart(15)}${d.padStart(9)}${e.padStart(11)}   ${f.padEnd(18)}${g}`);
  cols('measure', 'median s', 'min–max s', 'MB/s', 'rows/s', 'target', 'met');
  const row = (name: string, x: Result | undefined, target = '', met?: boolean) => {
    if (!x) return;
    const range = `${Math.min(...x.secs).toFixed(2)}–${Math.max(...x.secs).toFixed(2)}`;
    const rows = x.rows !== undefined ? Math.round(x.rows / median(x.secs)).toLocaleString('en-US') : '';
    cols(name, median(x.secs).toFixed(3), range, mbps(x).toFixed(1), rows, target, met === undefined ? '' : yes(met));
  };
  row('framing + CRC32 (frameBinlog)', frame, '≥ 1000 MB/s', frame && mbps(frame) >= 1000);
  row('full decode, in memory (iterateBinlog)', decode, '≥ 200 MB/s', decode && mbps(decode) >= 200);
  row("lazy rows, first column read (rows: 'lazy')", lazy, '≥ 500 MB/s', lazy && mbps(lazy) >= 500);
  row('full decode, from disk (readBinlog(path))', stream);
  row(`encode (EventEncoder, as encodeBinlog)`, encode, '≥ 100 MB/s', encode && mbps(encode) >= 100);
  row('@vlasky/zongji 0.9 row decode, in memory', zongji);
  row('mariadb-binlog --verbose > /dev/null', cxx);
  row("text cells' strings alone (Buffer#toString)", text);
  row('binlog dump FILE > /dev/null', dump, '≥ 1.0× the next', dump && cxxRows && mbps(dump) >= mbps(cxxRows));
  row('mariadb-binlog -v, DECODE-ROWS > /dev/null', cxxRows);
  p();
  if (decode && zongji) {
    const x = mbps(decode) / mbps(zongji);
    p(
      `ours / zongji, full decode:           ${x.toFixed(2)}×   target ≥ 5× (issue 16: ≥ 3.5×, ` +
        `not slower than before): ${yes(x >= 5)}`,
    );
  }
  if (lazy && zongji) {
    const x = mbps(lazy) / mbps(zongji);
    p(`ours lazy (one column) / zongji full: ${x.toFixed(2)}×   target ≥ 5×: ${yes(x >= 5)}`);
  }
  if (decode && cxx) {
    const x = mbps(decode) / mbps(cxx);
    p(`ours / mariadb-binlog --verbose:      ${x.toFixed(2)}×   target > 1× (faster): ${yes(x > 1)}`);
  }
  if (text) {
    const share = decode
      ? `, ${((100 * median(text.secs)) / median(decode.secs)).toFixed(0)} % of the full decode's time`
      : '';
    p(
      `text: ${text.strings} strings, ${((text.textBytes ?? 0) / 1e6).toFixed(1)} MB of UTF-8; ` +
        `V8 making them alone takes ${median(text.secs).toFixed(3)} s${share}:`,
    );
    p(
      `  no decode that makes them in Node goes past ${mbps(text).toFixed(0)} MB/s on this file, whatever else it does`,
    );
  }
  if (stream) {
    const rssMb = (stream.rssPeak ?? 0) / 1e6;
    p(
      `peak RSS streaming readBinlog(path):  ${rssMb.toFixed(1)} MB (${((stream.rssBase ?? 0) / 1e6).toFixed(1)} MB ` +
        `after start-up)   target < 150 MB on 2 GB: ${yes(rssMb < 150)}`,
    );
    p(
      size >= 1.9e9
        ? '  measured on this file'
        : `  measured on ${(size / 1e6).toFixed(0)} MB; the 2 GB figure is extrapolated ` +
            `(memory does not grow with the file); --mb=2000 --only=stream measures it`,
    );
  }
  if (encode) p(`encode output identical to the input:  ${encode.identical ? 'yes' : 'NO'}`);
  if (dump && cxxRows) {
    const mb = (x: Result) => (TIME ? `${((x.rssPeak ?? 0) / 1e6).toFixed(1)} MB` : 'not measured (no /usr/bin/time)');
    p(
      `binlog dump / mariadb-binlog -v:      ${(mbps(dump) / mbps(cxxRows)).toFixed(2)}×   target ≥ 1.0× (issue 45): ` +
        `${yes(mbps(dump) >= mbps(cxxRows))}`,
    );
    p(
      `peak RSS, binlog dump: ${mb(dump)} (target < 150 MB: ${yes((dump.rssPeak ?? 0) < 150e6)}); mariadb-binlog -v: ` +
        `${mb(cxxRows)}`,
    );
  }
  p();
  if (live.length) {
    live.forEach((l) => p(l));
    p();
  }
  if (start.length) {
    start.forEach((l) => p(l));
    p();
  }
  if (cxx) p(`reference: ${spawnSync(bin.binlogTool, ['--version'], { encoding: 'utf8' }).stdout.trim()}`);
  if (zongji) {
    p(`zongji: lib/sequence/binlog.js binlogData() fed one packet per event (0x00 OK byte + the event's bytes, CRC32`);
    p(
      `  included), useChecksum and isMariaDb set, TABLE_MAPs registered as index.js does with FULL metadata ` +
        `(bench/zongji.ts)`,
    );
  }

  if (PROFILE) {
    const dir = path.join(DATA_DIR, 'profile');
    fs.rmSync(dir, { recursive: true, force: true });
    await measure(script, 'decode', file, 1, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const prof = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!prof) throw new Error('node --cpu-prof wrote no profile');
    p();
    p(
      `profile of one full decode (node --cpu-prof, self time; ${path.relative(process.cwd(), path.join(dir, prof))}):`,
    );
    for (const l of topFunctions(path.join(dir, prof), script, 25)) p(`  ${l}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
