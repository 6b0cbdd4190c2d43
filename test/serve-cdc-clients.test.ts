/**
 * CDC clients in other languages against `serveBinlog` of a real MariaDB primary's binlogs: each client reads the
 * primary itself, then serve of the primary's files, and must see the same row changes (kind, table, the names and
 * values of every row). The clients are not part of the clone: each runs when an environment variable points at its
 * prepared directory (docs/serve.md says how to prepare them), and is skipped with one reason otherwise, under CI too.
 *
 * - BINLOG_TEST_PYMYSQLREPLICATION: a folder holding python-mysql-replication's `pymysqlreplication` package and
 *   PyMySQL's `pymysql`, put on PYTHONPATH to run test/clients/pymysqlreplication-rows.py.
 * - BINLOG_TEST_GOMYSQL: a GOPATH whose src/ holds go-mysql (v1.7.0) and its dependencies, with which
 *   test/clients/gomysql-rows is built (GO111MODULE=off: no module proxy is needed).
 * - BINLOG_TEST_MBCJ: a folder holding mysql-binlog-connector-java's compiled classes (Debezium's binlog reader)
 *   and zstd-jni.jar, with which test/clients/BinlogConnectorRows.java is compiled and run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { noteSkip } from './support/requires.js';

const run = promisify(execFile);
const TIMEOUT = 180_000;
/** How long a client may take to read the binlogs, which hold a few dozen row changes. */
const CLIENT_MS = 60_000;

/**
 * The workload: a row of each kind of column CDC clients decode (signed and unsigned integers, DECIMAL, floats,
 * temporal types with fractions, text in two character sets, BLOB, ENUM, SET, JSON, NULL), then updates and deletes.
 */
const WORKLOAD = `
  CREATE DATABASE shop;
  CREATE TABLE shop.item (
    id INT PRIMARY KEY, small TINYINT, big BIGINT UNSIGNED, price DECIMAL(10,2), ratio DOUBLE,
    name VARCHAR(40) CHARACTER SET utf8mb4, legacy VARCHAR(20) CHARACTER SET latin1, note TEXT, raw BLOB,
    size ENUM('S','M','L'), tags SET('new','sale'), born DATE, seen DATETIME(3), at TIME, attrs JSON
  );
  INSERT INTO shop.item VALUES
    (1, -5, 18446744073709551615, 12.34, 0.5, 'ünïcödé ✓', 'café', 'a note', 'bytes', 'M', 'new,sale',
     '2024-02-29', '2024-02-29 12:34:56.789', '-01:02:03', '{"a": [1, 2]}'),
    (2, 127, 0, -0.01, -1e10, 'plain', 'x', NULL, NULL, 'S', '', '1999-12-31', '1999-12-31 23:59:59.000',
     '00:00:00', NULL);
  UPDATE shop.item SET name = 'renamed', price = 99.99 WHERE id = 1;
  CREATE DATABASE crm;
  CREATE TABLE crm.person (pid BIGINT PRIMARY KEY, email VARCHAR(60), score FLOAT);
  INSERT INTO crm.person VALUES (10, 'ann@example.org', 1.5), (11, 'bob@example.org', NULL);
  DELETE FROM shop.item WHERE id = 2;
  DELETE FROM crm.person;
`;

/** A client's run: its row changes as JSON lines, one a change. */
type Client = (where: { port: number } | { socket: string }, firstBinlog: string) => Promise<string[]>;

function lines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '');
}

/** describe() when the client's folder is given; else one test that notes the skip (never a failure: see above). */
function describeWithClient(variable: string, name: string, fn: (dir: string) => void): void {
  const dir = process.env[variable];
  if (dir) {
    describe(name, () => fn(dir));
    return;
  }
  it(`${name}: not run`, (ctx) => {
    const reason = `${variable} is not set (docs/serve.md says how to prepare ${name})`;
    noteSkip(reason);
    ctx.skip(reason);
  });
}

// With binlog_checksum NONE the clients ask for no checksums, and the events serve makes up (the first ROTATE, the
// heartbeats) must then carry none either, as go-mysql once found they did.
describeWithServer('CDC clients see through serveBinlog what they see from the real primary', () => {
  describe.each(['CRC32', 'NONE'] as const)('binlog_checksum %s', (checksum) => clientsAgainst(checksum));
});

function clientsAgainst(checksum: 'CRC32' | 'NONE'): void {
  let primary: MariadbServer;
  let served: BinlogServer;
  let firstBinlog: string;

  beforeAll(async () => {
    primary = await startMariadb({ checksum });
    await primary.sql(WORKLOAD);
    firstBinlog = (await primary.binlogFiles())[0]!.split('/').at(-1)!;
    served = await serveBinlog({ files: [primary.datadir] }, { log: (m) => console.log(m) });
  }, TIMEOUT);
  afterAll(async () => {
    await served?.close();
    await primary?.stop();
  }, TIMEOUT);

  /** The values of the first row change the client printed, read through serve. */
  async function firstValues(client: Client): Promise<Record<string, unknown>> {
    const [first] = await client({ port: served.port }, firstBinlog);
    return (JSON.parse(first!) as { row: { values: Record<string, unknown> } }).row.values;
  }

  /** The client's changes from the primary and from serve, the same and each row named. */
  async function expectSameThroughServe(client: Client): Promise<void> {
    const fromPrimary = await client({ socket: primary.socket }, firstBinlog);
    const fromServe = await client({ port: served.port }, firstBinlog);
    // Two rows inserted, updated and deleted in shop.item, two inserted and deleted in crm.person.
    expect(fromPrimary.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual([
      'insert',
      'insert',
      'update',
      'insert',
      'insert',
      'delete',
      'delete',
      'delete',
    ]);
    expect(fromServe).toEqual(fromPrimary);
  }

  describeWithClient('BINLOG_TEST_PYMYSQLREPLICATION', 'python-mysql-replication', (dir) => {
    const script = join(import.meta.dirname, 'clients', 'pymysqlreplication-rows.py');
    const client: Client = async (where, firstBinlog) => {
      const settings =
        'socket' in where
          ? { unix_socket: where.socket, user: 'root', passwd: '' }
          : { host: '127.0.0.1', port: where.port, user: 'cdc', passwd: '' };
      const { stdout } = await run('python3', [script, JSON.stringify(settings), firstBinlog], {
        env: { ...process.env, PYTHONPATH: dir },
        timeout: CLIENT_MS,
      });
      return lines(stdout);
    };

    it(
      'reads every row change, its columns named',
      async () => {
        await expectSameThroughServe(client);
        expect(await firstValues(client)).toMatchObject({ id: 1, name: 'ünïcödé ✓', legacy: 'café', size: 'M' });
      },
      TIMEOUT,
    );
  });

  describeWithClient('BINLOG_TEST_GOMYSQL', 'go-mysql', (gopath) => {
    let binary: string;
    let built: string;
    beforeAll(async () => {
      built = mkdtempSync(join(tmpdir(), 'binlog-gomysql-'));
      binary = join(built, 'gomysql-rows');
      await run('go', ['build', '-o', binary, '.'], {
        cwd: join(import.meta.dirname, 'clients', 'gomysql-rows'),
        env: { ...process.env, GO111MODULE: 'off', GOPATH: gopath, GOFLAGS: '' },
        timeout: CLIENT_MS,
      });
    }, TIMEOUT);
    afterAll(() => rmSync(built, { recursive: true, force: true }));

    const client: Client = async (where, firstBinlog) => {
      const address = 'socket' in where ? `unix:${where.socket}` : `127.0.0.1:${where.port}`;
      const { stdout } = await run(binary, [address, firstBinlog], { timeout: CLIENT_MS });
      return lines(stdout);
    };

    it(
      'reads every row change, its columns named',
      async () => {
        await expectSameThroughServe(client);
        // go-mysql gives text as its bytes, in the column's character set, and an ENUM as its index.
        expect(await firstValues(client)).toMatchObject({ id: '1', name: 'ünïcödé ✓', note: 'a note', size: '2' });
      },
      TIMEOUT,
    );
  });

  describeWithClient('BINLOG_TEST_MBCJ', 'mysql-binlog-connector-java', (dir) => {
    let built: string;
    let classpath: string;
    beforeAll(async () => {
      built = mkdtempSync(join(tmpdir(), 'binlog-mbcj-'));
      classpath = [dir, join(dir, 'zstd-jni.jar'), built].join(':');
      const source = join(import.meta.dirname, 'clients', 'BinlogConnectorRows.java');
      await run('javac', ['-cp', classpath, '-d', built, source], { timeout: CLIENT_MS });
    }, TIMEOUT);
    afterAll(() => rmSync(built, { recursive: true, force: true }));

    // The Java client connects over TCP only, so the primary's unix socket is reached through a loopback relay.
    const client: Client = async (where, firstBinlog) => {
      const relay = 'socket' in where ? await relayTo(where.socket) : undefined;
      const port = relay ? (relay.address() as { port: number }).port : (where as { port: number }).port;
      try {
        const { stdout } = await run(
          'java',
          ['-cp', classpath, 'BinlogConnectorRows', '127.0.0.1', String(port), 'root', firstBinlog],
          { timeout: CLIENT_MS },
        );
        return lines(stdout);
      } finally {
        relay?.close();
      }
    };

    it(
      'reads every row change, its columns named, and ends at the last binlog as a non-blocking client',
      async () => {
        await expectSameThroughServe(client);
        expect(await firstValues(client)).toMatchObject({ id: '1', name: 'ünïcödé ✓', note: 'a note', size: '2' });
      },
      TIMEOUT,
    );
  });
}

/** A loopback TCP listener whose every connection is piped to the unix socket `path`. */
async function relayTo(path: string): Promise<Server> {
  const server = createServer((inbound) => {
    const outbound = createConnection(path);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
