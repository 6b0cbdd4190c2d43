/**
 * npm run bench -- --only=snapshot: `binlog dump -R --snapshot` (the default --snapshot-chunk, output to
 * /dev/null) beside `mariadb-dump --single-transaction` of the same table, in turns, `--runs` times. A
 * throwaway MariaDB (test/support/mariadb.ts) holds `--snapshot-rows` rows (default 150 000) of about
 * 150 bytes; a list of sizes (`--snapshot-rows=500000,1000000`) fills the table up to each in turn and
 * measures at each, to show whether memory grows with the table. The figures: rows/s (wall time of the
 * whole process, node's start and the short binlog after the snapshot included) and peak RSS,
 * /usr/bin/time's, where it is installed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findMariadb, startMariadb, type MariadbServer } from '../test/support/mariadb.js';

const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const COLUMNS = 'id INT PRIMARY KEY, n BIGINT, s VARCHAR(120), t DATETIME(6), m DECIMAL(20,6)';
/** Rows an INSERT … SELECT of the table's filling writes at once. */
const BATCH = 50_000;

interface Run {
  secs: number;
  /** Bytes, when /usr/bin/time measured it. */
  rssPeak?: number;
}

/** One process, its output to /dev/null: its wall seconds and peak RSS. */
function timed(argv: string[]): Promise<Run> {
  const full = TIME ? [TIME, '-f', '%M', ...argv] : argv;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(full[0]!, full.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: path.join(import.meta.dirname, '..'),
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const secs = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${argv[0]} exited with ${code}: ${err}`));
      resolve({ secs, ...(TIME ? { rssPeak: Number(err.trim().split('\n').pop()) * 1024 } : {}) });
    });
  });
}

/** Fills the table from `from` rows up to `to`, by the server itself. */
async function fill(server: MariadbServer, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += BATCH) {
    const n = Math.min(BATCH, to - first);
    await server.sql(
      `INSERT INTO t SELECT ${first} + seq, seq * 7919, REPEAT(CHAR(97 + seq % 26), 100), ` +
        `'2026-12-06 12:00:00.123456' + INTERVAL seq SECOND, seq / 7 FROM seq_1_to_${n}`,
      'snap',
    );
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The folders tsconfig.build.json compiles into dist/ (with snapshot/, which they import). */
const COMPILED = [
  'bin',
  'builder',
  'generated',
  'protocol',
  'replication',
  'runtime',
  'server',
  'sinks',
  'snapshot',
  'tools',
];

/**
 * The sources changed since dist/ was built from them. The bench runs the compiled CLI (bin/binlog runs
 * dist/), so a stale dist/ would measure other code than this tree's.
 */
function newerThanDist(root: string): string[] {
  const sources = COMPILED.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => path.join(dir, f)),
  );
  const built = (source: string) => {
    const js = path.join(root, 'dist', source.replace(/\.ts$/, '.js'));
    return fs.existsSync(js) ? fs.statSync(js).mtimeMs : 0;
  };
  return sources.filter((source) => fs.statSync(path.join(root, source)).mtimeMs > built(source));
}

/** Both tools' runs at one size of the table. */
async function measureAt(rows: number, runs: number, ours: string[], theirs: string[], log: (s: string) => void) {
  const results = { 'binlog dump -R --snapshot': [] as Run[], 'mariadb-dump --single-transaction': [] as Run[] };
  for (let i = 0; i < runs; i++) {
    log(`snapshot: ${rows} rows, run ${i + 1} of ${runs}`);
    results['binlog dump -R --snapshot'].push(await timed(ours));
    results['mariadb-dump --single-transaction'].push(await timed(theirs));
  }
  const mb = (r: Run[]) => (TIME ? `${(Math.max(...r.map((x) => x.rssPeak!)) / 1e6).toFixed(0)} MB` : 'not measured');
  return [
    `snapshot of ${rows} rows (about 150 bytes each), median of ${runs}, to /dev/null:`,
    ...Object.entries(results).map(([name, r]) => {
      const secs = median(r.map((x) => x.secs));
      return `  ${name.padEnd(36)} ${secs.toFixed(2)} s, ${Math.round(rows / secs)} rows/s, peak RSS ${mb(r)}`;
    }),
  ];
}

/** The section's lines, for each size of the table: rows/s (median of the runs) and the largest peak RSS. */
export async function snapshotBench(sizes: number[], runs: number, log: (s: string) => void): Promise<string[]> {
  const bin = findMariadb();
  if (!bin) return ['snapshot: not measured (MariaDB not installed)'];
  const root = path.join(import.meta.dirname, '..');
  const stale = newerThanDist(root);
  if (stale.length) throw new Error(`dist/ is older than ${stale.slice(0, 3).join(', ')}: npm run build first`);
  const server = await startMariadb();
  try {
    await server.sql(`CREATE DATABASE snap; CREATE TABLE snap.t (${COLUMNS});`);
    const ours = [process.execPath, path.join(root, 'bin', 'binlog'), 'dump', '-R'];
    ours.push('--socket', server.socket, '--user=root', '--snapshot', '--database=snap');
    const theirs = [bin.dumpTool, '--no-defaults', '-S', server.socket, '-uroot', '--single-transaction', 'snap'];
    const lines: string[] = [];
    let filled = 0;
    for (const rows of [...sizes].sort((a, b) => a - b)) {
      log(`snapshot: writing rows ${filled + 1} to ${rows}`);
      await fill(server, filled, rows);
      filled = rows;
      lines.push(...(await measureAt(rows, runs, ours, theirs, log)));
    }
    return lines;
  } finally {
    await server.stop();
  }
}
