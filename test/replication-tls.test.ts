/**
 * `dump -R`'s TLS (--ssl-mode, --ssl-ca, --ssl-cert, --ssl-key, as the mariadb client names them) against a
 * real MariaDB started with a certificate made for the test, and an account that requires TLS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBinlog } from './support/cli.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;

/** A self-signed certificate and its key, made with openssl for the test. */
function selfSigned(key: string, cert: string, subject: string[]): void {
  const args = [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    ...subject,
  ];
  execFileSync('openssl', args, { stdio: 'ignore' });
}

describeWithServer('dump -R over TLS', () => {
  let server: MariadbServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'binlog-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
    selfSigned(key, cert, subject);
    server = await startMariadb({ extraArgs: [`--ssl-cert=${cert}`, `--ssl-key=${key}`, `--ssl-ca=${cert}`] });
    await server.sql(
      "CREATE USER tls@localhost IDENTIFIED BY 'pw' REQUIRE SSL;" +
        'GRANT REPLICATION SLAVE, SELECT ON *.* TO tls@localhost;' +
        'CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); INSERT INTO d.t VALUES (1);',
    );
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  const dump = (...tls: string[]) =>
    runBinlog(['dump', '-R', `--socket=${server.socket}`, '--user=tls', '--password=pw', ...tls, 'binlog.000001']);

  it(
    'an account that requires TLS is refused without it, and reads the binlog with each verifying mode',
    async () => {
      const plain = await dump();
      expect(plain.status).toBe(6);
      expect(plain.stderr).toMatch(/Access denied for user 'tls'@'localhost'/);
      for (const mode of ['REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY']) {
        const r = await dump(`--ssl-mode=${mode}`, `--ssl-ca=${join(dir, 'cert.pem')}`);
        expect(r.stderr, mode).toBe('');
        expect(r.status, mode).toBe(0);
        expect(r.stdout, mode).toMatch(/INSERT INTO d\.t VALUES \(1\)/);
      }
    },
    TIMEOUT,
  );

  it(
    'VERIFY_CA refuses a server whose certificate its CA did not sign',
    async () => {
      const other = join(dir, 'other');
      selfSigned(`${other}.key`, `${other}.pem`, ['-subj', '/CN=other']);
      const r = await dump('--ssl-mode=VERIFY_CA', `--ssl-ca=${other}.pem`);
      expect(r.status).toBe(6);
      expect(r.stderr).toMatch(/cannot connect to socket .*: self.signed certificate|unable to verify|certificate/i);
    },
    TIMEOUT,
  );

  it(
    'PREFERRED and a bad mode are usage errors',
    async () => {
      expect((await dump('--ssl-mode=PREFERRED')).stderr).toMatch(/PREFERRED would fall back to plain TCP unseen/);
      const modes = /--ssl-mode is one of DISABLED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY/;
      expect((await dump('--ssl-mode=SOMETIMES')).stderr).toMatch(modes);
    },
    TIMEOUT,
  );
});
