/**
 * `binlog stream --snapshot` from a real MariaDB into a real nats-server's JetStream: the tables' rows as
 * op "r" records, then the changes from the snapshot's point, while a writer commits small transactions
 * throughout; the reader is SIGKILLed during the snapshot (its restart takes the snapshot again) and after
 * it (its restart goes on from the checkpoint). The last snapshot's records and the changes after them,
 * applied, are the server's tables: each row once, each change once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Checkpoint } from '../protocol/checkpoint.js';
import { startMariadb, type MariadbServer } from './support/mariadb.js';
import { describeWithNats, readAll, startNats, type NatsServer, type Received } from './support/nats.js';
import { debug } from './support/requires.js';

const TIMEOUT = 300_000;
const root = join(import.meta.dirname, '..');
/** Rows of the keyed table; the composite-key and keyless tables have fewer. */
const ROWS = 30_000;
/** The writer's transactions at most, so that its loop is bounded whatever the reader does. */
const WRITES = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for `ready`, failing after `seconds`. */
async function until(ready: () => boolean | Promise<boolean>, what: string, seconds = 120): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`waited ${seconds} s for ${what}`);
    await sleep(50);
  }
}

/** A row's key as the test keys its tables: the key columns' values, the row's place for the keyless table. */
const keyOf = (table: string, row: Record<string, unknown>, place: number) =>
  table === 'c' ? `${String(row.a)}/${String(row.b)}` : table === 'none' ? String(place) : String(row.id);

/**
 * The tables as a consumer makes them from the last snapshot's records and the changes after them: a read
 * record or an insert of a row already there, an update or delete of one not there, is an error.
 */
function applied(messages: Received[]): Map<string, Map<string, Record<string, unknown>>> {
  const reads = messages.filter((m) => (m.body.op as string) === 'r');
  const last = reads.at(-1)!.body.source;
  const from = messages.findIndex((m) => m.body.source.file === last.file && m.body.source.pos === last.pos);
  const tables = new Map<string, Map<string, Record<string, unknown>>>();
  for (const { body } of messages.slice(from)) {
    const name = body.source.table!;
    const t = tables.get(name) ?? tables.set(name, new Map()).get(name)!;
    if (body.before) {
      if (!t.delete(keyOf(name, body.before, body.source.row)))
        throw new Error(`${body.op} of a row of ${name} not there`);
    }
    if (body.after) {
      const key = keyOf(name, body.after, body.source.row);
      if (body.op !== 'u' && t.has(key)) throw new Error(`${body.op} of row ${key} of ${name} twice`);
      t.set(key, body.after);
    }
  }
  return tables;
}

/** A table's rows as sorted lines of their values. */
function lines(rows: Iterable<unknown[]>): string[] {
  return [...rows].map((r) => r.map(String).join('\t')).sort();
}

describeWithNats('binlog stream --snapshot into NATS JetStream', () => {
  let server: MariadbServer;
  let nats: NatsServer;

  beforeAll(async () => {
    [server, nats] = await Promise.all([startMariadb(), startNats()]);
    await server.sql('CREATE DATABASE s');
    await server.sql(
      `      CREATE TABLE s.k (id INT PRIMARY KEY, v VARCHAR(64), n INT);
      CREATE TABLE s.c (a INT, b VARCHAR(8), n INT, PRIMARY KEY (a, b));
      CREATE TABLE s.none (x INT, y VARCHAR(16));
      INSERT INTO s.k SELECT seq, CONCAT('k', seq), seq % 7 FROM seq_1_to_${ROWS};
      INSERT INTO s.c SELECT seq DIV 3, CONCAT('b', seq % 3), seq FROM seq_1_to_6000;
      INSERT INTO s.none SELECT seq % 100, CONCAT('y', seq) FROM seq_1_to_3000;`,
      's',
    );
  }, TIMEOUT);

  afterAll(async () => {
    await Promise.all([server?.stop(), nats?.stop()]);
  }, TIMEOUT);

  it(
    'the rows, then the changes from the snapshot point, exactly once through SIGKILLs during and after the snapshot',
    async () => {
      let stats: Record<string, unknown> = {};
      let stderr = '';
      let reader: ChildProcess | undefined;
      let exited: Promise<number | null> = Promise.resolve(null);
      const checkpoint = () => stats.checkpoint as Checkpoint | undefined;
      const startReader = () => {
        stats = {};
        stderr = '';
        const args = ['stream', '-R', '--socket', server.socket, '--user', 'root', `--to=${nats.url}`, '--snapshot'];
        args.push('--database=s', '--snapshot-chunk=500', '--in-flight=100', '--stats=0.05', '--heartbeat-period=1');
        const child = (reader = spawn(process.execPath, [join(root, 'bin', 'binlog'), ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }));
        child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          for (const l of d.split('\n').filter(Boolean)) stats = JSON.parse(l) as Record<string, unknown>;
        });
        exited = new Promise((resolve) => child.on('close', resolve));
      };
      const kill = async () => {
        reader!.kill('SIGKILL');
        await exited;
      };
      // The writer: small transactions on the keyed and composite-key tables, until told to stop.
      let writing = true;
      let writes = 0;
      const writer = (async () => {
        for (; writing && writes < WRITES; writes++) {
          const id = ROWS + writes + 1;
          await server.sql(
            `BEGIN; INSERT INTO s.k VALUES (${id}, 'new', 0); \
UPDATE s.k SET n = n + 1 WHERE id = ${((writes * 13) % ROWS) + 1};
             DELETE FROM s.k WHERE id = ${((writes * 29) % ROWS) + 1}; UPDATE s.c SET n = -n WHERE a = ${writes % 2000};
             COMMIT;`,
            's',
          );
          await sleep(5);
        }
      })();

      startReader();
      await until(() => Number(stats.published ?? 0) >= 2_000, 'the first rows published');
      expect(checkpoint()?.snapshotDone).toBe(false);
      await kill();
      startReader();
      await until(() => stderr.includes('\n'), "the restart's first line");
      expect(stderr).toMatch(/^binlog: the snapshot did not finish: taking it again\n/);
      await until(() => checkpoint()?.snapshotDone === true, 'the snapshot acknowledged');
      const snapshotStats = { ...stats };
      await sleep(300); // some changes after the snapshot, then a kill after it
      await kill();
      startReader();
      await until(() => stderr.includes('\n'), "the third start's first line");
      expect(stderr).toMatch(/^binlog: resuming from the checkpoint /);
      await sleep(300);
      writing = false;
      await writer;
      const [[end]] = (await server.query('SELECT @@gtid_binlog_pos')) as [[string]];
      await until(() => checkpoint()?.gtid === end && stats.inFlight === 0, 'the last change acknowledged');
      reader!.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(checkpoint()?.snapshotDone).toBe(true);

      const messages = await readAll(nats.url, 'binlog');
      expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
      const reads = messages.filter((m) => (m.body.op as string) === 'r');
      const read = reads.find((m) => m.body.source.table === 'k')!;
      expect([read.body.before, Object.keys(read.body.source)]).toEqual([
        null,
        ['snapshot', 'file', 'pos', 'gtid', 'db', 'table', 'row'],
      ]);
      const { file, pos } = read.body.source;
      expect(read.id).toBe(`snapshot/${file}:${pos}/s.k/[${String(read.body.after!.id)}]`);
      // The changes come after the last snapshot's rows, none of them before it.
      const lastRead = messages.lastIndexOf(reads.at(-1)!);
      expect(messages.slice(lastRead + 1).every((m) => m.body.op !== ('r' as string))).toBe(true);
      const lastPoint = reads.at(-1)!.body.source;
      const lastReads = reads.filter(
        (m) => m.body.source.file === lastPoint.file && m.body.source.pos === lastPoint.pos,
      );
      expect([snapshotStats.snapshotRows, snapshotStats.snapshotting]).toEqual([lastReads.length, false]);
      const tables = applied(messages);
      const server3 = async (sql: string) => lines(await server.query(sql));
      expect(lines([...tables.get('k')!.values()].map((r) => [r.id, r.v, r.n]))).toEqual(
        await server3('SELECT id, v, n FROM s.k'),
      );
      expect(lines([...tables.get('c')!.values()].map((r) => [r.a, r.b, r.n]))).toEqual(
        await server3('SELECT a, b, n FROM s.c'),
      );
      expect(lines([...tables.get('none')!.values()].map((r) => [r.x, r.y]))).toEqual(
        await server3('SELECT x, y FROM s.none'),
      );
      debug(
        `stream --snapshot: ${messages.length} messages, ${reads.length} read records, ${writes} writer transactions`,
      );
    },
    TIMEOUT,
  );
});
