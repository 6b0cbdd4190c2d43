/**
 * npm run bench -- --only=stream-nats: `binlog stream`'s rate beside the broker's own in one run. A
 * throwaway MariaDB (test/support/mariadb.ts) holds `--live-rows` rows (INT, BIGINT, VARCHAR,
 * DATETIME(6), DECIMAL) written 1000 a transaction; then, `--runs` times, each into a fresh `nats-server
 * -js` and in a process of its own (bench/live-run.ts): the streamer from the binlog's start to every
 * row acknowledged, and the ceiling, the NATS client alone storing as many messages of the same mean
 * size: once making each header and reading each answer as the sink does, the ceiling the ratio is taken
 * to, and once with the client's own headers() and JSON, as the ceiling was before. With `--before=DIR`,
 * the streamer of another tree (main's, say) runs too, its live-run.ts bundled from DIR: before and after
 * in one run. Peak RSS is /usr/bin/time's, where it is installed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMariadb } from '../test/support/mariadb.js';
import { natsAvailable, startNats } from '../test/support/nats.js';
import { bundle, insertsOf, TRANSACTION_ROWS } from './live.js';
import type { LiveResult } from './live-run.js';

/** The table (43): the live section's without DOUBLE. */
const COLUMNS = 'id INT PRIMARY KEY, n BIGINT, s VARCHAR(64), t DATETIME(6), m DECIMAL(20,6)';
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * One live-run process; its peak RSS and CPU seconds (user and system) from /usr/bin/time (the last line of
 * its stderr) when there is one. The CPU seconds compare trees on a loaded machine, where wall times do not.
 */
function run(script: string, args: string[]): Promise<LiveResult> {
  const argv = TIME ? [TIME, '-f', '%M %U %S', process.execPath, script, ...args] : [process.execPath, script, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: path.join(import.meta.dirname, '..'),
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`live-run ${args[0]} exited with ${code}: ${err}`));
      const result = JSON.parse(out) as LiveResult;
      if (TIME) {
        const [kb, user, sys] = err.trim().split('\n').pop()!.split(' ').map(Number);
        Object.assign(result, { rssPeak: kb! * 1024, cpuSecs: user! + sys! });
      }
      resolve(result);
    });
  });
}

/** `script`'s run of `args` into a nats-server of its own, stopped after. */
async function intoFreshNats(script: string, args: (url: string) => string[]): Promise<LiveResult> {
  const nats = await startNats();
  try {
    return await run(script, args(nats.url));
  } finally {
    await nats.stop();
  }
}

/** The section's lines: each streamer's rows/s and peak RSS, the ceiling, and the ratios. */
export async function streamNatsBench(
  rows: number,
  runs: number,
  before: string | undefined,
  log: (s: string) => void,
): Promise<string[]> {
  if (!natsAvailable) return ['stream-nats: not measured (nats-server not installed)'];
  const after = await bundle();
  const old = before === undefined ? undefined : await bundle(before, 'live-run-before.mjs');
  const server = await startMariadb();
  try {
    log(`stream-nats: writing ${rows} rows`);
    await server.sql(`CREATE DATABASE live; CREATE TABLE live.t (${COLUMNS});`);
    const batches = Math.ceil(rows / TRANSACTION_ROWS);
    const sql = insertsOf(batches, false);
    await server.sql(sql, 'live');
    const total = batches * TRANSACTION_ROWS;
    const results: { name: string; r: LiveResult }[] = [];
    // They take turns, run after run, so that a change in the machine's load falls on all of them.
    for (let i = 0; i < runs; i++) {
      log(`stream-nats: binlog stream run ${i + 1}`);
      const stream = await intoFreshNats(after, (url) => ['jetstream', server.socket, String(total), url]);
      results.push({ name: 'after', r: stream });
      const bytes = String(Math.round(stream.messageBytes ?? 0));
      for (const way of ['sink', 'client']) {
        log(`stream-nats: ceiling (${way}'s header and answers) run ${i + 1}`);
        const ceiling = await intoFreshNats(after, (url) => ['nats-ceiling', '-', String(total), url, bytes, way]);
        results.push({ name: `ceiling-${way}`, r: ceiling });
      }
      if (old === undefined) continue;
      log(`stream-nats: before (${before}) run ${i + 1}`);
      results.push({
        name: 'before',
        r: await intoFreshNats(old, (url) => ['jetstream', server.socket, String(total), url]),
      });
    }
    return report(results, total, before);
  } finally {
    await server.stop();
  }
}

/** The middle of `xs` once sorted (the upper middle of an even count). */
function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
}

function report(results: { name: string; r: LiveResult }[], total: number, before: string | undefined): string[] {
  const of = (name: string) => results.filter((x) => x.name === name).map((x) => x.r);
  const secs = (name: string) => median(of(name).map((r) => r.secs));
  const rate = (name: string) => total / secs(name);
  const rss = (name: string) => Math.max(...of(name).map((r) => r.rssPeak)) / 1e6;
  const all = (name: string) =>
    of(name).every((r) => r.rows === total)
      ? 'every message acknowledged'
      : `NOT every message: ${of(name)
          .map((r) => r.rows)
          .join(', ')} of ${total}`;
  const cpu = (name: string) => median(of(name).map((r) => r.cpuSecs ?? NaN));
  const rateText = (name: string) => Math.round(rate(name)).toLocaleString('en-US').padStart(9);
  // A tree from before this figure was kept has none.
  const first = (name: string) => {
    const at = median(of(name).map((r) => r.firstSecs ?? NaN));
    return Number.isNaN(at) ? 'not kept' : `${at.toFixed(3)} s`;
  };
  const line = (name: string, label: string) =>
    `  ${label.padEnd(44)} ${secs(name).toFixed(3)} s ${rateText(name)} msgs/s  peak RSS ${rss(name).toFixed(1)} MB` +
    `  CPU ${cpu(name).toFixed(2)} s  first publish ${first(name)}  (${all(name)})`;
  const bytes = Math.round(of('after')[0]?.messageBytes ?? 0);
  const lines = [
    `stream-nats: ${total} rows (${COLUMNS}), ${TRANSACTION_ROWS} a transaction, from a MariaDB server's unix ` +
      `socket into a fresh nats-server -js each run; median of ${of('after').length}`,
    line('ceiling-sink', `NATS client alone (${bytes}-byte bodies, 1000 waiting)`),
    line('ceiling-client', "  the same with the client's headers() and JSON"),
    line('after', 'binlog stream (this tree)'),
  ];
  if (before !== undefined) lines.push(line('before', `binlog stream (${before})`));
  // The ceiling that makes headers and reads answers as the sink does is the one the stream could reach.
  const ratio = rate('after') / rate('ceiling-sink');
  lines.push(
    `  binlog stream / ceiling: ${ratio.toFixed(2)}   target ≥ 0.7: ${ratio >= 0.7 ? 'yes' : 'NO'};` +
      `  peak RSS < 150 MB: ${rss('after') < 150 ? 'yes' : 'NO'};` +
      `  / the client's-way ceiling: ${(rate('after') / rate('ceiling-client')).toFixed(2)}`,
  );
  if (before !== undefined) {
    const [faster, lighter] = [rate('after') / rate('before'), cpu('before') / cpu('after')];
    lines.push(
      `  before / ceiling: ${(rate('before') / rate('ceiling-sink')).toFixed(2)};  this tree / before: ` +
        `${faster.toFixed(2)}× in rows/s, ${lighter.toFixed(2)}× in CPU`,
    );
  }
  return lines;
}
