/**
 * The live section of npm run bench (--only=live): a throwaway MariaDB server (test/support/mariadb.ts),
 * a bounded workload written first, then read from the start of its binlog by our connectBinlog and by
 * @vlasky/zongji, each in its own process: the same rows (a digest of every value, in order), rows/s and
 * peak RSS of each, and the ratio; and, when nats-server is installed, `binlog stream`'s streamer into a
 * throwaway nats-server (test/support/nats.ts): rows/s from the server to acknowledged in JetStream.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { build } from 'esbuild';
import { findMariadb, startMariadb } from '../test/support/mariadb.js';
import { natsAvailable, startNats } from '../test/support/nats.js';
import { DATA_DIR } from './data.js';
import type { LiveResult } from './live-run.js';

export const TRANSACTION_ROWS = 1000;

/**
 * The workload's INSERTs: `batches` transactions of TRANSACTION_ROWS rows each, of an id, a BIGINT, a
 * VARCHAR, a DOUBLE (with `double`), a DATETIME(6) and a DECIMAL, all made by the server from seq_1_to_N.
 */
export function insertsOf(batches: number, double: boolean): string {
  const values = (b: number) =>
    [
      `${b * TRANSACTION_ROWS} + seq`,
      'CAST(seq AS SIGNED) * 7919 - 500000',
      `CONCAT('row ', seq, ' of ${b}')`,
      ...(double ? ['seq / 3'] : []),
      `'2024-01-01 00:00:00' + INTERVAL (seq * 7777777 + ${b}) MICROSECOND`,
      '(CAST(seq AS SIGNED) - 500) * 1234.567891',
    ].join(', ');
  const insert = (b: number) => `INSERT INTO live.t SELECT ${values(b)} FROM seq_1_to_${TRANSACTION_ROWS};`;
  return Array.from({ length: batches }, (_, b) => insert(b)).join('\n');
}
/**
 * The table: the types of the codec bench's binlog that both clients read to the same text (zongji with dateStrings).
 */
const COLUMNS = 'id INT PRIMARY KEY, n BIGINT, s VARCHAR(64), d DOUBLE, t DATETIME(6), m DECIMAL(20,6)';

/**
 * bench/live-run.ts of the tree at `dir` (this one by default, or another checkout for a before/after run)
 * bundled into DATA_DIR/build/`name`, so that the bench runs it as a plain node script.
 */
export async function bundle(dir = path.join(import.meta.dirname, '..'), name = 'live-run.mjs'): Promise<string> {
  const out = path.join(DATA_DIR, 'build', name);
  await build({
    entryPoints: [path.join(dir, 'bench', 'live-run.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return out;
}

function consumer(script: string, kind: string, socket: string, rows: number, natsUrl = ''): Promise<LiveResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, kind, socket, String(rows), natsUrl], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: path.join(import.meta.dirname, '..'),
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as LiveResult)
        : reject(new Error(`live consumer ${kind} exited with ${code}`)),
    );
  });
}

/** Writes `rows` rows in transactions of 1000, reads them back both ways; the report's lines. */
export async function liveBench(rows: number, runs: number, log: (s: string) => void): Promise<string[]> {
  const script = await bundle();
  const server = await startMariadb();
  try {
    log(`live: writing ${rows} rows`);
    await server.sql(`CREATE DATABASE live; CREATE TABLE live.t (${COLUMNS});`);
    const batches = Math.ceil(rows / TRANSACTION_ROWS);
    const sql = insertsOf(batches, true);
    await server.sql(sql, 'live');
    const total = batches * TRANSACTION_ROWS;
    const results: LiveResult[] = [];
    for (let i = 0; i < runs; i++) {
      for (const kind of ['ours', 'zongji', 'frames']) {
        log(`live: ${kind} run ${i + 1}`);
        results.push(await consumer(script, kind, server.socket, total));
      }
      log(`live: mariadb-binlog -R run ${i + 1}`);
      results.push(mariadbBinlogRemote(server.socket, total));
    }
    return [...report(results, total), ...(await streamBench(script, server.socket, total, runs, log))];
  } finally {
    await server.stop();
  }
}

/** The streamer into JetStream, each run into a fresh nats-server: rows/s from the server to acknowledged. */
async function streamBench(
  script: string,
  socket: string,
  total: number,
  runs: number,
  log: (s: string) => void,
): Promise<string[]> {
  if (!natsAvailable) return ['  binlog stream into NATS JetStream: not measured (nats-server not installed)'];
  const results: LiveResult[] = [];
  for (let i = 0; i < runs; i++) {
    const nats = await startNats();
    try {
      log(`live: jetstream run ${i + 1}`);
      results.push(await consumer(script, 'jetstream', socket, total, nats.url));
    } finally {
      await nats.stop();
    }
  }
  const secs = [...results.map((r) => r.secs)].sort((a, b) => a - b)[results.length >> 1]!;
  const rss = Math.max(...results.map((r) => r.rssPeak)) / 1e6;
  const all = results.every((r) => r.rows === total)
    ? 'every row acknowledged'
    : `NOT every row: ${results.map((r) => r.rows).join(', ')} of ${total}`;
  return [
    `  ${'binlog stream → JetStream (acknowledged)'.padEnd(38)} ${secs.toFixed(3)} s  ${Math.round(total / secs)
      .toLocaleString('en-US')
      .padStart(10)} rows/s  peak RSS ${rss.toFixed(1)} MB  (${all})`,
  ];
}

/** `mariadb-binlog -R -v` of the same binlog, its output to /dev/null: the C++ client decoding the same stream. */
function mariadbBinlogRemote(socket: string, rows: number): LiveResult {
  const tool = findMariadb()!.binlogTool;
  const argv = [
    '--no-defaults',
    '-R',
    `--socket=${socket}`,
    '--user=root',
    '-v',
    '--base64-output=DECODE-ROWS',
    'binlog.000001',
  ];
  const t0 = performance.now();
  const r = spawnSync(tool, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`mariadb-binlog -R failed (${r.status}): ${r.stderr}`);
  return { kind: 'mariadb-binlog', secs: (performance.now() - t0) / 1000, rows, digest: '', rssPeak: 0 };
}

const NAMES: Record<string, string> = {
  ours: 'connectBinlog',
  zongji: '@vlasky/zongji (tablemap, writerows)',
  frames: 'connectBinlogFrames (undecoded)',
  'mariadb-binlog': 'mariadb-binlog -R -v > /dev/null',
};

function report(results: LiveResult[], total: number): string[] {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const of = (kind: string) => results.filter((r) => r.kind === kind);
  const secs = (kind: string) => median(of(kind).map((r) => r.secs));
  // From the first row to the last: the stream's own rate, connecting and start-up left out.
  const streamSecs = (kind: string) => median(of(kind).map((r) => r.secs - r.firstSecs!));
  const rss = (kind: string) => Math.max(...of(kind).map((r) => r.rssPeak)) / 1e6;
  const decoded = [...of('ours'), ...of('zongji')];
  const same = new Set(decoded.map((r) => r.digest)).size === 1 && decoded.every((r) => r.rows === total);
  const rate = (s: number) =>
    `${Math.round(total / s)
      .toLocaleString('en-US')
      .padStart(10)} rows/s`;
  const lines = [
    `live: ${total} rows (${COLUMNS}) in transactions of ${TRANSACTION_ROWS}, ` +
      `read from a MariaDB server's unix socket; median of ${of('ours').length} run(s)`,
  ];
  for (const kind of Object.keys(NAMES)) {
    const memory = kind === 'mariadb-binlog' ? '' : `  peak RSS ${rss(kind).toFixed(1)} MB`;
    const stream =
      kind === 'ours' || kind === 'zongji'
        ? `  first row to last ${streamSecs(kind).toFixed(3)} s ${rate(streamSecs(kind))}`
        : '';
    lines.push(`  ${NAMES[kind]!.padEnd(38)} ${secs(kind).toFixed(3)} s ${rate(secs(kind))}${memory}${stream}`);
  }
  const x = secs('zongji') / secs('ours');
  const xs = streamSecs('zongji') / streamSecs('ours');
  const bound = secs('zongji') / secs('frames');
  lines.push(
    `  ours / zongji, live rows/s: ${x.toFixed(2)}× connect to last row, ${xs.toFixed(2)}× first row to last` +
      `   target ≥ 3×: ${x >= 3 ? 'yes' : 'NO'}`,
  );
  lines.push(`  the server's own pace (undecoded frames) bounds any client at ${bound.toFixed(2)}× zongji`);
  lines.push(`  same row values (digest of every row, in order): ${same ? 'yes' : 'NO'}`);
  return lines;
}
