/**
 * Bad input to a live dump, against real MariaDB servers: each is a typed error quoting the server's
 * words (a ServerError), or, for a connection cut mid-event, a ConnectionError after the whole events
 * before it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConnectionError, ServerError } from '../runtime/core/errors.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { readBinlog } from '../runtime/io/stream.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { startCutProxy } from './support/cut-proxy.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { joinedRegExp } from './support/regex.js';

const TIMEOUT = 120_000;

async function collect(options: LiveOptions, seen: BinlogEvent[] = []): Promise<BinlogEvent[]> {
  for await (const e of connectBinlog(options)) seen.push(e);
  return seen;
}

const failure = (options: LiveOptions) =>
  collect(options).then(
    () => undefined,
    (e: unknown) => e,
  );

describeWithServer('live replication refused by the server', () => {
  let server: MariadbServer;
  let work: string;
  const root = () => ({ socketPath: server.socket, user: 'root', until: 'logs' as const });

  beforeAll(async () => {
    server = await startMariadb();
    work = mkdtempSync(join(tmpdir(), 'binlog-errors-'));
    await server.sql(
      'CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v LONGBLOB); INSERT INTO d.t VALUES (1, NULL);',
    );
    await server.flushLogs();
    await server.sql('INSERT INTO d.t VALUES (2, NULL);');
    await server.flushLogs();
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, TIMEOUT);

  it(
    'an account without REPLICATION SLAVE',
    async () => {
      await server.sql(`CREATE USER reader@localhost IDENTIFIED BY 'pw'; GRANT SELECT ON *.* TO reader@localhost;`);
      const error = await failure({
        socketPath: server.socket,
        user: 'reader',
        password: 'pw',
        file: 'binlog.000001',
        until: 'logs',
      });
      expect(error).toBeInstanceOf(ServerError);
      // MariaDB refuses COM_REGISTER_SLAVE with the words of a wrong password: the error says what was refused.
      expect(error).toMatchObject({ errorCode: 1045, refused: expect.stringMatching(/COM_REGISTER_SLAVE/) });
      expect((error as Error).message).toBe(
        'registering as a replica (COM_REGISTER_SLAVE, which needs the REPLICATION SLAVE privilege): ' +
          "the server says: Access denied for user 'reader'@'localhost' (using password: YES) (error 1045, " +
          'SQL state 28000)',
      );
    },
    TIMEOUT,
  );

  it(
    'a purged start file, and a GTID only the purged files had',
    async () => {
      const before = await collect({ ...root(), file: 'binlog.000001', until: 'file' });
      const first = before.find((e) => e.type === 'GTID_EVENT')!;
      const gtid = `${(first as { domainId: number }).domainId}-1-${(first as { seqNo: bigint | number }).seqNo}`;
      await server.sql("PURGE BINARY LOGS TO 'binlog.000003'");
      const purged = await failure({ ...root(), file: 'binlog.000001' });
      expect(purged).toBeInstanceOf(ServerError);
      expect((purged as Error).message).toMatch(
        joinedRegExp(
          /^the server says: .*Could not find first log file name in binary log index file.* /,
          /\(error 1236, SQL state HY000\)$/,
        ),
      );
      const old = await failure({ ...root(), gtid });
      expect(old).toBeInstanceOf(ServerError);
      expect((old as Error).message).toMatch(/^the server says: .*GTID.* \(error 1236, SQL state HY000\)$/);
    },
    TIMEOUT,
  );

  it(
    'a server that closes the connection in the middle of an event: the whole events before it, then a ConnectionError',
    async () => {
      await server.flushLogs();
      const [[file]] = (await server.query('SHOW MASTER STATUS')) as [[string]];
      await server.sql("INSERT INTO d.t VALUES (3, REPEAT(x'ab', 2000000))");
      const inFile: BinlogEvent[] = [];
      for await (const e of readBinlog(join(server.datadir, file))) inFile.push(e);
      const rows = inFile.findIndex((e) => e.type === 'WRITE_ROWS_EVENT_V1');
      expect(inFile[rows]!.header.eventSize).toBeGreaterThan(2_000_000);
      const proxy = await startCutProxy(server.socket, join(work, 'cut.sock'));
      // Well inside the 2 MB event: what comes before it (the handshake, the session, the small events) is a few KB.
      proxy.cutAfter(1_000_000);
      const seen: BinlogEvent[] = [];
      const error = await collect({ socketPath: proxy.socket, user: 'root', file, until: 'logs' }, seen).then(
        () => undefined,
        (e: unknown) => e,
      );
      await proxy.close();
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toBe('the server closed the connection');
      expect(seen.filter((e) => !e.notInFile).map((e) => [e.type, e.pos])).toEqual(
        inFile.slice(0, rows).map((e) => [e.type, e.pos]),
      );
    },
    TIMEOUT,
  );
});

describeWithServer('live replication from a server whose binary log is off', () => {
  let server: MariadbServer;

  beforeAll(async () => {
    server = await startMariadb({ extraArgs: ['--skip-log-bin'] });
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    'from a file, or from now: the server says it is not using binary logging',
    async () => {
      expect(await server.query('SELECT @@log_bin')).toEqual([['0']]);
      for (const at of [{ file: 'binlog.000001' }, {}]) {
        const error = await failure({ socketPath: server.socket, user: 'root', ...at });
        expect(error, JSON.stringify(at)).toBeInstanceOf(ServerError);
        // Said to BINLOG_GTID_POS, which the start's GTID state is read with, before any dump is asked for.
        expect((error as Error).message).toBe(
          'the server says: You are not using binary logging (error 1381, SQL state HY000)',
        );
      }
    },
    TIMEOUT,
  );
});
