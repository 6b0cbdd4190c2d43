/**
 * The statements CDC clients send before they stream (Debezium, canal, maxwell, go-mysql's canal: their catalogue
 * reads, session settings and KILL), asked of a real MariaDB primary and of `serveBinlog` of its files: serve answers
 * each as the primary does, in what the binlogs can tell (names, types, nullability, the primary key under
 * binlog_row_metadata=FULL), and refuses with the reason what they cannot.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Connection } from 'mysql2/promise';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;

type Row = Record<string, unknown>;

describeWithServer('serveBinlog answers the catalogue statements as the primary does', () => {
  let primary: MariadbServer;
  let noLog: MariadbServer;
  let served: BinlogServer;
  let servedNoLog: BinlogServer;
  const open: Connection[] = [];

  beforeAll(async () => {
    [primary, noLog] = await Promise.all([startMariadb(), startMariadb({ rowMetadata: 'NO_LOG' })]);
    const workload = `
      CREATE DATABASE shop;
      CREATE TABLE shop.item (id INT NOT NULL, sku VARCHAR(20) NOT NULL, name VARCHAR(40), PRIMARY KEY (sku, id));
      CREATE TABLE shop.log (line TEXT);
      INSERT INTO shop.item VALUES (1, 'a', 'pen');
      INSERT INTO shop.log VALUES ('x');
    `;
    await Promise.all([primary.sql(workload), noLog.sql(workload)]);
    served = await serveBinlog({ files: [primary.datadir] }, { log: () => {} });
    servedNoLog = await serveBinlog({ files: [noLog.datadir] }, { log: () => {} });
  }, TIMEOUT);
  afterAll(async () => {
    await Promise.all(open.map((c) => c.end().catch(() => {})));
    await served?.close();
    await servedNoLog?.close();
    await Promise.all([primary?.stop(), noLog?.stop()]);
  }, TIMEOUT);

  async function connect(where: { port: number } | { socketPath: string }): Promise<Connection> {
    const mysql = await import('mysql2/promise');
    const conn = await mysql.createConnection({ host: '127.0.0.1', ...where, user: 'root', password: '' });
    open.push(conn);
    return conn;
  }

  /** Rows of a statement, each cut to these columns. */
  async function rows(conn: Connection, sql: string, keep?: string[]): Promise<Row[]> {
    const [result] = await conn.query(sql);
    return (result as Row[]).map((r) =>
      keep ? Object.fromEntries(keep.map((k) => [k, r[k] === null ? null : String(r[k])])) : r,
    );
  }

  it(
    'SHOW TABLES, SHOW [FULL] COLUMNS, DESCRIBE, SHOW INDEX, INFORMATION_SCHEMA, SHOW VARIABLES WHERE: as the primary',
    async () => {
      const real = await connect({ socketPath: primary.socket });
      const serve = await connect({ port: served.port });
      const same = async (sql: string, keep?: string[]) =>
        expect(await rows(serve, sql, keep), sql).toEqual(await rows(real, sql, keep));
      await same('SHOW TABLES FROM shop');
      await same("SHOW FULL TABLES IN shop WHERE Table_type = 'BASE TABLE'");
      await same('SHOW FULL COLUMNS FROM `shop`.`item`', ['Field', 'Null', 'Key']);
      await same('SHOW COLUMNS FROM item FROM shop', ['Field', 'Null', 'Key']);
      await same('SHOW INDEX FROM shop.item', ['Table', 'Non_unique', 'Key_name', 'Seq_in_index', 'Column_name']);
      await same('SHOW INDEX FROM shop.log', ['Key_name']);
      await same(
        "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' " +
          'ORDER BY TABLE_NAME',
      );
      await same("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('shop')");
      await same(
        "SELECT COLUMN_NAME, COLUMN_KEY, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND " +
          "TABLE_NAME = 'item' ORDER BY ORDINAL_POSITION",
      );
      await same(
        "SHOW VARIABLES WHERE Variable_name IN ('binlog_format', 'log_bin') OR Variable_name = 'binlog_row_image'",
      );
      await same("SHOW GLOBAL VARIABLES WHERE Variable_name REGEXP '^binlog_row_(image|metadata)$'");
      // The session's default database, by USE, as a table named alone then reads it.
      for (const c of [real, serve]) await c.query('USE shop');
      await same('DESCRIBE item', ['Field', 'Null', 'Key']);
      await same('SELECT DATABASE() AS db');
      // SHOW DATABASES lists the primary's own schemas too; serve lists the served binlogs' (their TABLE_MAPs').
      expect(await rows(serve, 'SHOW DATABASES')).toEqual([{ Database: 'shop' }]);
      const create = (await rows(serve, 'SHOW CREATE TABLE shop.item'))[0]!;
      expect(create['Create Table']).toMatch(/^CREATE TABLE `item` \(\n {2}`id` int NOT NULL,\n/);
      expect(create['Create Table']).toContain('PRIMARY KEY (`sku`,`id`)');
    },
    TIMEOUT,
  );

  it(
    'transactions, grants, UUID(), CONNECTION_ID() and KILL of another connection',
    async () => {
      const serve = await connect({ port: served.port });
      for (const sql of [
        'SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ',
        'START TRANSACTION WITH CONSISTENT SNAPSHOT',
        'COMMIT',
        'UNLOCK TABLES',
      ])
        await serve.query(sql);
      expect(Object.values((await rows(serve, 'SHOW GRANTS FOR CURRENT_USER()'))[0]!)[0]).toMatch(
        /^GRANT .*REPLICATION SLAVE.* TO 'root'@'%'$/,
      );
      const [uuid] = await rows(serve, 'SELECT UUID() AS u');
      expect(uuid!.u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const other = await connect({ port: served.port });
      const [{ id }] = (await rows(other, 'SELECT CONNECTION_ID() AS id')) as [{ id: string }];
      expect(id).toBe(String(other.threadId));
      const closed = new Promise<void>((resolve) => other.once('end', () => resolve()).once('error', () => resolve()));
      await serve.query(`KILL ${id}`);
      await closed;
      await expect(serve.query(`KILL ${id}`)).rejects.toThrow(/Unknown thread id/);
    },
    TIMEOUT,
  );

  it(
    'without binlog_row_metadata=FULL, refuses what the binlogs do not say, naming what it needs',
    async () => {
      const serve = await connect({ port: servedNoLog.port });
      expect(await rows(serve, 'SHOW TABLES FROM shop')).toEqual([
        { Tables_in_shop: 'item' },
        { Tables_in_shop: 'log' },
      ]);
      await expect(serve.query('SHOW COLUMNS FROM shop.item')).rejects.toThrow(
        /do not say the names of its columns of shop\.item \(that needs binlog_row_metadata=FULL/,
      );
      await expect(serve.query('SHOW TABLES')).rejects.toThrow(/No database selected/);
      await expect(serve.query('DESC shop.nosuch')).rejects.toThrow(/Table 'shop\.nosuch' doesn't exist/);
    },
    TIMEOUT,
  );
});
