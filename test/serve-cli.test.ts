/**
 * `binlog serve` on the command line (the built CLI): `binlog dump -R` against it writes the lines of
 * `binlog dump` of the served file (a synthetic one, and a MariaDB 11.8 one whose QUERY events inside
 * transactions have log_pos 0); `--from-jsonl -` serves a dump piped in; usage errors are sentences.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { runBinlog } from './support/cli.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

const root = join(import.meta.dirname, '..');
const WAIT_MS = 30_000;

const binlog = (args: string[], input = '') => runBinlog(args, { input });

/** `binlog serve` started on a free port; resolves with the process and the port it says. */
function serving(args: string[], input?: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(root, 'bin', 'binlog'), 'serve', '--port=0', ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`binlog serve said: ${stderr}`))), WAIT_MS);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = / on 127\.0\.0\.1:(\d+)\n/.exec(stderr);
      if (m) (clearTimeout(timer), resolve({ child, port: Number(m[1]) }));
    });
    child.on('close', () => (clearTimeout(timer), reject(new Error(`binlog serve ended: ${stderr}`))));
  });
}

/** Stops a server started here, by its pid, and waits for it to end. */
async function stop(child: ChildProcess): Promise<number | null> {
  const ended = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return ended;
}

const notInFile = (line: string) => line.includes('"notInFile"');

describe('binlog serve', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'serve-cli-'));
    file = join(dir, 'binlog.000001');
    const w = new BinlogWriter({ timestamp: 1_700_000_000 });
    const t = w.createTable({
      schema: 'db',
      name: 't',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'v', type: 'text' },
      ],
      primaryKey: 'id',
    });
    w.insert(t, [
      { id: 1, v: 'one' },
      { id: 2, v: 'two' },
    ]).commit();
    w.update(t, [
      [
        { id: 2, v: 'two' },
        { id: 2, v: 'deux' },
      ],
    ]).commit();
    writeFileSync(file, w.end().toBytes());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is read by dump -R as dump reads the file', async () => {
    const local = await binlog(['dump', file]);
    expect(local.status).toBe(0);
    const { child, port } = await serving([file]);
    try {
      const remote = await binlog([
        'dump',
        '-R',
        '--host=127.0.0.1',
        `--port=${port}`,
        '--user=cdc',
        '--to-last-log',
        'binlog.000001',
      ]);
      expect(remote.stderr).toBe('');
      expect(remote.stdout.split('\n').filter((l) => !notInFile(l))).toEqual(local.stdout.split('\n'));
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('answers dump -R --use-information-schema from --schema-file (issue 42, item 2: the aliased query)', async () => {
    const w = new BinlogWriter({ timestamp: 1_700_000_000, rowMetadata: 'NO_LOG' });
    const t = w.createTable({
      schema: 'db',
      name: 'u',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'v', type: 'text' },
      ],
    });
    w.insert(t, [{ id: 7, v: 'seven' }]).commit();
    const unnamed = join(dir, 'unnamed.000001');
    writeFileSync(unnamed, w.end().toBytes());
    const schema = join(dir, 'schema.sql');
    writeFileSync(schema, 'CREATE TABLE db.u (id INT, v TEXT);\n');
    const { child, port } = await serving([`--schema-file=${schema}`, unnamed]);
    try {
      const args = ['dump', '-R', '--host=127.0.0.1', `--port=${port}`, '--user=cdc', '--use-information-schema'];
      const remote = await binlog([...args, '--to-last-log', 'unnamed.000001']);
      expect(remote.stderr).toBe('');
      expect(remote.status).toBe(0);
      const rows = remote.stdout.split('\n').find((l) => l.includes('WRITE_ROWS'));
      expect(rows).toContain('"after":{"id":7,"v":"seven"}');
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('serves a dump piped in with --from-jsonl -', async () => {
    const local = await binlog(['dump', file]);
    const edited = local.stdout.replace('"deux"', '"zwei"');
    const { child, port } = await serving(['--from-jsonl', '-'], edited);
    try {
      const remote = await binlog([
        'dump',
        '-R',
        '--host=127.0.0.1',
        `--port=${port}`,
        '--user=cdc',
        '--to-last-log',
        'binlog.000001',
      ]);
      expect(remote.stderr).toBe('');
      const lines = remote.stdout.split('\n').filter((l) => !notInFile(l));
      expect(lines.filter((l) => l.includes('"zwei"'))).toHaveLength(1);
      expect(lines).toHaveLength(edited.split('\n').length);
    } finally {
      await stop(child);
    }
  });

  it('says what is wrong with its command line, and with its binlogs', async () => {
    expect(await binlog(['serve'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/serve needs binlog FILEs or folders/),
    });
    expect(await binlog(['serve', '--port=x', file])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/--port takes a number/),
    });
    const missing = await binlog(['serve', '--port=0', join(dir, 'nosuch.000001')]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/nosuch\.000001/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(await binlog(['serve', '--port=0', '--from-jsonl', '-'], '')).toMatchObject({
      status: 1,
      stderr: 'binlog: -: there is no binlog to serve\n',
    });
  });
});

describeWithFixtures('binlog serve of a MariaDB 11.8 binlog', () => {
  it('is read by dump -R as dump reads the file, its events with log_pos 0 in place', async () => {
    const path = fixtures().find((f) => f.name.endsWith('domain_id_0__mariadb-repl-bin.000007'))!.path;
    const local = await binlog(['dump', path]);
    expect(local.stdout.match(/"logPos":0,/g)).toHaveLength(252);
    const { child, port } = await serving([path]);
    try {
      const remote = await binlog([
        'dump',
        '-R',
        '--host=127.0.0.1',
        `--port=${port}`,
        '--user=cdc',
        '--to-last-log',
        basename(path),
      ]);
      expect(remote.stderr).toBe('');
      expect(remote.stdout.split('\n').filter((l) => !notInFile(l))).toEqual(local.stdout.split('\n'));
    } finally {
      await stop(child);
    }
  });
});
