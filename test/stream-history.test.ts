/**
 * `binlog stream` with the schema history kept in NATS's KV beside its checkpoint, from a MariaDB on its
 * default binlog_row_metadata=NO_LOG: the first run reads the CREATE TABLE and a row and stops at the end
 * of the binlog, before the ALTER that drops a column and adds another (the count kept). The second run
 * starts at the checkpoint with the kept history: the row before the ALTER has the old names, the row after
 * it the new ones. Without the kept history it would know no table at all (`@1`, `@2`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { startMariadb, type MariadbServer } from './support/mariadb.js';
import { describeWithNats, readAll, startNats, type NatsServer } from './support/nats.js';

const root = join(import.meta.dirname, '..');

describeWithNats('binlog stream restarted at a checkpoint before an ALTER, with the history kept in NATS', () => {
  let server: MariadbServer;
  let nats: NatsServer;
  let logname: string;

  beforeAll(async () => {
    [server, nats] = await Promise.all([startMariadb({ rowMetadata: 'NO_LOG' }), startNats()]);
    logname = String((await server.query('SHOW MASTER STATUS'))[0]![0]);
    await server.sql(`CREATE DATABASE s; CREATE TABLE s.t (id INT PRIMARY KEY, a VARCHAR(10), n INT UNSIGNED);
      INSERT INTO s.t VALUES (1, 'x', 4000000000);`);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), nats?.stop()]);
  });

  const run = () => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'bin', 'binlog'),
        'stream',
        '-R',
        '--socket',
        server.socket,
        '--user',
        'root',
        logname,
        `--to=${nats.url}`,
        '--to-last-log',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    return { code: r.status, stderr: r.stderr };
  };

  it('the rows on both sides of the ALTER carry their own names', async () => {
    const first = run();
    expect(first.code, first.stderr).toBe(0);
    await server.sql(`INSERT INTO s.t VALUES (2, 'y', 4000000001);
      ALTER TABLE s.t DROP COLUMN a, ADD COLUMN b BIGINT UNSIGNED AFTER id;
      INSERT INTO s.t VALUES (3, 7, 4000000002);`);
    const second = run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming from the checkpoint/);
    const rows = (await readAll(nats.url, 'binlog')).filter((m) => m.body.op).map((m) => m.body.after);
    expect(rows).toEqual([
      { id: 1, a: 'x', n: 4000000000 },
      { id: 2, a: 'y', n: 4000000001 },
      { id: 3, b: 7, n: 4000000002 },
    ]);
    // The kept history: the CREATE DATABASE, the CREATE TABLE and the ALTER, each under the checkpoint's key.
    const nc = await connect({ servers: nats.url.replace('nats://', '') });
    try {
      const kv = await new Kvm(jetstream(nc)).open('binlog-checkpoints');
      const keys: string[] = [];
      for await (const k of await kv.keys('binlog.binlog.schema.>')) keys.push(k);
      expect(keys).toHaveLength(3);
    } finally {
      await nc.close();
    }
  }, 180_000);
});
