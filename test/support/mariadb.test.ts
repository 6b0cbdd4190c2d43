/** Self-test of the real-server harness: one server, a small workload, its binlog files, shutdown. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, findMariadb, startMariadb, type MariadbServer } from './mariadb.js';
import { debug } from './requires.js';

const TIMEOUT = 120_000;

describeWithServer('MariaDB test harness', () => {
  let server: MariadbServer;

  beforeAll(async () => {
    const t0 = performance.now();
    server = await startMariadb();
    debug(`MariaDB started in ${Math.round(performance.now() - t0)} ms`);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it('runs SQL and returns rows', async () => {
    await server.sql(`
      CREATE DATABASE harness;
      CREATE TABLE harness.t (id INT PRIMARY KEY, name VARCHAR(20));
      INSERT INTO harness.t VALUES (1, 'one'), (2, NULL);
    `);
    expect(await server.query('SELECT id, name FROM t ORDER BY id', 'harness')).toEqual([
      ['1', 'one'],
      ['2', null],
    ]);
    expect(await server.query('SELECT @@log_bin, @@binlog_format, @@binlog_row_metadata, @@binlog_checksum')).toEqual([
      ['1', 'ROW', 'FULL', 'CRC32'],
    ]);
    expect(await server.query("SELECT 'a\\tb', 'c\\nd', 'e\\\\f', '', 'é'")).toEqual([
      ['a\tb', 'c\nd', 'e\\f', '', 'é'],
    ]);
    await expect(server.sql('SELECT * FROM nope', 'harness')).rejects.toThrow(/harness\.nope' doesn't exist/);
  });

  it('lists binlog files that mariadb-binlog can read after FLUSH LOGS', async () => {
    await server.flushLogs();
    const files = await server.binlogFiles();
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      expect(existsSync(f), f).toBe(true);
      expect([...readFileSync(f).subarray(0, 4)], f).toEqual([0xfe, 0x62, 0x69, 0x6e]);
    }
    const text = await output(findMariadb()!.binlogTool, ['--no-defaults', files[0]!]);
    expect(text).toContain('CREATE TABLE harness.t');
    expect(text).toContain("INSERT INTO harness.t VALUES (1, 'one'), (2, NULL)"); // the ANNOTATE_ROWS event
  });

  it(
    'stop() ends the server and removes its files',
    async () => {
      const { pid, datadir } = server;
      await server.stop();
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      expect(existsSync(datadir)).toBe(process.env.KEEP_MARIADB === '1');
      await server.stop(); // a second stop is a no-op
    },
    TIMEOUT,
  );
});

function output(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exit ${code}: ${err}`))));
  });
}
