/**
 * A real MariaDB replica fed by `serveBinlog` from the binlogs a real MariaDB primary wrote: by file and
 * position, then (stopped, the primary going on meanwhile) by its GTID position, it ends with the
 * primary's tables; bad starts leave our error in its Last_IO_Error.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeBinlogDumpPacket } from '../generated/replication.js';
import { packet } from '../protocol/packets.js';
import { Wire, type ConnectOptions } from '../replication/wire.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { caughtUp as replicaCaughtUp, ioError, slaveStatus } from './support/replica.js';

const TIMEOUT = 180_000;
const TABLES = ['shop.item', 'shop.log'];
const caughtUp = (primary: MariadbServer, replica: MariadbServer) => replicaCaughtUp(primary, replica, TABLES);

const SCHEMA = `
  CREATE DATABASE shop;
  CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), made DATETIME(3), doc JSON, \
big BIGINT UNSIGNED, blobby BLOB);
  CREATE TABLE shop.log (n INT AUTO_INCREMENT PRIMARY KEY, what TEXT);
`;

/** Some transactions: inserts, updates and deletes, each seed giving different rows. */
function work(seed: number): string {
  const rows = Array.from(
    { length: 20 },
    (_, i) =>
      `(${seed * 100 + i}, 'item ${seed}-${i} ünï', ${i}.25, '2024-01-0${(i % 9) + 1} 03:04:05.678', '{"k": [${i}, ` +
      `${seed}]}', ${18446744073709551615n - BigInt(i)}, x'00ff${seed.toString(16).padStart(2, '0')}')`,
  );
  return `
    INSERT INTO shop.item VALUES ${rows.join(', ')};
    BEGIN;
    UPDATE shop.item SET price = price * 2 WHERE id % 3 = ${seed % 3};
    DELETE FROM shop.item WHERE id % 7 = ${seed % 7} AND id >= ${seed * 100};
    INSERT INTO shop.log (what) VALUES ('seed ${seed}');
    COMMIT;
  `;
}

describeWithServer('a real MariaDB replica of serveBinlog', () => {
  let primary: MariadbServer;
  let replica: MariadbServer;
  let served: BinlogServer;
  const source = (more: string) =>
    `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${served.port}, MASTER_USER='repl', MASTER_PASSWORD='', ` +
    `MASTER_HEARTBEAT_PERIOD=1, MASTER_CONNECT_RETRY=1, ${more}`;

  beforeAll(async () => {
    [primary, replica] = await Promise.all([startMariadb(), startMariadb({ extraArgs: ['--server-id=2'] })]);
    await primary.sql(SCHEMA + work(1));
    await primary.flushLogs();
    await primary.sql(work(2));
    // The primary's folder, followed: its binlog.index names the files, the last still being written.
    served = await serveBinlog({ files: [primary.datadir] }, { follow: true, log: (m) => console.log(m) });
  }, TIMEOUT);
  afterAll(async () => {
    await served?.close();
    await Promise.all([primary?.stop(), replica?.stop()]);
  }, TIMEOUT);

  it(
    'applies the primary binlogs by file and position, then by GTID after a stop, ending with its tables',
    async () => {
      const [first] = await primary.binlogFiles();
      await replica.sql(
        `${source(`MASTER_LOG_FILE='${first!.split('/').at(-1)}', MASTER_LOG_POS=4, MASTER_USE_GTID=no`)}; ` +
          `START SLAVE;`,
      );
      await caughtUp(primary, replica);
      expect((await replica.query('SELECT COUNT(*) FROM shop.log'))[0]![0]).toBe('2');
      // Stopped, the primary goes on; started again from its GTID position, the replica gets the rest once.
      await replica.sql('STOP SLAVE');
      await primary.sql(work(3));
      await primary.flushLogs();
      await primary.sql(work(4));
      await replica.sql(`${source('MASTER_USE_GTID=slave_pos')}; START SLAVE;`);
      await caughtUp(primary, replica);
      expect(await replica.query('SELECT what FROM shop.log ORDER BY n')).toEqual([
        ['seed 1'],
        ['seed 2'],
        ['seed 3'],
        ['seed 4'],
      ]);
      // And what the primary writes while the replica is connected reaches it (--follow).
      await primary.sql(work(5));
      await caughtUp(primary, replica);
      const s = await slaveStatus(replica);
      expect(s).toMatchObject({
        Slave_IO_Running: 'Yes',
        Slave_SQL_Running: 'Yes',
        Last_IO_Error: '',
        Using_Gtid: 'Slave_Pos',
      });
      // The replica server restarted (its replication starting with it), and the primary writing
      // meanwhile: it resumes at its own position, every transaction once.
      await replica.restart();
      await primary.sql(work(6));
      await caughtUp(primary, replica);
      expect((await replica.query('SELECT what FROM shop.log ORDER BY n')).flat()).toEqual([
        'seed 1',
        'seed 2',
        'seed 3',
        'seed 4',
        'seed 5',
        'seed 6',
      ]);
    },
    TIMEOUT,
  );

  it(
    'leaves our reason in Last_IO_Error for a position inside an event, a file not served, a GTID in no file',
    async () => {
      const [first] = await primary.binlogFiles();
      const name = first!.split('/').at(-1)!;
      const restart = async (more: string) => {
        await replica.sql(`STOP SLAVE; RESET SLAVE; ${source(more)}; START SLAVE;`);
        return ioError(replica);
      };
      expect(await restart(`MASTER_LOG_FILE='${name}', MASTER_LOG_POS=5, MASTER_USE_GTID=no`)).toMatch(
        /position 5 is inside the event at 4/,
      );
      expect(await restart(`MASTER_LOG_FILE='nosuch.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no`)).toMatch(
        /nosuch\.000001 is not a binlog served here/,
      );
      await replica.sql("STOP SLAVE; SET GLOBAL gtid_slave_pos = '0-1-999999'");
      expect(await restart('MASTER_USE_GTID=slave_pos')).toMatch(
        /GTID 0-1-999999, which is in none of the served binlogs/,
      );
    },
    TIMEOUT,
  );

  it(
    'ends a dump asked by server id 0 at the end of the last binlog with an EOF, as the primary does',
    async () => {
      const [first] = await primary.binlogFiles();
      const file = first!.split('/').at(-1)!;
      const [fromPrimary, fromServe] = await Promise.all([
        dumpAsServerZero({ socketPath: primary.socket, user: 'root' }, file),
        dumpAsServerZero({ host: '127.0.0.1', port: served.port, user: 'repl' }, file),
      ]);
      expect(fromPrimary.last).toBe(0xfe);
      expect(fromServe.last).toBe(0xfe);
      expect(fromServe.rowsEvents).toBe(fromPrimary.rowsEvents);
      expect(fromPrimary.rowsEvents).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});

/** ROWS events of MariaDB's v2 type codes (WRITE, UPDATE, DELETE: 23, 24, 25) are what both sides must send alike. */
const ROWS_TYPES = new Set([23, 24, 25]);

/**
 * Asks for a dump from the first binlog as server id 0 with no flags, as mysqlbinlog and
 * mysql-binlog-connector-java do for a read that ends; fails after 20 s if no EOF ends it.
 */
async function dumpAsServerZero(where: ConnectOptions, file: string): Promise<{ last: number; rowsEvents: number }> {
  const wire = await Wire.open(where);
  await wire.query('SET @master_binlog_checksum = @@global.binlog_checksum');
  const payload = packet(encodeBinlogDumpPacket, { position: 4, flags: 0, serverId: 0, file });
  const timer = setTimeout(() => wire.close(), 20_000);
  try {
    let last = -1;
    let rowsEvents = 0;
    for await (const p of wire.stream(payload, (b) => b[0] === 0xfe && b.length < 9)) {
      last = p[0]!;
      // An event's packet is a 0 byte, then the event: its type is the header's fifth byte.
      if (p[0] === 0 && ROWS_TYPES.has(p[5]!)) rowsEvents++;
    }
    return { last, rowsEvents };
  } finally {
    clearTimeout(timer);
    wire.close();
  }
}
