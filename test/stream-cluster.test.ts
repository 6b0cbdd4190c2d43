/**
 * `binlog stream` into a 3-node JetStream cluster on loopback (three nats-server processes joined by
 * routes), the stream and the checkpoint bucket with 3 replicas: every row change arrives exactly once,
 * in commit order per subject, while the stream's leader node is SIGKILLed and started again during the
 * stream, and while the reader is SIGKILLed and started again. And the subjects of --partitions: each
 * key's changes in order on one subject, a table's spread over several.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Checkpoint } from '../protocol/checkpoint.js';
import { startMariadb, type MariadbServer } from './support/mariadb.js';
import { describeWithNats, readAll, startNatsCluster, type NatsCluster } from './support/nats.js';

const TIMEOUT = 300_000;
const root = join(import.meta.dirname, '..');
const ROUNDS = 30;
/** Rows a round inserts into `a` in one transaction; it then updates half of them and inserts one into `b`. */
const B = 200;
const PER_ROUND = B + B / 2 + 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `ready`, at most `ms`: every wait of the test is bounded in time and in tries. */
async function until(what: string, ready: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (let tries = 0; !(await ready()); tries++) {
    if (Date.now() > deadline || tries > ms / 20) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await sleep(50);
  }
}

const round = (r: number) => `BEGIN;
  INSERT INTO w.a SELECT ${r * B} + seq, CONCAT('a', seq), 0 FROM seq_1_to_${B};
  UPDATE w.a SET n = n + 1 WHERE id BETWEEN ${r * B + 1} AND ${r * B + B / 2};
  INSERT INTO w.b VALUES (${r}, 'b', ${r});
  COMMIT;`;

/** The node leading `stream`'s replicas and how many it has, asked of any node that answers. */
async function leaderOf(urls: string[], stream: string): Promise<{ leader: string; replicas: number } | undefined> {
  const nc = await connect({ servers: urls.map((u) => u.replace('nats://', '')), timeout: 2000 });
  try {
    const info = await (await jetstreamManager(nc, { timeout: 2000 })).streams.info(stream);
    return info.cluster?.leader ? { leader: info.cluster.leader, replicas: info.config.num_replicas } : undefined;
  } catch {
    return undefined;
  } finally {
    await nc.close();
  }
}

/** A `binlog stream` process and the JSON lines of its --stats. */
class Reader {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  stats: Record<string, unknown>[] = [];
  stderr = '';
  crashed: string | undefined;

  constructor(private readonly args: string[]) {}

  start(extra: string[] = []): void {
    const child = (this.child = spawn(
      process.execPath,
      [join(root, 'bin', 'binlog'), 'stream', ...this.args, ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      if (process.env.STREAM_DEBUG) process.stderr.write(d);
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) =>
      d
        .split('\n')
        .filter(Boolean)
        .forEach((l) => this.stats.push(JSON.parse(l) as Record<string, unknown>)),
    );
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => {
        if (signal !== 'SIGKILL' && code !== 0) this.crashed = `exit ${code}: ${this.stderr}`;
        resolve(code);
      }),
    );
  }

  checkpoint(): Checkpoint | undefined {
    if (this.crashed !== undefined) throw new Error(`binlog stream ended by itself: ${this.crashed}`);
    return this.stats.at(-1)?.checkpoint as Checkpoint | undefined;
  }

  async stop(signal: NodeJS.Signals): Promise<number | null> {
    this.child!.kill(signal);
    return this.exited;
  }
}

describeWithNats('binlog stream into a 3-node JetStream cluster', () => {
  let server: MariadbServer;
  let cluster: NatsCluster;

  beforeAll(async () => {
    [server, cluster] = await Promise.all([startMariadb(), startNatsCluster(3)]);
    await server.sql(
      'CREATE DATABASE w; CREATE TABLE w.a (id INT PRIMARY KEY, v VARCHAR(64), n INT); CREATE TABLE w.b ' +
        '(id INT PRIMARY KEY, v VARCHAR(64), n INT);',
    );
  }, TIMEOUT);

  afterAll(async () => {
    await Promise.all([server?.stop(), cluster?.stop()]);
  }, TIMEOUT);

  const gtidSeq = (c: Checkpoint | undefined) => Number(c?.gtid.split('-')[2] ?? 0);

  it(
    'keeps every row change once and in order per subject while the leader node and the reader are SIGKILLed',
    async () => {
      const [[startGtid]] = (await server.query('SELECT @@gtid_binlog_pos')) as [[string]];
      const to = `--to=${cluster.urls.join(',')}`;
      const reader = new Reader([
        '-R',
        '--socket',
        server.socket,
        '--user',
        'root',
        to,
        '--replicas=3',
        '--ack-timeout=2',
        '--stats=0.2',
        '--reconnect',
        '--heartbeat-period=1',
      ]);
      reader.start([`--start-gtid=${startGtid}`]);
      const first = gtidSeq({ gtid: startGtid } as Checkpoint);
      let killed: { leader: string; replicas: number } | undefined;
      for (let r = 0; r < ROUNDS; r++) {
        await server.sql(round(r), 'w');
        // The writer keeps about two rounds ahead of what is acknowledged, so that the kills fall mid-stream.
        await until(`round ${r - 2} acknowledged`, () => gtidSeq(reader.checkpoint()) >= first + r - 2);
        if (r === 8) {
          // The stream's leader dies with messages in flight; it is started again a moment later.
          await until(
            'a leader of the stream',
            async () => (killed = await leaderOf(cluster.urls, 'binlog')) !== undefined,
          );
          const i = cluster.names.indexOf(killed!.leader);
          await cluster.kill(i);
          await server.sql(round(++r), 'w');
          await sleep(1500);
          await cluster.start(i);
        }
        if (r === 18) {
          await reader.stop('SIGKILL');
          await server.sql(round(++r), 'w');
          reader.start(); // from the checkpoint
        }
      }
      const [[end]] = (await server.query('SELECT @@gtid_binlog_pos')) as [[string]];
      await until('the last transaction acknowledged', () => reader.checkpoint()?.gtid === end, 120_000);
      expect(await reader.stop('SIGTERM')).toBe(0);

      const messages = await readAll(cluster.urls, 'binlog');
      expect(killed?.replicas).toBe(3);
      // Each change once: the workload's count, each id once.
      expect(messages.length).toBe(ROUNDS * PER_ROUND);
      expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
      // Commit order per subject: GTID sequence numbers never go back, and within a transaction the ids count up.
      const last = new Map<string, [number, number]>();
      for (const m of messages) {
        const seq = Number(m.body.source.gtid!.split('-')[2]);
        const n = Number(m.id.split('/')[2]);
        const [lastSeq, lastN] = last.get(m.subject) ?? [0, -1];
        expect(seq > lastSeq || (seq === lastSeq && n > lastN), `${m.subject} ${m.id} after ${lastSeq}/${lastN}`).toBe(
          true,
        );
        last.set(m.subject, [seq, n]);
      }
      expect(reader.stderr).toMatch(/the broker was lost/);
    },
    TIMEOUT,
  );

  it(
    '--partitions spreads a table over PREFIX.<db>.<table>.<P> by primary key, each key on one subject in commit order',
    async () => {
      await server.sql('CREATE TABLE w.p (id INT PRIMARY KEY, n INT)', 'w');
      const [[startGtid]] = (await server.query('SELECT @@gtid_binlog_pos')) as [[string]];
      const keys = 40;
      await server.sql(`INSERT INTO w.p SELECT seq, 0 FROM seq_1_to_${keys}`, 'w');
      // Each key updated three times, in transactions that touch every key, then half of them deleted.
      for (let k = 1; k <= 3; k++) await server.sql(`UPDATE w.p SET n = ${k}`, 'w');
      await server.sql(`DELETE FROM w.p WHERE id % 2 = 0`, 'w');
      const [[end]] = (await server.query('SELECT @@gtid_binlog_pos')) as [[string]];
      const args = [
        '-R',
        '--socket',
        server.socket,
        '--user',
        'root',
        `--to=${cluster.urls.join(',')}`,
        '--stream=parts',
        '--subject-prefix=parts',
      ];
      const reader = new Reader([...args, '--partitions=4', '--stats=0.2', '--replicas=3']);
      reader.start([`--start-gtid=${startGtid}`]);
      await until('the workload acknowledged', () => reader.checkpoint()?.gtid === end, 120_000);
      expect(await reader.stop('SIGTERM')).toBe(0);

      const messages = await readAll(cluster.urls, 'parts');
      expect(messages.length).toBe(keys * 4 + keys / 2);
      const subjectOf = new Map<number, string>();
      const history = new Map<number, string[]>();
      for (const m of messages) {
        const id = Number((m.body.after ?? m.body.before)!.id);
        expect(m.subject).toMatch(/^parts\.w\.p\.[0-3]$/);
        // One subject per key, whatever the operation.
        expect(m.subject, `key ${id}`).toBe(subjectOf.get(id) ?? m.subject);
        subjectOf.set(id, m.subject);
        history.set(id, [...(history.get(id) ?? []), `${m.body.op}${m.body.after?.n ?? ''}`]);
      }
      // The table is spread: more than one partition holds keys.
      expect(new Set(subjectOf.values()).size).toBeGreaterThan(1);
      // Per key, the commit order: inserted, updated to 1, 2, 3, then (even keys) deleted.
      for (const [id, ops] of history)
        expect(ops, `key ${id}`).toEqual(['c0', 'u1', 'u2', 'u3', ...(id % 2 === 0 ? ['d'] : [])]);
    },
    TIMEOUT,
  );
});
