/**
 * Throwaway real MariaDB servers for tests: each in its own temp dir, unix socket only
 * (--skip-networking, so any number can run at once), binary log on. Absent binaries, suites
 * written with describeWithServer() skip loudly; under CI=true their absence is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWhen } from './requires.js';

export interface MariadbBinaries {
  mariadbd: string;
  installDb: string;
  client: string;
  binlogTool: string;
  dumpTool: string;
}

export interface StartOptions {
  binlogFormat?: 'ROW' | 'STATEMENT' | 'MIXED';
  rowMetadata?: 'FULL' | 'MINIMAL' | 'NO_LOG';
  checksum?: 'CRC32' | 'NONE';
  /** Server options appended last, so they override the defaults. */
  extraArgs?: string[];
}

export interface MariadbServer {
  socket: string;
  datadir: string;
  /** The server process's id (a new one after restart). */
  readonly pid: number;
  /** Runs SQL (any number of statements) as root; resolves with the client's stdout. */
  sql(sql: string, db?: string): Promise<string>;
  /** Rows of fields, NULL as null (and so is the string 'NULL': the client prints both alike). */
  query(sql: string, db?: string): Promise<(string | null)[][]>;
  /** FLUSH BINARY LOGS, then waits for the new file's own Binlog_checkpoint event. */
  flushLogs(): Promise<void>;
  /** `mariadb-dump --no-data` of the databases (`--databases` with more than one), as a schema file. */
  dumpSchema(...databases: string[]): Promise<string>;
  /** Absolute paths of the binlog files, oldest first, from binlog.index. */
  binlogFiles(): Promise<string[]>;
  /** Stops the server cleanly and starts it again on the same datadir and socket; resolves once it answers. */
  restart(): Promise<void>;
  /** SIGTERM, SIGKILL after a timeout; removes the temp dir unless KEEP_MARIADB=1. */
  stop(): Promise<void>;
  /** Stops the server (which ends its last binlog with a STOP event), then returns every binlog's bytes. */
  stopAndReadBinlogs(): Promise<{ path: string; bytes: Buffer }[]>;
}

const NAMES: Record<keyof MariadbBinaries, string> = {
  mariadbd: 'mariadbd',
  installDb: 'mariadb-install-db',
  client: 'mariadb',
  binlogTool: 'mariadb-binlog',
  dumpTool: 'mariadb-dump',
};

let found: MariadbBinaries | null | undefined;
let missing: string[] = [];

/** Finds the binaries on PATH, /usr/sbin and /usr/bin; null if any is missing (all are needed). */
export function findMariadb(): MariadbBinaries | null {
  if (found !== undefined) return found;
  const dirs = [...new Set([...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin'])].filter(Boolean);
  const isExecutable = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  const result: Partial<MariadbBinaries> = {};
  missing = [];
  for (const [key, name] of Object.entries(NAMES) as [keyof MariadbBinaries, string][]) {
    const p = dirs.map((d) => path.join(d, name)).find(isExecutable);
    if (p) result[key] = p;
    else missing.push(name);
  }
  found = missing.length ? null : (result as MariadbBinaries);
  return found;
}

export const serverAvailable: boolean = findMariadb() !== null;

/** describe() for suites that need a real server: skips loudly without one, and fails instead under CI. */
export function describeWithServer(name: string, fn: () => void): void {
  describeWhen(
    serverAvailable,
    name,
    () => `MariaDB server not found (missing ${missing.join(', ')}; install mariadb-server mariadb-client)`,
    fn,
  );
}

// Small InnoDB files and no start/stop extras: these servers hold a few rows and die young.
// innodb_flush_log_at_trx_commit stays 1: with 0 or 2, Binlog_checkpoint events lag by ~1 s.
const INNODB_ARGS = [
  '--innodb-buffer-pool-size=16M',
  '--innodb-log-file-size=8M',
  '--innodb-doublewrite=0',
  '--innodb-buffer-pool-load-at-startup=0',
  '--innodb-buffer-pool-dump-at-shutdown=0',
  '--skip-name-resolve',
];
// mariadbd refuses to run as root unless told to; as anyone else it just runs as that user.
const USER_ARGS = process.getuid?.() === 0 ? ['--user=root'] : [];
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const CHECKPOINT_TIMEOUT_MS = 10_000;

interface Process {
  child: ChildProcess;
  pid: number | undefined;
  exitInfo: string | undefined;
  exited: Promise<void>;
}

interface Live {
  pid: number;
  watchdog: ChildProcess;
  root: string;
}
const live = new Set<Live>();
const keep = () => process.env.KEEP_MARIADB === '1';

// Normal exits, process.exit() included; signals, crashes and SIGKILL are left to the watchdogs.
process.on('exit', () => {
  for (const s of live) {
    killGroup(s.pid, 'SIGKILL');
    s.watchdog.kill('SIGKILL');
    if (!keep()) fs.rmSync(s.root, { recursive: true, force: true });
  }
  if (template) {
    template.watchdog.kill('SIGKILL');
    fs.rmSync(template.root, { recursive: true, force: true });
  }
});

/**
 * A detached shell that waits for EOF on its stdin, which comes when this process ends in any
 * way, SIGKILL included; then it kills the server's process group and removes the directory.
 * Its own process group, so Ctrl-C does not end it first. (/bin/sh may be dash, whose kill
 * rejects "--".)
 */
export function spawnWatchdog(pid: number | undefined, dir: string | undefined): ChildProcess {
  const script = `
    read _
    [ -z "$1" ] || kill -KILL "-$1" 2>/dev/null
    [ -z "$2" ] || rm -rf -- "$2" 2>/dev/null || { sleep 1; rm -rf -- "$2"; }`;
  const wd = spawn('/bin/sh', ['-c', script, 'mariadb-watchdog', String(pid ?? ''), dir ?? ''], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  wd.unref();
  // A child's piped stdin is a socket, which unref lets the process exit past.
  if (wd.stdin instanceof Socket) wd.stdin.unref();
  return wd;
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

// mariadb-install-db takes ~0.6 s, copying its result ~0.1 s: run it once per process.
let template: { root: string; watchdog: ChildProcess } | undefined;
let templateDatadir: Promise<string> | undefined;
function systemTables(bin: MariadbBinaries): Promise<string> {
  templateDatadir ??= (async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binlog-codec-mariadb-template-'));
    template = { root, watchdog: spawnWatchdog(undefined, root) };
    const datadir = path.join(root, 'data');
    const args = [
      '--no-defaults', // must come first
      `--datadir=${datadir}`,
      `--tmpdir=${root}`, // servers starting at once must not share /tmp's temporary tables
      ...USER_ARGS,
      '--auth-root-authentication-method=normal', // root@localhost without a password
      '--skip-test-db',
      ...INNODB_ARGS, // the same as the server's, or it resizes the redo log at each start
    ];
    const r = await run(bin.installDb, args);
    if (r.code !== 0) {
      templateDatadir = undefined;
      throw new Error(`mariadb-install-db failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    }
    return datadir;
  })();
  return templateDatadir;
}

/** Starts a fresh server with the binary log on; resolves once it answers a query. */
export async function startMariadb(opts: StartOptions = {}): Promise<MariadbServer> {
  const bin = findMariadb();
  if (!bin) throw new Error(`MariaDB not found (missing ${missing.join(', ')}); install mariadb-server mariadb-client`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binlog-codec-mariadb-'));
  const datadir = path.join(root, 'data');
  const socket = path.join(root, 'mysql.sock');
  const errorLog = path.join(root, 'error.log');
  const outLog = path.join(root, 'mariadbd.out');
  try {
    if (Buffer.byteLength(socket) > 100) throw new Error(`unix socket path too long: ${socket}; set a shorter TMPDIR`);
    fs.cpSync(await systemTables(bin), datadir, { recursive: true }); // faster than fs.promises.cp
  } catch (e) {
    fs.rmSync(root, { recursive: true, force: true });
    throw e;
  }

  const args = [
    '--no-defaults', // must come first; nothing from /etc/mysql leaks in
    `--datadir=${datadir}`,
    `--socket=${socket}`,
    `--tmpdir=${root}`,
    '--skip-networking',
    ...USER_ARGS,
    `--pid-file=${path.join(root, 'mariadbd.pid')}`,
    `--log-error=${errorLog}`,
    `--log-bin=${path.join(datadir, 'binlog')}`,
    '--server-id=1',
    `--binlog-format=${opts.binlogFormat ?? 'ROW'}`,
    `--binlog-row-metadata=${opts.rowMetadata ?? 'FULL'}`,
    `--binlog-checksum=${opts.checksum ?? 'CRC32'}`,
    ...INNODB_ARGS,
    ...(opts.extraArgs ?? []),
  ];
  // Bad options are reported before the error log opens, so keep stdout and stderr as well.
  const launch = (): Process => {
    const out = fs.openSync(outLog, 'a');
    const child = spawn(bin.mariadbd, args, { detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const p: Process = { child, pid: child.pid, exitInfo: undefined, exited: Promise.resolve() };
    p.exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        p.exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
        resolve();
      });
      child.on('error', (e) => {
        p.exitInfo = `spawn error: ${e.message}`;
        resolve();
      });
    });
    child.unref();
    return p;
  };
  let proc = launch();
  if (proc.pid === undefined) {
    await proc.exited;
    fs.rmSync(root, { recursive: true, force: true });
    throw new Error(`could not start ${bin.mariadbd}: ${proc.exitInfo}`);
  }
  const entry: Live = { pid: proc.pid, watchdog: spawnWatchdog(proc.pid, keep() ? undefined : root), root };
  live.add(entry);

  const logTail = () =>
    [outLog, errorLog]
      .flatMap((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trimEnd().split('\n') : []))
      .slice(-30)
      .join('\n');

  const clientArgs = (db?: string, raw = true) => [
    '--no-defaults',
    '-S',
    socket,
    '-uroot',
    '--batch',
    ...(raw ? ['--raw'] : []),
    '--skip-column-names',
    '--default-character-set=utf8mb4', // our SQL reaches the client as UTF-8
    ...(db ? [`--database=${db}`] : []),
  ];

  /** SIGTERM (a clean shutdown, which closes the binlog properly), SIGKILL after a timeout, and the group after it. */
  const shutdown = async (): Promise<void> => {
    if (proc.exitInfo === undefined) {
      proc.child.kill('SIGTERM');
      if (!(await within(proc.exited, STOP_TIMEOUT_MS))) {
        killGroup(entry.pid, 'SIGKILL');
        await within(proc.exited, 5_000);
      }
    }
    killGroup(entry.pid, 'SIGKILL'); // anything the server left in its group
  };

  const stop = async (beforeRemove?: () => Promise<void>): Promise<void> => {
    if (!live.has(entry)) return;
    await shutdown();
    entry.watchdog.kill('SIGKILL');
    live.delete(entry);
    await beforeRemove?.();
    if (keep()) process.stderr.write(`KEEP_MARIADB=1: server files kept in ${root}\n`);
    else fs.rmSync(root, { recursive: true, force: true });
  };

  // The socket file appears a little before the server accepts connections on it.
  const accepting = async (): Promise<void> => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let clientError = 'no socket yet';
    for (;;) {
      if (proc.exitInfo !== undefined) {
        const tail = logTail();
        await stop();
        throw new Error(`mariadbd exited during start-up (${proc.exitInfo}). Log tail:\n${tail}`);
      }
      if (fs.existsSync(socket)) {
        const r = await run(bin.client, [...clientArgs(), '-e', 'select 1']);
        if (r.code === 0) return;
        clientError = r.stderr.trim();
      }
      if (Date.now() > deadline) {
        const tail = logTail();
        await stop();
        throw new Error(
          `mariadbd did not accept connections within ${START_TIMEOUT_MS / 1000} s (${clientError}). Log ` +
            `tail:\n${tail}`,
        );
      }
      await sleep(20);
    }
  };
  await accepting();

  /** The server stopped cleanly, then started again on its datadir and socket; the watchdog follows the new pid. */
  const restart = async (): Promise<void> => {
    await shutdown();
    proc = launch();
    if (proc.pid === undefined) throw new Error(`could not start ${bin.mariadbd} again: ${proc.exitInfo}`);
    entry.watchdog.kill('SIGKILL');
    entry.pid = proc.pid;
    entry.watchdog = spawnWatchdog(proc.pid, keep() ? undefined : root);
    await accepting();
  };

  const client = async (text: string, db: string | undefined, raw: boolean): Promise<string> => {
    const r = await run(bin.client, clientArgs(db, raw), text);
    if (r.code !== 0) throw new Error(`SQL failed (exit ${r.code}): ${r.stderr.trim()}\nSQL: ${text.slice(0, 500)}`);
    return r.stdout;
  };
  const sql = (text: string, db?: string) => client(text, db, true);

  // Without --raw the client escapes tabs, newlines, backslashes and NULs in values, so
  // multi-line values (e.g. a CREATE TABLE in SHOW BINLOG EVENTS) stay in their field.
  const UNESCAPE: Record<string, string> = { t: '\t', n: '\n', '0': '\0' };
  const query = async (text: string, db?: string): Promise<(string | null)[][]> => {
    const out = await client(text, db, false);
    if (out === '') return [];
    return out
      .replace(/\n$/, '')
      .split('\n')
      .map((line) =>
        line.split('\t').map((v) => (v === 'NULL' ? null : v.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c))),
      );
  };

  // The server writes the new file's own Binlog_checkpoint asynchronously; without the wait it
  // would land at a timing-dependent place among the next events. InnoDB confirms it on a 1 s
  // timer, or at once after a commit that InnoDB itself flushes: hence a non-binlogged
  // insert + delete on an InnoDB system table, no net change.
  const flushLogs = async (): Promise<void> => {
    await sql(`FLUSH BINARY LOGS;
      SET sql_log_bin = 0;
      BEGIN;
      INSERT INTO mysql.gtid_slave_pos VALUES (4294967295, 18446744073709551615, 0, 0);
      DELETE FROM mysql.gtid_slave_pos WHERE domain_id = 4294967295;
      COMMIT;`);
    const file = (await query('SHOW MASTER STATUS'))[0]?.[0];
    if (!file) throw new Error('SHOW MASTER STATUS returned nothing: is the binary log on?');
    const until = Date.now() + CHECKPOINT_TIMEOUT_MS;
    for (;;) {
      const events = await query(`SHOW BINLOG EVENTS IN '${file}'`);
      if (events.some((e) => e[2] === 'Binlog_checkpoint' && e[5] === file)) return;
      if (Date.now() > until)
        throw new Error(`no Binlog_checkpoint in ${file} after ${CHECKPOINT_TIMEOUT_MS / 1000} s`);
      await sleep(10);
    }
  };

  const dumpSchema = async (...databases: string[]): Promise<string> => {
    const which = databases.length > 1 ? ['--databases', ...databases] : databases;
    const r = await run(bin.dumpTool, ['--no-defaults', '-S', socket, '-uroot', '--no-data', ...which]);
    if (r.code !== 0) throw new Error(`mariadb-dump failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  };

  const binlogFiles = async (): Promise<string[]> => {
    const index = await fs.promises.readFile(path.join(datadir, 'binlog.index'), 'utf8');
    return index
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .map((l) => path.resolve(datadir, l));
  };

  const stopAndReadBinlogs = async (): Promise<{ path: string; bytes: Buffer }[]> => {
    const out: { path: string; bytes: Buffer }[] = [];
    await stop(async () => {
      for (const file of await binlogFiles()) out.push({ path: file, bytes: await fs.promises.readFile(file) });
    });
    return out;
  };

  return {
    socket,
    datadir,
    get pid() {
      return entry.pid;
    },
    sql,
    query,
    flushLogs,
    dumpSchema,
    binlogFiles,
    restart,
    stop: () => stop(),
    stopAndReadBinlogs,
  };
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input = ''): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // EPIPE when the client dies early; its stderr says why
    child.stdin.end(input);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether p settles within ms. */
async function within(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `mariadb-binlog --no-defaults [args.dump] FILE | mariadb --no-defaults -S socket -uroot [args.client]`,
 * mariadb-binlog in `args.env` (its --start-datetime and --stop-datetime are in its local time: TZ).
 */
export function replay(
  binlogTool: string,
  client: string,
  file: string,
  socket: string,
  args: { dump?: string[]; client?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<{ dump: number | null; client: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const dump = spawn(binlogTool, ['--no-defaults', ...(args.dump ?? []), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: args.env ?? process.env,
    });
    const cl = spawn(client, ['--no-defaults', '-S', socket, '-uroot', ...(args.client ?? [])], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    dump.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    cl.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    cl.stdout.resume();
    dump.stdout.pipe(cl.stdin);
    cl.stdin.on('error', () => {}); // EPIPE if the client dies; its stderr says why
    let dumpCode: number | null | undefined;
    dump.on('error', reject);
    cl.on('error', reject);
    dump.on('close', (code) => (dumpCode = code));
    cl.on('close', (code) => {
      const done = () => resolve({ dump: dumpCode ?? null, client: code, stderr });
      if (dumpCode !== undefined) done();
      else dump.on('close', done);
    });
  });
}
