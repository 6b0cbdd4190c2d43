/**
 * Live replication against a real MariaDB server: what a dump sends is the server's own file, event for
 * event, and a checkpoint resumes it with every transaction exactly once.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventFlags } from '../generated/header.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { ConnectionError, ServerError } from '../runtime/core/errors.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { readBinlog } from '../runtime/io/stream.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { QUEUE_HIGH_WATER } from '../replication/wire.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;
/** Far more events than any dump here sends: a loop that passes it has gone wrong. */
const MAX_EVENTS = 10_000;

async function collect(options: LiveOptions, keep: (e: BinlogEvent) => boolean = () => true): Promise<BinlogEvent[]> {
  const out: BinlogEvent[] = [];
  for await (const e of connectBinlog(options)) {
    if (keep(e)) out.push(e);
    if (out.length > MAX_EVENTS) throw new Error('the dump does not end');
  }
  return out;
}

const WORKLOAD = `
  CREATE DATABASE shop;
  CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), made DATETIME(3), doc JSON, \
flags SET('a','b'), big BIGINT UNSIGNED, blobby BLOB);
  INSERT INTO shop.item VALUES (1, 'pen', 1.50, '2024-01-02 03:04:05.678', '{"k": [1, 2]}', 'a,b', \
18446744073709551615, x'00ff');
  BEGIN;
  INSERT INTO shop.item VALUES (2, 'ünïcode', -3.25, NULL, NULL, '', 0, NULL);
  UPDATE shop.item SET price = price * 2 WHERE id = 1;
  DELETE FROM shop.item WHERE id = 2;
  COMMIT;
  ALTER TABLE shop.item ADD COLUMN note TEXT;
`;

/**
 * The events of the server's binlog files, as the file reader gives them. The file the server has open
 * has LOG_EVENT_BINLOG_IN_USE_F in its FORMAT_DESCRIPTION until the server closes it; a dump sends the
 * event as the closed file will hold it, without.
 */
async function fileEvents(server: MariadbServer): Promise<BinlogEvent[]> {
  const files = await server.binlogFiles();
  const out: BinlogEvent[] = [];
  for (const f of files) for await (const e of readBinlog(f)) out.push(e);
  const open = out.findLast((e) => e.type === 'FORMAT_DESCRIPTION_EVENT')!;
  expect(open.header.flags! & EventFlags.LOG_EVENT_BINLOG_IN_USE_F).not.toBe(0);
  open.header.flags! &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
  return out;
}

const gtidOf = (e: BinlogEvent) =>
  e.type === 'GTID_EVENT' ? `${e.domainId}-${e.header.serverId}-${e.seqNo}` : undefined;

describeWithServer('live replication from MariaDB', () => {
  let server: MariadbServer;
  const socket = () => ({ socketPath: server.socket, user: 'root' });

  beforeAll(async () => {
    server = await startMariadb();
    await server.sql(WORKLOAD);
    await server.flushLogs();
    await server.sql(`INSERT INTO shop.item (id, name, note) VALUES (3, 'after the rotation', REPEAT('x', 3000));
      BEGIN; INSERT INTO shop.item (id) VALUES (4); INSERT INTO shop.item (id) VALUES (5); COMMIT;`);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    "sends every event of the server's files, the same objects as the files give",
    async () => {
      const live = await collect({ ...socket(), file: 'binlog.000001', until: 'logs' });
      const artificial = live.filter((e) => e.notInFile);
      // The fake ROTATE that names each file as the dump enters it.
      expect(artificial.map((e) => [e.type, e.notInFile, e.file])).toEqual([
        ['ROTATE_EVENT', 'artificial', 'binlog.000001'],
        ['ROTATE_EVENT', 'artificial', 'binlog.000002'],
      ]);
      const fromFiles = await fileEvents(server);
      expect(new Set(fromFiles.map((e) => e.file)).size).toBe(2);
      const lines = (es: BinlogEvent[]) => es.map((e) => toJsonLine(e));
      expect(lines(live.filter((e) => !e.notInFile))).toEqual(lines(fromFiles));
      for (const type of [
        'TABLE_MAP_EVENT',
        'WRITE_ROWS_EVENT_V1',
        'UPDATE_ROWS_EVENT_V1',
        'DELETE_ROWS_EVENT_V1',
        'XID_EVENT',
        'ANNOTATE_ROWS_EVENT',
      ]) {
        expect(
          fromFiles.some((e) => e.type === type),
          type,
        ).toBe(true);
      }
    },
    TIMEOUT,
  );

  it(
    'resumes from a stored checkpoint (by position, or by GTID) with each transaction exactly once',
    async () => {
      const all = (await fileEvents(server)).map(gtidOf).filter((g) => g !== undefined);
      expect(all.length).toBeGreaterThanOrEqual(5);
      // Read until the third transaction has begun, storing the checkpoint after each event as a consumer would.
      const stream = connectBinlog({ ...socket(), file: 'binlog.000001', until: 'logs' });
      let stored = stream.checkpoint;
      const begun: string[] = [];
      let afterThird = 0;
      for await (const e of stream) {
        stored = stream.checkpoint;
        const g = gtidOf(e);
        if (g) begun.push(g);
        if (begun.length === 3 && ++afterThird === 2) break; // inside the third transaction
      }
      expect(begun).toEqual(all.slice(0, 3));
      expect(stored.file).toBe('binlog.000001');
      expect(stored.gtid).toBe(all[1]);
      await server.sql('INSERT INTO shop.item (id) VALUES (6)');
      const later = (await fileEvents(server)).map(gtidOf).filter((g) => g !== undefined);
      expect(later.length).toBe(all.length + 1);
      // The first two transactions were handled: each later one comes once, the third from its start.
      const byPosition = await collect({ ...socket(), file: stored.file, position: stored.position, until: 'logs' });
      expect(byPosition.map(gtidOf).filter((g) => g !== undefined)).toEqual(later.slice(2));
      const byGtid = await collect({ ...socket(), gtid: stored.gtid, until: 'logs' });
      expect(byGtid.map(gtidOf).filter((g) => g !== undefined)).toEqual(later.slice(2));
    },
    TIMEOUT,
  );

  it(
    'starts from now, waits for new events, and sends heartbeats while idle',
    async () => {
      const stream = connectBinlog({ ...socket(), heartbeatPeriod: 0.1 });
      const seen: BinlogEvent[] = [];
      let wrote = false;
      for await (const e of stream) {
        seen.push(e);
        if (seen.length > MAX_EVENTS) throw new Error('no XID came');
        // Idle at the end of the log: the heartbeat comes, and then a new transaction.
        if (e.notInFile === 'heartbeat' && !wrote) {
          wrote = true;
          expect(stream.checkpoint).toMatchObject({ file: stream.start!.file, position: stream.start!.position });
          await server.sql('INSERT INTO shop.item (id) VALUES (7)');
        }
        if (e.type === 'XID_EVENT') break;
      }
      const [status] = await server.query('SHOW MASTER STATUS');
      expect(seen[0]).toMatchObject({ type: 'ROTATE_EVENT', notInFile: 'artificial', nextFile: status![0] });
      expect(seen.find((e) => e.notInFile === 'heartbeat')).toMatchObject({ type: 'HEARTBEAT_LOG_EVENT' });
      const rows = seen.find((e) => e.type === 'WRITE_ROWS_EVENT_V1');
      expect(rows && 'rows' in rows && rows.rows?.[0]).toMatchObject({ after: { id: 7 } });
      expect(stream.checkpoint).toMatchObject({ file: status![0], position: Number(status![1]) });
    },
    TIMEOUT,
  );

  it(
    'a consumer that stops reading holds the socket paused: the queue stays within its bound however much is written',
    async () => {
      await server.sql('CREATE TABLE shop.bulk (id INT PRIMARY KEY, v VARCHAR(1000))');
      const stream = connectBinlog({ ...socket() });
      const written = 20_000;
      let rows = 0;
      let largest = 0;
      for await (const e of stream) {
        largest = Math.max(largest, e.header.eventSize);
        if (e.type === 'ROTATE_EVENT' && e.notInFile) {
          // Not reading while 20 MB of rows are written.
          for (let t = 0; t < 20; t++)
            await server.sql(
              `INSERT INTO shop.bulk SELECT ${t * 1000} + seq, REPEAT('r', 1000) FROM seq_1_to_1000`,
              'shop',
            );
        }
        if (e.type === 'WRITE_ROWS_EVENT_V1' && (rows += e.rows!.length) === written) break;
      }
      expect(rows).toBe(written);
      expect(stream.queue.pauses).toBeGreaterThanOrEqual(1);
      expect(stream.queue.peak).toBeGreaterThan(QUEUE_HIGH_WATER);
      // What passed the mark: the rest of the socket read (64 KiB) that filled it, its last event whole.
      expect(stream.queue.peak).toBeLessThanOrEqual(QUEUE_HIGH_WATER + 64 * 1024 + largest);
    },
    TIMEOUT,
  );

  it(
    'a position inside an event is the server\u2019s error, quoted',
    async () => {
      const error = await collect({ ...socket(), file: 'binlog.000001', position: 5, until: 'logs' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ kind: 'server', errorCode: 1236 });
      expect((error as Error).message).toMatch(/bogus data in log event; the first event 'binlog.000001' at 5/);
    },
    TIMEOUT,
  );

  it(
    'a dump whose thread the server kills ends with a ConnectionError',
    async () => {
      const stream = connectBinlog({ ...socket() });
      let error: unknown;
      try {
        for await (const e of stream) {
          if (e.type !== 'FORMAT_DESCRIPTION_EVENT') continue;
          // Waiting at the end of the log now: kill the dump thread, as an operator would.
          const [id] = (
            await server.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'")
          )[0]!;
          await server.sql(`KILL ${id}`);
        }
      } catch (e) {
        error = e;
      }
      // MariaDB closes the killed thread's connection without an ERR packet.
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toBe('the server closed the connection');
    },
    TIMEOUT,
  );

  it(
    "a wrong password is the server's error, quoted",
    async () => {
      await server.sql(
        `CREATE USER repl@localhost IDENTIFIED BY 'right'; GRANT REPLICATION SLAVE ON *.* TO repl@localhost;`,
      );
      const error = await collect({ socketPath: server.socket, user: 'repl', password: 'wrong', until: 'logs' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ kind: 'server', errorCode: 1045, sqlState: '28000' });
      expect((error as Error).message).toMatch(/Access denied for user 'repl'@'localhost'/);
    },
    TIMEOUT,
  );

  it(
    "an unknown start file is the server's error, quoted",
    async () => {
      const error = await collect({ ...socket(), file: 'binlog.000099', until: 'logs' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ kind: 'server', errorCode: 1236 });
      expect((error as Error).message).toMatch(/Could not find first log file name in binary log index file/);
    },
    TIMEOUT,
  );
});

describeWithServer('live replication over TCP', () => {
  let server: MariadbServer;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    // On the loopback address only, at a port nothing else holds.
    server = await startMariadb({ extraArgs: ['--skip-networking=0', '--bind-address=127.0.0.1', `--port=${port}`] });
    await server.sql(`CREATE USER tcp@127.0.0.1 IDENTIFIED BY 'pw'; GRANT REPLICATION SLAVE ON *.* TO tcp@127.0.0.1;
      CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); INSERT INTO d.t VALUES (1);`);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    'reads the same events through host and port, with a password',
    async () => {
      const live = await collect({
        host: '127.0.0.1',
        port,
        user: 'tcp',
        password: 'pw',
        file: 'binlog.000001',
        until: 'logs',
      });
      const fromFile = await fileEvents(server);
      expect(live.filter((e) => !e.notInFile).map((e) => toJsonLine(e))).toEqual(fromFile.map((e) => toJsonLine(e)));
      expect(live.some((e) => e.type === 'WRITE_ROWS_EVENT_V1')).toBe(true);
    },
    TIMEOUT,
  );
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
