/**
 * `serveBinlog` with a certificate (`tls`, `--ssl-cert`/`--ssl-key`): a client that asks for TLS gets
 * it (mysql2's client, and a real MariaDB replica that verifies the certificate, which refuses a
 * source that does not offer TLS), one that does not is served in the clear.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import type { BinlogEventInput } from '../runtime/events/event-codec.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { slaveStatus } from './support/replica.js';

const TIMEOUT = 120_000;
const WAIT_MS = 60_000;

function synthetic(): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000 });
  w.createDatabase('sealed');
  const t = w.createTable({
    schema: 'sealed',
    name: 't',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'v', type: 'varchar(20)' },
    ],
    primaryKey: 'id',
  });
  w.insert(t, [
    { id: 1, v: 'over' },
    { id: 2, v: 'tls' },
  ]).commit();
  return w.end().toBytes();
}

describe('serveBinlog over TLS', () => {
  let dir: string;
  let server: BinlogServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'serve-tls-'));
    // A self-signed certificate, made for the test.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const events = decodeBinlog(synthetic(), { file: 'binlog.000001' });
    async function* served() {
      for (const e of events) yield e as BinlogEventInput;
    }
    server = await serveBinlog(
      { events: served() },
      {
        tls: { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) },
        log: (m) => console.log(m),
      },
    );
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a client that asks for TLS an encrypted connection, and one that does not a clear one', async () => {
    const mysql = await import('mysql2/promise');
    const sealed = await mysql.createConnection({
      host: '127.0.0.1',
      port: server.port,
      user: 'cdc',
      ssl: { rejectUnauthorized: false },
    });
    const clear = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'cdc' });
    try {
      const stream = (c: object) => (c as { connection: { stream: { encrypted?: boolean } } }).connection.stream;
      expect(stream(sealed).encrypted).toBe(true);
      expect(stream(clear).encrypted).toBeUndefined();
      for (const c of [sealed, clear]) expect((await c.query('SELECT @@server_id AS id'))[0]).toEqual([{ id: '1' }]);
    } finally {
      await Promise.all([sealed.end(), clear.end()]);
    }
  });

  describeWithServer('a real MariaDB replica with MASTER_SSL_VERIFY_SERVER_CERT=1', () => {
    let replica: MariadbServer;
    beforeAll(async () => {
      replica = await startMariadb({ extraArgs: ['--server-id=2'] });
    }, TIMEOUT);
    afterAll(() => replica?.stop(), TIMEOUT);

    it(
      'replicates over TLS',
      async () => {
        await replica.sql(
          `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${server.port}, MASTER_USER='cdc', ` +
            `MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1, ` +
            `MASTER_SSL=1, MASTER_SSL_CA='${join(dir, 'cert.pem')}', MASTER_SSL_VERIFY_SERVER_CERT=1; START SLAVE;`,
        );
        const until = Date.now() + WAIT_MS;
        let rows: (string | null)[][] = [];
        while (rows.length < 2 && Date.now() < until) {
          rows = await replica.query('SELECT id, v FROM sealed.t ORDER BY id').catch(() => []);
          if (rows.length < 2) await new Promise((r) => setTimeout(r, 200));
        }
        const s = await slaveStatus(replica);
        expect({ rows, io: s.Last_IO_Error, ssl: s.Master_SSL_Allowed }).toEqual({
          rows: [
            ['1', 'over'],
            ['2', 'tls'],
          ],
          io: '',
          ssl: 'Yes',
        });
      },
      TIMEOUT,
    );
  });
});
