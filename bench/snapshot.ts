/**
 * npm run bench -- --only=snapshot: `binlog dump -R --snapshot` (the default --snapshot-chunk, output to
 * /dev/null) beside `mariadb-dump --single-transaction` of the same table, in turns, `--runs` times. A
 * throwaway MariaDB (test/support/mariadb.ts) holds `--snapshot-rows` rows (default 150 000) of about
 * 150 bytes. The figures: rows/s (wall time of the whole process, node's start and the short binlog
 * after the snapshot included) and peak RSS, /usr/bin/time's, where it is installed.
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

/** The table of `rows` rows, filled by the server itself. */
async function fill(server: MariadbServer, rows: number): Promise<void> {
  await server.sql(`CREATE DATABASE snap; CREATE TABLE snap.t (${COLUMNS});`);
  for (let first = 0; first < rows; first += BATCH) {
    const n = Math.min(BATCH, rows - first);
    await server.sql(
      `INSERT INTO t SELECT ${first} + seq, seq * 7919, REPEAT(CHAR(97 + seq % 26), 100), ` +
        `'2026-12-06 12:00:00.123456' + INTERVAL seq SECOND, seq / 7 FROM seq_1_to_${n}`,
      'snap',
    );
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The section's lines: rows/s (median of the runs) and the largest peak RSS of each. */
export async function snapshotBench(rows: number, runs: number, log: (s: string) => void): Promise<string[]> {
  const bin = findMariadb();
  if (!bin) return ['snapshot: not measured (MariaDB not installed)'];
  const server = await startMariadb();
  try {
    log(`snapshot: writing ${rows} rows`);
    await fill(server, rows);
    const ours = [process.execPath, path.join(import.meta.dirname, '..', 'bin', 'binlog'), 'dump', '-R'];
    ours.push('--socket', server.socket, '--user=root', '--snapshot', '--database=snap');
    const theirs = [bin.dumpTool, '--no-defaults', '-S', server.socket, '-uroot', '--single-transaction', 'snap'];
    const results = { 'binlog dump -R --snapshot': [] as Run[], 'mariadb-dump --single-transaction': [] as Run[] };
    for (let i = 0; i < runs; i++) {
      log(`snapshot: run ${i + 1} of ${runs}`);
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
  } finally {
    await server.stop();
  }
}
