/**
 * `binlog dump -R --snapshot` against a real MariaDB: the tables' rows as of one point, in the dump's
 * values (the same JSON a row event of the same row gives), then the binlog from exactly that point, so
 * that with a writer committing throughout, every row is in the snapshot or in a change after it, never
 * in both and never in neither. And the bad situations: missing privileges (held through roles or not), a
 * connection lost amid the snapshot (with and without --reconnect), a table dropped amid it, and tables
 * altered or dropped by another session just as it begins.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { runBinlog, startBinlog } from './support/cli.js';
import { startCutProxy } from './support/cut-proxy.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Line = {
  type: string;
  table?: string;
  rows?: { after?: Record<string, unknown>; before?: Record<string, unknown> }[];
  file?: string;
  pos?: number;
  gtid?: string;
  tables?: unknown;
};
const parse = (out: string): Line[] =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/**
 * The CLI started, then stopped (SIGSTOP) once its first snapshot rows are out, so that its snapshot's
 * transaction stays open, and with it the tables' metadata locks, until it is let go on (SIGCONT).
 */
async function stoppedAmidRows(args: string[]) {
  const dump = startBinlog(args);
  let out = '';
  dump.child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const deadline = Date.now() + 60_000;
  while (!out.includes('"SNAPSHOT_ROWS"') && Date.now() < deadline) await sleep(5);
  dump.child.kill('SIGSTOP');
  return { ...dump, out: () => out };
}

describeWithServer('binlog dump -R --snapshot', () => {
  let server: MariadbServer;
  const connect = () => ['--socket', server.socket, '--user', 'root'];

  beforeAll(async () => {
    server = await startMariadb({ rowMetadata: 'FULL' });
    await server.sql(
      `
      CREATE DATABASE app;
      CREATE TABLE app.kinds (id INT PRIMARY KEY, f FLOAT, d DOUBLE, n DECIMAL(10,2), ts TIMESTAMP(3) NULL,
        dt DATETIME, tm TIME(2), txt VARCHAR(20) CHARACTER SET latin1, bin VARBINARY(8), fixed BINARY(4),
        e ENUM('x','y'), s SET('a','b','c'), b BIT(5), u BIGINT UNSIGNED, y YEAR, doc TEXT);
      INSERT INTO app.kinds VALUES
        (1, 1.1, -0.5, 12.50, '2020-02-29 12:00:00.125', '1999-12-31 23:59:59', '-838:59:59.00', 'café', x'00ff',
         x'61', 'y', 'a,c', b'10101', 18446744073709551615, 2024, 'line\\nnext'),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL);
      CREATE TABLE app.comp (a INT, b VARCHAR(10), v INT, PRIMARY KEY (a, b));
      CREATE TABLE app.bare (v INT, w VARCHAR(5));
      CREATE TABLE other.skip (id INT PRIMARY KEY);
    `.replace('CREATE TABLE other.skip', 'CREATE DATABASE other; CREATE TABLE other.skip'),
    );
    const comp = Array.from({ length: 25 }, (_, i) => `(${i % 5}, 'k${Math.floor(i / 5)}', ${i})`).join(',');
    const bare = Array.from({ length: 7 }, (_, i) => `(${i}, 'w${i}')`).join(',');
    await server.sql(`INSERT INTO app.comp VALUES ${comp}; INSERT INTO app.bare VALUES ${bare};`);
    await server.sql('INSERT INTO other.skip VALUES (1)');
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    'sql -R --snapshot counts the tables it read as named: no "no event read names" and exit 5 after it',
    async () => {
      // No event after the snapshot's point names app, yet the snapshot wrote its tables.
      const r = await runBinlog(['sql', '-R', ...connect(), '--snapshot', '--database=app', '--no-create-info']);
      expect([r.status, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(/INSERT INTO `app`\.`comp`/);
    },
    TIMEOUT,
  );

  it(
    'writes each row in the values a row event of it has, pages of --snapshot-chunk, the selected tables only',
    async () => {
      const r = await runBinlog(['dump', '-R', ...connect(), '--snapshot', '--snapshot-chunk=4', '--database=app']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const lines = parse(r.stdout);
      const [start] = lines;
      expect(start!.type).toBe('SNAPSHOT_START');
      expect(start!.tables).toEqual(['app.bare', 'app.comp', 'app.kinds']);
      const [status] = await server.query('SHOW MASTER STATUS');
      expect([start!.file, String(start!.pos)]).toEqual([status![0], status![1]]);
      const rowsOf = (t: string) =>
        lines.filter((l) => l.type === 'SNAPSHOT_ROWS' && l.table === t).flatMap((l) => l.rows!.map((x) => x.after));
      // Pages of at most 4: the composite key's 25 rows in 7 pages, in key order.
      const compPages = lines.filter((l) => l.table === 'app.comp');
      expect(compPages.map((l) => l.rows!.length)).toEqual([4, 4, 4, 4, 4, 4, 1]);
      const comp = rowsOf('app.comp');
      const sorted = [...comp].sort((x, y) => Number(x!.a) - Number(y!.a) || String(x!.b).localeCompare(String(y!.b)));
      expect(comp).toEqual(sorted);
      expect(new Set(comp.map((x) => x!.v)).size).toBe(25);
      expect(rowsOf('app.bare').map((x) => x!.w)).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6']);
      expect(lines.some((l) => l.table === 'other.skip')).toBe(false);
      const kinds = rowsOf('app.kinds');
      // Written out by hand from the INSERT above, in docs/json-format.md's forms.
      expect(kinds[0]).toEqual({
        id: 1,
        f: 1.1,
        d: -0.5,
        n: '12.50',
        ts: '2020-02-29 12:00:00.125',
        dt: '1999-12-31 23:59:59',
        tm: '-838:59:59.00',
        txt: 'café',
        bin: { hex: '00ff' },
        fixed: { hex: '61000000' },
        e: 'y',
        s: ['a', 'c'],
        b: 21,
        u: '18446744073709551615',
        y: 2024,
        doc: 'line\nnext',
      });
      expect(kinds[1]).toMatchObject({ id: 2, f: null, s: [], e: null, u: null });
      const end = lines.find((l) => l.type === 'SNAPSHOT_END') as Line & { rows: number };
      expect(end.rows).toBe(25 + 7 + 2);
      // The binlog follows from the point: its FORMAT_DESCRIPTION first (the server's own), no row before.
      const after = lines.slice(lines.indexOf(end) + 1);
      expect(after.some((l) => l.type === 'FORMAT_DESCRIPTION_EVENT')).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "gives each row as the binlog's own row event of it gives it",
    async () => {
      // The same rows inserted again into a copy: the binlog's WRITE_ROWS are read by the row decoder.
      await server.sql('CREATE TABLE app.kinds2 LIKE app.kinds; INSERT INTO app.kinds2 SELECT * FROM app.kinds;');
      const snap = await runBinlog(['dump', '-R', ...connect(), '--snapshot', '--table=app.kinds2']);
      expect(snap.status).toBe(0);
      const snapRows = parse(snap.stdout)
        .filter((l) => l.type === 'SNAPSHOT_ROWS')
        .flatMap((l) => l.rows!);
      const files = await server.binlogFiles();
      const dump = await runBinlog(['dump', '--table=app.kinds2', ...files]);
      const eventRows = parse(dump.stdout)
        .filter((l) => l.type === 'WRITE_ROWS_EVENT_V1')
        .flatMap((l) => l.rows!);
      expect(eventRows).toHaveLength(2);
      expect(snapRows).toEqual(eventRows);
    },
    TIMEOUT,
  );

  it(
    'hands off at the exact point: with a writer committing throughout, each row once, in the snapshot or after',
    async () => {
      await server.sql('CREATE TABLE app.w (id INT PRIMARY KEY, v INT)');
      const first = Array.from({ length: 2000 }, (_, i) => `(${i + 1}, 0)`).join(',');
      await server.sql(`INSERT INTO app.w VALUES ${first}`);
      const dump = startBinlog([
        'dump',
        '-R',
        ...connect(),
        '--snapshot',
        '--snapshot-chunk=50',
        '--table=app.w',
        '--stop-never',
      ]);
      let out = '';
      dump.child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
      // Small transactions while the snapshot pages go by: inserts, updates of rows both read and not yet.
      const WRITES = 200;
      for (let i = 0; i < WRITES; i++) {
        await server.sql(
          `INSERT INTO app.w VALUES (${2001 + i}, 0); UPDATE app.w SET v = v + 1 WHERE id = ${((i * 37) % 2000) + 1};`,
        );
      }
      await server.sql('INSERT INTO app.w VALUES (999999, -1)');
      const deadline = Date.now() + 60_000;
      while (!out.includes('"id":999999') && Date.now() < deadline) await sleep(50);
      dump.child.kill('SIGTERM');
      await dump.done;
      const lines = parse(out.slice(0, out.lastIndexOf('\n') + 1));
      const state = new Map<number, number>();
      let end = false;
      for (const l of lines) {
        if (l.type === 'SNAPSHOT_END') end = true;
        if (l.type === 'SNAPSHOT_ROWS')
          for (const r of l.rows!) {
            expect(state.has(r.after!.id as number)).toBe(false);
            state.set(r.after!.id as number, r.after!.v as number);
          }
        if (end && l.type === 'WRITE_ROWS_EVENT_V1')
          for (const r of l.rows!) {
            // An insert after the point is of a row the snapshot does not hold: nothing twice.
            expect(state.has(r.after!.id as number)).toBe(false);
            state.set(r.after!.id as number, r.after!.v as number);
          }
        if (end && l.type === 'UPDATE_ROWS_EVENT_V1')
          for (const r of l.rows!) {
            // An update after the point starts from the row as the snapshot (or a change after it) left it.
            expect(state.get(r.before!.id as number)).toBe(r.before!.v);
            state.set(r.after!.id as number, r.after!.v as number);
          }
      }
      const rows = await server.query('SELECT id, v FROM app.w ORDER BY id');
      expect([...state.entries()].sort((a, b) => a[0] - b[0])).toEqual(rows.map(([id, v]) => [Number(id), Number(v)]));
    },
    TIMEOUT,
  );

  it(
    'says why it cannot: missing privileges, a table the user cannot see, options that do not go with it',
    async () => {
      const user = "CREATE USER 'weak'@'localhost'; GRANT SELECT ON app.comp TO 'weak'@'localhost';";
      await server.sql(user);
      const weak = (table: string) =>
        runBinlog(['dump', '-R', '--socket', server.socket, '--user', 'weak', '--snapshot', `--table=${table}`]);
      const noReplication = await weak('app.comp');
      expect(noReplication.status).toBe(6);
      expect(noReplication.stderr).toContain('the user lacks REPLICATION SLAVE');
      expect(noReplication.stdout).toBe('');
      await server.sql("GRANT REPLICATION SLAVE ON *.* TO 'weak'@'localhost'");
      const noSelect = await weak('app.kinds');
      expect(noSelect.status).toBe(6);
      expect(noSelect.stderr).toContain('--table=app.kinds: no such table, or none the user may SELECT from');
      const usage = await runBinlog(['dump', '-R', ...connect(), '--snapshot', 'binlog.000001']);
      expect(usage.status).toBe(2);
      expect(usage.stderr).toContain('--snapshot starts the binlog where the snapshot stands');
    },
    TIMEOUT,
  );

  it(
    'counts the privileges of the default role and the roles granted to it, not those of a role not enabled',
    async () => {
      await server.sql(
        `CREATE ROLE snap_select; GRANT SELECT ON app.* TO snap_select;
        CREATE ROLE snap_repl; GRANT REPLICATION SLAVE ON *.* TO snap_repl;
        CREATE ROLE snap_all; GRANT snap_select TO snap_all; GRANT snap_repl TO snap_all;
        CREATE USER 'viarole'@'localhost'; GRANT snap_all TO 'viarole'@'localhost';
        SET DEFAULT ROLE snap_all FOR 'viarole'@'localhost';
        CREATE USER 'notenabled'@'localhost'; GRANT snap_select TO 'notenabled'@'localhost';
        GRANT snap_repl TO 'notenabled'@'localhost'; SET DEFAULT ROLE snap_select FOR 'notenabled'@'localhost';`,
      );
      const as = (user: string) =>
        runBinlog(['dump', '-R', '--socket', server.socket, '--user', user, '--snapshot', '--table=app.comp']);
      const viaRole = await as('viarole');
      expect([viaRole.status, viaRole.stderr]).toEqual([0, '']);
      const lines = parse(viaRole.stdout);
      const end = lines.findIndex((l) => l.type === 'SNAPSHOT_END');
      expect(lines[end]).toMatchObject({ type: 'SNAPSHOT_END', rows: 25 });
      // The binlog after the snapshot was read too, over a connection the same default role holds.
      expect(lines.slice(end + 1).map((l) => l.type)).toContain('FORMAT_DESCRIPTION_EVENT');
      // A role granted but not enabled gives the session nothing: REPLICATION SLAVE is missing.
      const notEnabled = await as('notenabled');
      expect(notEnabled.status).toBe(6);
      expect(notEnabled.stderr).toContain('the user lacks REPLICATION SLAVE');
      expect(notEnabled.stdout).toBe('');
    },
    TIMEOUT,
  );

  it(
    'a connection lost amid the snapshot: a sentence and exit 6, or under --reconnect the snapshot again, whole',
    async () => {
      await server.sql('CREATE DATABASE lost');
      // seq_1_to_N, MariaDB's sequence engine, is a table of the default database.
      await server.sql(
        'CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(20));' +
          "INSERT INTO big SELECT seq, CONCAT('v', seq) FROM seq_1_to_20000",
        'lost',
      );
      // The dump stopped after its first page, its snapshot connection killed by the server, then let go on.
      const killedAmid = async (options: string[]) => {
        const dump = await stoppedAmidRows(['dump', '-R', ...connect(), '--snapshot', '--database=lost', ...options]);
        const ids = await server.query(
          "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'root' AND ID <> CONNECTION_ID()",
        );
        expect(ids.length).toBe(1);
        await server.sql(`KILL CONNECTION ${ids[0]![0]}`);
        dump.child.kill('SIGCONT');
        return { ...(await dump.done), lines: () => parse(dump.out()) };
      };
      const ended = await killedAmid(['--snapshot-chunk=50']);
      expect(ended.status).toBe(6);
      // The server's KILL is met as a closed socket, or as its error when that came first: a sentence either way.
      expect(ended.stderr).toMatch(/^binlog: the server: (the server closed the connection|Connection was killed)\n$/);
      expect(ended.lines().some((l) => l.type === 'SNAPSHOT_END')).toBe(false);

      const again = await killedAmid(['--snapshot-chunk=50', '--reconnect']);
      expect([again.status, again.stderr]).toEqual([0, '']);
      const lines = again.lines();
      const starts = lines.flatMap((l, i) => (l.type === 'SNAPSHOT_START' ? [i] : []));
      expect(starts.length).toBe(2);
      // The lines after the second start are the whole snapshot: each row once, as the table holds it.
      const rows = lines
        .slice(starts[1])
        .filter((l) => l.type === 'SNAPSHOT_ROWS')
        .flatMap((l) => l.rows!.map((r) => r.after!));
      expect(rows.length).toBe(20_000);
      expect(rows.every((r, i) => r.id === i + 1 && r.v === `v${i + 1}`)).toBe(true);
      expect(lines.find((l) => l.type === 'SNAPSHOT_END')).toMatchObject({ rows: 20_000 });
    },
    TIMEOUT,
  );

  it(
    'a table dropped by another session amid the snapshot: the DROP waits for it, then comes after its point',
    async () => {
      const args = ['dump', '-R', ...connect(), '--snapshot', '--database=lost', '--snapshot-chunk=50', '--stop-never'];
      const dump = await stoppedAmidRows(args);
      let dropped = false;
      // In the database --database selects: it selects statements by their default database.
      const drop = server.sql('DROP TABLE big', 'lost').then(() => (dropped = true));
      await sleep(300);
      expect(dropped).toBe(false);
      dump.child.kill('SIGCONT');
      await drop;
      const deadline = Date.now() + 60_000;
      while (!dump.out().includes('DROP TABLE') && Date.now() < deadline) await sleep(20);
      dump.child.kill('SIGTERM');
      const r = await dump.done;
      expect(r.stderr).toBe('');
      const lines = parse(r.stdout);
      const end = lines.findIndex((l) => l.type === 'SNAPSHOT_END');
      expect(lines[end]).toMatchObject({ rows: 20_000 });
      const queries = lines.filter((l) => l.type === 'QUERY_EVENT' && JSON.stringify(l).includes('DROP TABLE'));
      expect(queries.length).toBe(1);
      expect(lines.indexOf(queries[0]!)).toBeGreaterThan(end);
    },
    TIMEOUT,
  );

  it(
    'a table altered or dropped as the snapshot begins: it begins again after the DDL, and says so when it never ends',
    async () => {
      await server.sql('CREATE DATABASE race');
      await server.sql(
        'CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(8));' +
          "INSERT INTO a SELECT seq, CONCAT('a', seq) FROM seq_1_to_30;" +
          'CREATE TABLE b (id INT PRIMARY KEY); INSERT INTO b VALUES (1);',
        'race',
      );
      const proxy = await startCutProxy(server.socket, join(dirname(server.socket), 'hold.sock'));
      try {
        // Another session's DDL, one a time, just as the snapshot's transaction starts: after its definitions
        // were read and before its reads take the tables' metadata locks.
        const ddl: string[] = [];
        proxy.holdAt('START TRANSACTION WITH CONSISTENT SNAPSHOT', async () => {
          const next = ddl.shift();
          if (next) await server.sql(next, 'race');
        });
        const dump = () =>
          runBinlog(['dump', '-R', '--socket', proxy.socket, '--user', 'root', '--snapshot', '--database=race']);
        ddl.push('ALTER TABLE a ADD COLUMN w INT NOT NULL DEFAULT 5', 'DROP TABLE b');
        const r = await dump();
        expect([r.status, r.stderr, ddl]).toEqual([0, '', []]);
        const lines = parse(r.stdout);
        const starts = lines.filter((l) => l.type === 'SNAPSHOT_START');
        expect(starts.map((l) => l.tables)).toEqual([['race.a']]);
        // The point is after both DDLs, the last events of the binlog, and the rows have the new shape.
        const [status] = await server.query('SHOW MASTER STATUS');
        expect([starts[0]!.file, String(starts[0]!.pos)]).toEqual([status![0], status![1]]);
        const rows = lines.filter((l) => l.type === 'SNAPSHOT_ROWS').flatMap((l) => l.rows!.map((x) => x.after!));
        expect([rows.length, rows.every((x) => x.w === 5)]).toEqual([30, true]);

        ddl.push(...[1, 2, 3, 4, 5].map((n) => `ALTER TABLE a MODIFY v VARCHAR(${8 + n})`));
        const changing = await dump();
        expect(changing.status).toBe(6);
        expect(changing.stderr).toContain(
          'the tables kept changing while the snapshot began (race.a was altered), 5 times',
        );
        expect([changing.stdout, ddl]).toEqual(['', []]);
      } finally {
        await proxy.close();
      }
    },
    TIMEOUT,
  );
});
