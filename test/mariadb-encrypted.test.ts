/**
 * A MariaDB encrypt_binlog file read without its key: the commands keep its encrypted events as bytes,
 * say once where they begin and which key they need, and exit 7, never 0 as if everything was read.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, type MariadbServer, startMariadb } from './support/mariadb.js';

const root = join(import.meta.dirname, '..');

function binlog(args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describeWithServer('an encrypted MariaDB binlog without its key', () => {
  let server: MariadbServer;
  let tmp: string;
  let file: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-encrypted-'));
    const keys = join(tmp, 'keys.txt');
    writeFileSync(keys, `1;${'a1'.repeat(32)}\n`);
    server = await startMariadb({
      extraArgs: [
        '--plugin-load-add=file_key_management',
        `--file-key-management-filename=${keys}`,
        '--encrypt-binlog=ON',
      ],
    });
    await server.sql(
      'CREATE DATABASE e; CREATE TABLE e.t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO e.t VALUES (1, ' +
        '"secret"), (2, "more");',
    );
    await server.flushLogs();
    file = (await server.binlogFiles()).at(-2)!;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('dump keeps every event, says once from where they are encrypted and with which key, and exits 7', () => {
    const r = binlog(['dump', file]);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; pos: number; keyVersion?: number });
    const start = events.find((e) => e.type === 'START_ENCRYPTION_EVENT')!;
    const first = events.find((e) => e.type === 'ENCRYPTED_EVENT')!;
    expect(events.filter((e) => e.type === 'ENCRYPTED_EVENT').length).toBeGreaterThan(5);
    expect(r.stderr).toBe(
      `binlog: ${file.split('/').at(-1)}: the events from offset ${first.pos} on are encrypted (encrypt_binlog) ` +
        `and cannot be read without ` +
        `key id 1, key version ${start.keyVersion} (scheme 1, START_ENCRYPTION at ${start.pos}): ` +
        `they are kept as bytes, as ENCRYPTED_EVENT.\n`,
    );
    expect(r.code).toBe(7);
  });

  it('sql and flashback say it too, and exit 7', () => {
    const sql = binlog(['sql', file]);
    expect(sql.stderr).toMatch(
      /^binlog: binlog\.\d+: the events from offset \d+ on are encrypted .* key id 1, key version 1 .*\n$/,
    );
    expect(sql.code).toBe(7);
    const undo = binlog(['flashback', file, '-o', join(tmp, 'undo.bin')]);
    expect(undo.stderr).toMatch(/are encrypted/);
    expect(undo.code).toBe(7);
  });
});
