/**
 * `binlog dump -R` against a real MariaDB server: its JSON lines are those of `binlog dump` on the
 * server's own files, and `--raw` writes those files byte for byte.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { startCutProxy } from './support/cut-proxy.js';
import { runBinlog, startBinlog } from './support/cli.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { joinedRegExp } from './support/regex.js';

const TIMEOUT = 120_000;

const binlog = (args: string[], env: NodeJS.ProcessEnv = {}) => runBinlog(args, { env });
const running = (args: string[]) => startBinlog(args);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `ready` holds (the test's timeout bounds the wait). */
async function until(ready: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ready())) await sleep(50);
}

type Line = { file?: string; pos: number; type: string; header: { flags: number }; notInFile?: string };
const parse = (out: string): Line[] =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describeWithServer('binlog dump --read-from-remote-server', () => {
  let server: MariadbServer;
  let files: string[];
  let work: string;
  const connect = () => ['--socket', server.socket, '--user', 'root'];

  beforeAll(async () => {
    // Small binlogs: the workload spans several, rotated as the server fills them.
    server = await startMariadb({ extraArgs: ['--max-binlog-size=4096'] });
    await server.sql(`
      CREATE DATABASE app;
      CREATE TABLE app.t (id INT PRIMARY KEY, amount DECIMAL(12,3), at TIMESTAMP(6) NULL, tag ENUM('x','y'), \
body MEDIUMTEXT, raw VARBINARY(16), f DOUBLE);
      BEGIN;
      INSERT INTO app.t VALUES (1, 12.5, '2020-02-29 12:00:00.123456', 'x', REPEAT('é', 1500), x'0102', 1.5e300);
      INSERT INTO app.t VALUES (2, -0.001, NULL, NULL, NULL, NULL, NULL);
      COMMIT;
      UPDATE app.t SET body = REPEAT('z', 2500) WHERE id = 2;
      CREATE TABLE app.u (k VARCHAR(10) PRIMARY KEY) DEFAULT CHARSET latin1;
      INSERT INTO app.u VALUES ('a'), ('b');
      DELETE FROM app.t WHERE id = 1;
    `);
    // And the last file stable: its own Binlog_checkpoint written.
    await server.flushLogs();
    files = await server.binlogFiles();
    expect(files.length).toBeGreaterThanOrEqual(3);
    work = mkdtempSync(join(tmpdir(), 'binlog-remote-'));
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, TIMEOUT);

  /** `binlog dump` of the server's files: what the file dump says they hold. */
  async function fileLines(which: string[]): Promise<Line[]> {
    const r = await binlog(['dump', ...which]);
    expect(r.stderr).toBe('');
    const lines = parse(r.stdout);
    // The file the server has open carries LOG_EVENT_BINLOG_IN_USE_F in its FORMAT_DESCRIPTION until
    // it is closed; the server sends the event as the closed file holds it.
    const open = basename(files.at(-1)!);
    for (const l of lines)
      if (l.file === open && l.type === 'FORMAT_DESCRIPTION_EVENT')
        l.header.flags &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
    return lines;
  }

  it(
    'reads LOGNAME to its end, the same lines as the file dump, and marks what is not in the file',
    async () => {
      const r = await binlog(['dump', '-R', ...connect(), basename(files[0]!)]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const lines = parse(r.stdout);
      expect(lines.filter((l) => l.notInFile).map((l) => [l.type, l.notInFile])).toEqual([
        ['ROTATE_EVENT', 'artificial'],
      ]);
      expect(lines.filter((l) => !l.notInFile)).toEqual(await fileLines([files[0]!]));
      expect(lines.at(-1)!.type).toBe('ROTATE_EVENT');
    },
    TIMEOUT,
  );

  it(
    '--to-last-log goes through every binlog',
    async () => {
      const r = await binlog(['dump', '--read-from-remote-server', ...connect(), '--to-last-log', basename(files[0]!)]);
      expect(r.status).toBe(0);
      const lines = parse(r.stdout);
      expect(lines.filter((l) => !l.notInFile)).toEqual(await fileLines(files));
      expect(lines.some((l) => l.type === 'UPDATE_ROWS_EVENT_V1')).toBe(true);
    },
    TIMEOUT,
  );

  it(
    '--start-position starts the dump there',
    async () => {
      const all = await fileLines([files[0]!]);
      const from = all.find((l) => l.type === 'GTID_EVENT')!.pos;
      const r = await binlog(['dump', '-R', ...connect(), `--start-position=${from}`, basename(files[0]!)]);
      expect(r.status).toBe(0);
      const lines = parse(r.stdout);
      // The ROTATE that names the file, and the FORMAT_DESCRIPTION resent with log_pos 0, before the events from there.
      expect(lines.filter((l) => l.notInFile).map((l) => l.type)).toEqual(['ROTATE_EVENT', 'FORMAT_DESCRIPTION_EVENT']);
      expect(lines.filter((l) => !l.notInFile)).toEqual(all.filter((l) => l.pos >= from));
    },
    TIMEOUT,
  );

  it(
    'binlog sql -R writes the server\u2019s binlog as binlog sql writes its files, --primary-key-only too',
    async () => {
      for (const extra of [[], ['--primary-key-only']]) {
        const fromFiles = await binlog(['sql', ...extra, ...files]);
        expect([fromFiles.status, fromFiles.stderr]).toEqual([0, '']);
        const live = await binlog(['sql', '-R', ...connect(), '--to-last-log', ...extra, basename(files[0]!)]);
        expect([live.status, live.stderr]).toEqual([0, '']);
        expect(live.stdout).toBe(fromFiles.stdout);
      }
      const live = await binlog(['sql', '-R', ...connect(), '--to-last-log', basename(files[0]!)]);
      expect(live.stdout).toContain('DELETE FROM `app`.`t` WHERE `id`=1 AND');
      expect(live.stdout).toContain("INSERT INTO `app`.`u` (`k`) VALUES (_latin1'a')");
    },
    TIMEOUT,
  );

  it(
    'binlog sql needs a FILE, or -R and LOGNAME',
    async () => {
      const r = await binlog(['sql', '-R', ...connect()]);
      expect([r.status, r.stderr]).toEqual([
        2,
        'binlog: --read-from-remote-server needs LOGNAME, the binlog file to read ' +
          "(or --start-gtid)\nRun 'binlog --help' for usage.\n",
      ]);
    },
    TIMEOUT,
  );

  it(
    '--raw --result-file writes the server\u2019s files byte for byte',
    async () => {
      const prefix = join(work, 'copy-');
      const r = await binlog([
        'dump',
        '-R',
        ...connect(),
        '--to-last-log',
        '--raw',
        `--result-file=${prefix}`,
        basename(files[0]!),
      ]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      for (const f of files) {
        const original = readFileSync(f);
        // As above: the server still has the last file open, so its in-use flag is cleared to compare.
        if (f === files.at(-1)) original[4 + EventHeaderOffsets.flags] &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
        expect(readFileSync(prefix + basename(f)).equals(original), basename(f)).toBe(true);
      }
      // Every file whole, the last one as far as the server had written it: none left .partial.
      expect(readdirSync(work).filter((f) => f.endsWith('.partial'))).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    '--raw, the connection cut in the middle of an event: exit 6, the file left as .partial with the whole events ' +
      'before the cut',
    async () => {
      await server.flushLogs();
      const [[name]] = (await server.query('SHOW MASTER STATUS')) as [[string]];
      await server.sql(`INSERT INTO app.t (id, body) VALUES (9, REPEAT('b', 2000000))`);
      await server.flushLogs();
      const rows = (await fileLines([join(server.datadir, name)])).find((l) => l.type === 'WRITE_ROWS_EVENT_V1')!;
      const proxy = await startCutProxy(server.socket, join(work, 'cut.sock'));
      proxy.cutAfter(1_000_000); // inside the 2 MB event: what comes before it is a few KB
      const prefix = join(work, 'cut-');
      const r = await binlog([
        'dump',
        '-R',
        '--socket',
        proxy.socket,
        '--user',
        'root',
        '--raw',
        `--result-file=${prefix}`,
        name,
      ]);
      await proxy.close();
      expect(r.stderr).toBe(`binlog: ${name}: the server closed the connection\n`);
      expect(r.status).toBe(6);
      expect(existsSync(prefix + name)).toBe(false);
      const partial = readFileSync(prefix + name + '.partial');
      expect(partial.equals(readFileSync(join(server.datadir, name)).subarray(0, rows.pos))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    '--raw --stop-never --reconnect: its dump thread KILLed twice, the archive goes on, ' +
      'the server\u2019s files byte for byte',
    async () => {
      await server.flushLogs();
      const [[first]] = (await server.query('SHOW MASTER STATUS')) as [[string]];
      const prefix = join(work, 'again-');
      const size = (name: string) =>
        [prefix + name, prefix + name + '.partial']
          .map((p) => (existsSync(p) ? statSync(p).size : 0))
          .reduce((a, b) => a + b);
      /** The archive holds all the server has written. */
      const caughtUp = async () => {
        const [[name, position]] = (await server.query('SHOW MASTER STATUS')) as [[string, string]];
        return size(name) === Number(position);
      };
      const dumpThread = async () =>
        (await server.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'"))[0]?.[0];
      const archiver = running([
        'dump',
        '-R',
        ...connect(),
        '--raw',
        `--result-file=${prefix}`,
        '--stop-never',
        '--reconnect',
        '--retry-delay=0.1',
        '--heartbeat-period=1',
        first,
      ]);
      await server.sql(
        `CREATE TABLE app.r (id INT PRIMARY KEY, v VARCHAR(2000)); INSERT INTO app.r SELECT seq, REPEAT('a', 2000) ` +
          `FROM seq_1_to_10;`,
        'app',
      );
      await until(caughtUp);
      const killed = [await dumpThread()];
      await server.sql(`KILL ${killed[0]}`); // waiting at the end of the log
      // A transaction far larger than the socket's queue, and the thread KILLed while it comes (or soon after).
      const large = server.sql(`INSERT INTO app.r SELECT 100 + seq, REPEAT('b', 2000) FROM seq_1_to_3000;`, 'app');
      await until(async () => ![undefined, ...killed].includes(await dumpThread()));
      killed.push(await dumpThread());
      await server.sql(`KILL ${killed[1]}`);
      await large;
      await server.sql(`DELETE FROM app.r WHERE id < 50;`);
      await server.flushLogs();
      await until(caughtUp);
      expect(archiver.child.exitCode).toBe(null); // still archiving, over a third connection
      expect(killed).not.toContain(await dumpThread());
      archiver.child.kill('SIGTERM');
      const r = await archiver.done;
      expect(r.stderr).toBe('');
      const mine = (await server.binlogFiles()).filter((f) => basename(f) >= first);
      expect(mine.length).toBeGreaterThanOrEqual(3);
      for (const f of mine) {
        const original = readFileSync(f);
        const last = f === mine.at(-1);
        // The file the server still writes: .partial, its FORMAT_DESCRIPTION as the closed file will hold it.
        if (last) original[4 + EventHeaderOffsets.flags] &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
        expect(readFileSync(prefix + basename(f) + (last ? '.partial' : '')).equals(original), basename(f)).toBe(true);
      }
    },
    TIMEOUT,
  );

  it(
    'a wrong password (given, or in MYSQL_PWD) and an unknown file: exit 6 with the server\u2019s words',
    async () => {
      await server.sql(
        `CREATE USER cdc@localhost IDENTIFIED BY 'secret'; GRANT REPLICATION SLAVE ON *.* TO cdc@localhost;`,
      );
      const base = ['dump', '-R', '--socket', server.socket, '--user', 'cdc'];
      const wrong = await binlog([...base, '--password=nope', 'binlog.000001']);
      expect(wrong.status).toBe(6);
      expect(wrong.stderr).toMatch(
        joinedRegExp(
          /^binlog: binlog\.000001: the server says: Access denied for user 'cdc'@'localhost' /,
          /\(using password: YES\) \(error 1045, SQL state 28000\)\n$/,
        ),
      );
      const fromEnv = await binlog([...base, 'binlog.000001'], { MYSQL_PWD: 'nope' });
      expect(fromEnv.status).toBe(6);
      expect(fromEnv.stderr).toMatch(/Access denied for user 'cdc'@'localhost' \(using password: YES\)/);
      const right = await binlog([...base, 'binlog.000001'], { MYSQL_PWD: 'secret' });
      expect(right.status).toBe(0);
      const unknown = await binlog([...base, '--password=secret', 'binlog.000099']);
      expect(unknown.status).toBe(6);
      expect(unknown.stderr).toMatch(
        joinedRegExp(
          /the server says: .*Could not find first log file name in binary log index file /,
          /\(error 1236, SQL state HY000\)/,
        ),
      );
    },
    TIMEOUT,
  );

  it(
    'an account without REPLICATION SLAVE: exit 6, saying what was refused',
    async () => {
      await server.sql(`CREATE USER reader@localhost; GRANT SELECT ON *.* TO reader@localhost;`);
      const refused = await binlog(['dump', '-R', '--socket', server.socket, '--user', 'reader', basename(files[0]!)]);
      expect(refused.status).toBe(6);
      expect(refused.stderr).toBe(
        `binlog: ${basename(files[0]!)}: registering as a replica (COM_REGISTER_SLAVE, ` +
          `which needs the REPLICATION SLAVE privilege): the server says: ` +
          `Access denied for user 'reader'@'localhost' (using password: NO) (error 1045, SQL state 28000)\n`,
      );
    },
    TIMEOUT,
  );

  it(
    '--reconnect tries again as told, then gives up: exit 6, saying the attempts and the last error',
    async () => {
      const missing = join(work, 'no-server.sock');
      const r = await binlog([
        'dump',
        '-R',
        '--socket',
        missing,
        '--user',
        'root',
        '--reconnect',
        '--retry-count=2',
        '--retry-delay=0.05',
        'binlog.000001',
      ]);
      expect(r.status).toBe(6);
      expect(r.stderr).toMatch(
        new RegExp(
          `^binlog: binlog\\.000001: gave up reconnecting after 2 attempts in \\d+\\.\\d s: ` +
            `cannot connect to socket ${missing.replace(/[.]/g, '\\.')}: `,
        ),
      );
      const usage = await binlog(['dump', '-R', '--socket', missing, '--retry-count=2', 'binlog.000001']);
      expect(usage.status).toBe(2);
      expect(usage.stderr).toMatch(/--retry-count is for --reconnect/);
    },
    TIMEOUT,
  );
});
