/**
 * A real MariaDB replica of `serveBinlog` by GTID, the real primary writing two replication domains
 * interleaved (SET gtid_domain_id): stopped and started again in the middle, and then at a GTID state
 * whose domains stand at different places in the binlog (domain 0 further on than domain 1), it gets
 * each domain's missing transactions once and ends with the primary's tables.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { caughtUp, slaveStatus } from './support/replica.js';

const TIMEOUT = 180_000;
const TABLES = ['d.t0', 'd.t1'];

/** Rounds `from`..`to`: in each, a transaction in domain 0 (table t0) and one in domain 1 (t1). */
function rounds(from: number, to: number): string {
  const sql: string[] = [];
  for (let i = from; i <= to; i++) {
    sql.push(`SET SESSION gtid_domain_id = 0; INSERT INTO d.t0 VALUES (${i}, 'zero ${i}');`);
    sql.push(
      `SET SESSION gtid_domain_id = 1; BEGIN; INSERT INTO d.t1 VALUES (${i}, 'one ${i}'); ` +
        `UPDATE d.t1 SET v = CONCAT(v, '+') WHERE id = ${i}; COMMIT;`,
    );
  }
  return sql.join('\n');
}

describeWithServer('a real MariaDB replica of serveBinlog, two GTID domains interleaved', () => {
  let primary: MariadbServer;
  let replica: MariadbServer;
  let served: BinlogServer;

  beforeAll(async () => {
    [primary, replica] = await Promise.all([startMariadb(), startMariadb({ extraArgs: ['--server-id=2'] })]);
    await primary.sql(
      'CREATE DATABASE d; CREATE TABLE d.t0 (id INT PRIMARY KEY, v TEXT); CREATE TABLE d.t1 (id INT PRIMARY KEY, ' +
        'v TEXT);' +
        rounds(1, 5),
    );
    served = await serveBinlog({ files: [primary.datadir] }, { follow: true, log: (m) => console.log(m) });
    await replica.sql(
      `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${served.port}, MASTER_USER='repl', MASTER_PASSWORD='', ` +
        `MASTER_HEARTBEAT_PERIOD=1, MASTER_CONNECT_RETRY=1, MASTER_USE_GTID=slave_pos; START SLAVE;`,
    );
  }, TIMEOUT);
  afterAll(async () => {
    await served?.close();
    await Promise.all([primary?.stop(), replica?.stop()]);
  }, TIMEOUT);

  const gtidPos = async (server: MariadbServer, variable: string) =>
    (await server.query(`SELECT @@${variable}`))[0]![0]!;
  const domain = (pos: string, d: number) => pos.split(',').find((g) => g.startsWith(`${d}-`))!;

  it(
    'follows both domains, stopped and started again in the middle of the writes',
    async () => {
      await caughtUp(primary, replica, TABLES);
      await replica.sql('STOP SLAVE');
      await primary.sql(rounds(6, 8));
      await primary.flushLogs();
      await primary.sql(rounds(9, 10));
      await replica.sql('START SLAVE');
      await caughtUp(primary, replica, TABLES);
      expect(await replica.query('SELECT COUNT(*), MIN(id), MAX(id) FROM d.t1')).toEqual([['10', '1', '10']]);
      expect(await gtidPos(replica, 'gtid_slave_pos')).toBe(await gtidPos(primary, 'gtid_binlog_pos'));
    },
    TIMEOUT,
  );

  it(
    'starts each domain after its own GTID when domain 0 is further on than domain 1',
    async () => {
      await replica.sql('STOP SLAVE');
      const before = await gtidPos(primary, 'gtid_binlog_pos');
      await primary.sql(rounds(11, 14));
      const after = await gtidPos(primary, 'gtid_binlog_pos');
      // The replica has domain 0's four transactions already (made here, outside replication), none of domain 1's.
      await replica.sql(
        `SET SESSION sql_log_bin = 0; INSERT INTO d.t0 VALUES (11, 'zero 11'), (12, 'zero 12'), (13, 'zero 13'), ` +
          `(14, 'zero 14'); SET GLOBAL gtid_slave_pos = '${domain(after, 0)},${domain(before, 1)}'; START SLAVE;`,
      );
      await caughtUp(primary, replica, TABLES);
      expect(await replica.query('SELECT COUNT(*), MAX(id) FROM d.t1')).toEqual([['14', '14']]);
      const s = await slaveStatus(replica);
      expect(s).toMatchObject({
        Slave_IO_Running: 'Yes',
        Slave_SQL_Running: 'Yes',
        Last_SQL_Error: '',
        Using_Gtid: 'Slave_Pos',
      });
      expect(await gtidPos(replica, 'gtid_slave_pos')).toBe(after);
    },
    TIMEOUT,
  );
});
