/**
 * The filters against a real MariaDB server's binlog: `binlog dump FILTERS | binlog encode`, replayed with
 * `mariadb-binlog | mariadb` into fresh databases, gives the same tables as mariadb-binlog's own filtered
 * output replayed the same way, where the two agree on what a filter means (the time window; a table's
 * rows; a database's rows and the statements run in it). What is kept is whole transactions. One server
 * for the whole file; times are set with SET TIMESTAMP.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { Transactions } from '../runtime/io/transactions.js';
import { describeWithServer, findMariadb, replay, startMariadb, type MariadbServer } from './support/mariadb.js';

const T = 2_000_000_000;
const utc = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
const ROOT = join(import.meta.dirname, '..');
const TABLES = ['d1.t', 'd1.u', 'd1.m', 'd2.t'];

// In one session: transactions a second apart, one whose GTID (at its commit) is a second after its rows,
// XA, a MyISAM table, statement-based changes in d2, and one whose rows come a second after its GTID.
const WORKLOAD =
  `
  SET TIMESTAMP=${T}; INSERT INTO d1.t VALUES (1, 'a');
  SET TIMESTAMP=${T + 1}; BEGIN; INSERT INTO d1.t VALUES (2, 'b'); INSERT INTO d2.t VALUES (1, 'x');
  SET TIMESTAMP=${T + 2}; COMMIT;
  BEGIN; INSERT INTO d1.u VALUES (1, 'u'); UPDATE d1.t SET v = 'b2' WHERE id = 2; DELETE FROM d2.t WHERE id = 1; COMMIT;
  SET TIMESTAMP=${T + 3}; XA START 'x1'; INSERT INTO d1.t VALUES (3, 'xa'); XA END 'x1'; XA PREPARE 'x1';
  SET TIMESTAMP=${T + 4}; XA COMMIT 'x1';
  XA START 'x2'; INSERT INTO d2.t VALUES (5, 'gone'); XA END 'x2'; XA PREPARE 'x2'; XA ROLLBACK 'x2';
  INSERT INTO d1.m VALUES (1, 'myisam');
  SET TIMESTAMP=${T + 5}; SET SESSION binlog_format = 'STATEMENT'; ` +
  `USE d2; INSERT INTO t VALUES (10, 'statement'); USE d1;
  SET SESSION binlog_format = 'ROW';
  SET TIMESTAMP=${T + 6}; BEGIN; INSERT INTO d1.t VALUES (4, 'straddles'); SET TIMESTAMP=${T + 5}; COMMIT;
  SET TIMESTAMP=${T + 7}; INSERT INTO d1.t VALUES (5, 'late'); INSERT INTO d2.t VALUES (6, 'late');
`;

describeWithServer('filtered dumps replay as mariadb-binlog filters them', () => {
  const bin = findMariadb()!;
  let server: MariadbServer;
  let file: string;
  let events: BinlogEvent[];
  let tmp: string;
  let targets = 0;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-filter-replay-'));
    server = await startMariadb();
    await server.sql(
      `CREATE DATABASE d1; CREATE DATABASE d2;
      CREATE TABLE d1.t (id INT PRIMARY KEY, v VARCHAR(20)); CREATE TABLE d1.u (id INT PRIMARY KEY, v VARCHAR(20));
      CREATE TABLE d1.m (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM; ` +
        `CREATE TABLE d2.t (id INT PRIMARY KEY, v VARCHAR(20));`,
    );
    await server.flushLogs();
    await server.sql(WORKLOAD, 'd1');
    await server.flushLogs();
    file = (await server.binlogFiles())[1]!;
    events = decodeBinlog(readFileSync(file));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Fresh, empty copies of d1 and d2's tables: the names mariadb-binlog's --rewrite-db maps them to. */
  async function fresh(): Promise<{ d1: string; d2: string; rewrite: string[] }> {
    const n = ++targets;
    const [d1, d2] = [`r${n}_d1`, `r${n}_d2`];
    await server.sql(`SET sql_log_bin = 0; CREATE DATABASE ${d1}; CREATE DATABASE ${d2};
      ${TABLES.map((t) => `CREATE TABLE ${t.replace(/^d1/, d1).replace(/^d2/, d2)} LIKE ${t};`).join(' ')}`);
    return { d1, d2, rewrite: [`--rewrite-db=d1->${d1}`, `--rewrite-db=d2->${d2}`] };
  }

  /** The tables of a target, row by row. */
  async function contents(t: { d1: string; d2: string }): Promise<Record<string, (string | null)[][]>> {
    const out: Record<string, (string | null)[][]> = {};
    for (const name of TABLES)
      out[name] = await server.query(`SELECT * FROM ${name.replace(/^d1/, t.d1).replace(/^d2/, t.d2)} ORDER BY id`);
    return out;
  }

  /**
   * mariadb-binlog [the target's --rewrite-db] ARGS FILE | mariadb. `xaFrames`: mariadb-binlog keeps the
   * frame of an XA transaction of other databases, empty, which the server rolls back at XA PREPARE (it
   * changed nothing): its XA COMMIT then fails, and only that may fail.
   */
  async function applied(args: string[], t: { rewrite: string[] }, xaFrames = false): Promise<void> {
    const r = await replay(bin.binlogTool, bin.client, args.at(-1)!, server.socket, {
      dump: ['--disable-log-bin', ...t.rewrite, ...args.slice(0, -1)],
      client: xaFrames ? ['--force'] : [],
      env: { ...process.env, TZ: 'UTC' },
    });
    expect(r.dump, r.stderr).toBe(0);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('ERROR'));
    if (xaFrames) for (const e of errors) expect(e).toMatch(/^ERROR 1402 \(XA100\).*XA_RBROLLBACK/);
    else expect(r.client, r.stderr).toBe(0);
  }

  /** `binlog dump ARGS FILE | binlog encode`, replayed: the tables it gives, and the events it kept. */
  async function ours(args: string[]) {
    const out = join(tmp, `ours-${targets + 1}.bin`);
    const dump = spawnSync(process.execPath, [join(ROOT, 'bin', 'binlog'), 'dump', ...args, file], {
      maxBuffer: 1 << 28,
    });
    expect(dump.status, dump.stderr.toString()).toBe(0);
    const encode = spawnSync(process.execPath, [join(ROOT, 'bin', 'binlog'), 'encode', '-o', out], {
      input: dump.stdout,
    });
    expect(encode.status, encode.stderr.toString()).toBe(0);
    const t = await fresh();
    await applied([out], t);
    return {
      tables: await contents(t),
      kept: dump.stdout
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as BinlogEvent),
    };
  }

  /** mariadb-binlog ARGS FILE, replayed: the tables it gives. */
  async function theirs(args: string[]) {
    const t = await fresh();
    await applied(
      [...args, file],
      t,
      args.some((a) => a.startsWith('--database')),
    );
    return contents(t);
  }

  /** The transactions of the file (each its events' positions), as they begin and end. */
  function transactions(): number[][] {
    const t = new Transactions();
    const out: number[][] = [];
    for (const e of events) {
      const { begins, outside } = t.step(e);
      if (outside) continue;
      if (begins) out.push([]);
      out.at(-1)!.push(e.pos);
    }
    return out;
  }

  it('the time window: every transaction any of whose events falls in it, whole', async () => {
    const window = [`--start-datetime=${utc(T + 2)}`, `--stop-datetime=${utc(T + 6)}`];
    const mine = await ours(window);
    // mariadb-binlog stops inside the transaction whose GTID (its commit) is at T+5 and rolls it back: it
    // is in the window, and is kept whole here. The rest is what mariadb-binlog applies.
    const theirTables = (await theirs(window)) as Record<string, string[][]>;
    expect(mine.tables).toEqual({ ...theirTables, 'd1.t': [...theirTables['d1.t']!, ['4', 'straddles']] });
    // The transaction whose GTID is at T+2 and rows at T+1 is kept whole, and so is the one whose rows come
    // after the stop.
    expect(mine.tables['d1.t']).toEqual([
      ['2', 'b2'],
      ['3', 'xa'],
      ['4', 'straddles'],
    ]);
    expect(mine.tables['d2.t']).toEqual([['10', 'statement']]);
    const kept = new Set(mine.kept.map((e) => e.pos));
    for (const tx of transactions()) expect(tx.every((p) => kept.has(p)) || tx.every((p) => !kept.has(p))).toBe(true);
  }, 60_000);

  it('a table: the transactions that touch it, each with its frame and only its events', async () => {
    const mine = await ours(['--table=d1.t']);
    // mariadb-binlog's --table takes a table's name, within --database (which it compares before --rewrite-db).
    expect(mine.tables).toEqual(await theirs(['--database=d1', '--table=t']));
    expect(mine.tables['d1.u']).toEqual([]);
    expect(mine.tables['d2.t']).toEqual([]);
    const kept = new Set(mine.kept.map((e) => e.pos));
    const byPos = new Map(events.map((e) => [e.pos, e]));
    const mapsD1T = (e: BinlogEvent | undefined) =>
      e?.type === 'TABLE_MAP_EVENT' && e.schemaName === 'd1' && e.tableName === 't';
    const touches = (tx: number[]) => tx.some((p) => mapsD1T(byPos.get(p)));
    // The XA COMMIT of an XA transaction that touches it goes with it.
    const queryAt = (p: number) => {
      const e = byPos.get(p);
      return e?.type === 'QUERY_EVENT' ? String(e.query) : '';
    };
    const xaCommit = (tx: number[]) => tx.some((p) => queryAt(p).startsWith("XA COMMIT X'7831'"));
    for (const tx of transactions()) expect(tx.some((p) => kept.has(p))).toBe(touches(tx) || xaCommit(tx));
    for (const tx of transactions().filter((tx) => tx.some((p) => kept.has(p)))) {
      const [first, last] = [byPos.get(tx[0]!)!, byPos.get(tx.at(-1)!)!];
      expect(kept.has(first.pos) && first.type === 'GTID_EVENT').toBe(true);
      expect(kept.has(last.pos)).toBe(true);
      for (const p of tx.filter((p) => kept.has(p))) {
        const e = byPos.get(p) as BinlogEvent & { tableName?: string; table?: string };
        if (e.type === 'TABLE_MAP_EVENT') expect(e.tableName).toBe('t');
        if ('rows' in e) expect(e.table).toBe('d1.t');
      }
    }
  }, 60_000);

  it('a database: its rows, and the statements run in it', async () => {
    const mine = await ours(['--database=d2']);
    expect(mine.tables).toEqual(await theirs(['--database=d2']));
    expect(mine.tables['d2.t']).toEqual([
      ['6', 'late'],
      ['10', 'statement'],
    ]);
    expect(mine.tables['d1.t']).toEqual([]);
  }, 60_000);

  it('a start inside a transaction keeps it whole (mariadb-binlog begins inside it, and loses its rows)', async () => {
    // The last transaction but one begins at T+5 (its GTID, at the commit) and its rows are at T+6.
    const mine = await ours([`--start-datetime=${utc(T + 6)}`]);
    expect(mine.tables['d1.t']).toEqual([
      ['4', 'straddles'],
      ['5', 'late'],
    ]);
    expect(mine.kept[0]!.type).toBe('FORMAT_DESCRIPTION_EVENT');
    expect(mine.kept[1]!.header.timestamp).toBe(T + 5);
  }, 60_000);
});
