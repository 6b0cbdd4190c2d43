/**
 * Editing a real binlog through its dump: values changed in the JSON (strings made longer, numbers
 * changed, logPos removed), encoded again, replayed by the real tools into a fresh server, which then
 * holds the edited values.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, findMariadb, replay, startMariadb, type MariadbServer } from './support/mariadb.js';

const root = join(import.meta.dirname, '..');

function binlog(args: string[], input?: string | Uint8Array) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { input, maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describeWithServer('an edited dump, replayed by a real server', () => {
  let source: MariadbServer;
  let target: MariadbServer;
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-edit-'));
    [source, target] = await Promise.all([startMariadb(), startMariadb()]);
    await source.sql(
      `CREATE DATABASE shop;
      CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(100) CHARACTER SET utf8mb4, ` +
        `price DECIMAL(8,2), qty BIGINT);
      INSERT INTO shop.items VALUES (1, 'pen', 1.50, 10), (2, 'ink', 7.25, 3);
      UPDATE shop.items SET qty = qty - 1 WHERE id = 2;`,
    );
    await source.flushLogs();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([source?.stop(), target?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the edited values', async () => {
    const [file] = await source.binlogFiles();
    const dump = binlog(['dump', file!]);
    expect(dump.code).toBe(0);
    const edited = dump.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const e = JSON.parse(line);
        delete e.header.logPos; // every position is computed afresh
        for (const change of e.rows ?? []) {
          if (change.after?.name === 'pen') change.after.name = 'fountain pen, refillable — ünïcode';
          if (change.after?.price === '7.25') change.after.price = '123456.78';
          if (change.after?.qty === 10) change.after.qty = '9007199254740993'; // past 2^53: a decimal string
        }
        return JSON.stringify(e);
      });
    const out = join(tmp, 'edited.bin');
    const enc = binlog(['encode', '-o', out], edited.join('\n'));
    expect(enc.stderr).toBe('');
    const bin = findMariadb()!;
    const verbose = spawnSync(bin.binlogTool, ['--no-defaults', '--verbose', out], { encoding: 'utf8' });
    expect(verbose.status).toBe(0);
    expect(verbose.stderr).toBe('');
    const r = await replay(bin.binlogTool, bin.client, out, target.socket);
    expect([r.dump, r.client, r.stderr]).toEqual([0, 0, '']);
    const rows = await target.query(
      'SELECT id, HEX(name), CAST(price AS CHAR), CAST(qty AS CHAR) FROM shop.items ORDER BY id',
    );
    const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex').toUpperCase();
    expect(rows).toEqual([
      ['1', hex('fountain pen, refillable — ünïcode'), '1.50', '9007199254740993'],
      ['2', hex('ink'), '123456.78', '2'],
    ]);
  }, 60_000);
});
