/**
 * The settings CDC clients read before they stream (maxwell and canal refuse a source whose binlog_row_image is not
 * FULL; Debezium warns), answered by `serveBinlog` as a real MariaDB primary's binlogs imply them: the primary is asked
 * the same question, and serve of its files must give its answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveBinlog } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;

/** The value of one variable as a client asks a server for it, by SHOW GLOBAL VARIABLES and SELECT @@. */
async function asked(port: number, name: string): Promise<{ shown: unknown; selected: unknown }> {
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'cdc', password: '' });
  try {
    const [shown] = await conn.query(`SHOW GLOBAL VARIABLES LIKE '${name}'`);
    const [selected] = await conn.query(`SELECT @@global.${name} AS v`);
    return { shown: (shown as { Value: unknown }[])[0]?.Value, selected: (selected as { v: unknown }[])[0]?.v };
  } finally {
    await conn.end();
  }
}

/** The primary's own answer to SHOW GLOBAL VARIABLES LIKE name. */
async function primaryValue(primary: MariadbServer, name: string): Promise<string | null | undefined> {
  return (await primary.query(`SHOW GLOBAL VARIABLES LIKE '${name}'`))[0]?.[1];
}

describeWithServer('serveBinlog of a real primary: the settings its binlogs imply', () => {
  let primary: MariadbServer;
  /** By binlog_row_image, the binlog written under it. */
  const written = new Map<string, { file: string; primarySaid: string | null | undefined }>();

  beforeAll(async () => {
    primary = await startMariadb({
      extraArgs: ['--character-set-server=latin1', '--collation-server=latin1_german1_ci'],
    });
    await primary.sql('CREATE DATABASE shop; CREATE TABLE shop.note (id INT PRIMARY KEY, qty INT, body TEXT);');
    await primary.flushLogs();
    // Each setting's binlog of its own: an update of a column that is no blob, and a delete.
    for (const image of ['MINIMAL', 'NOBLOB', 'FULL']) {
      await primary.sql(`SET GLOBAL binlog_row_image = ${image}`);
      await primary.sql(`
        INSERT INTO shop.note VALUES (1, 5, 'a long text'), (2, 7, 'another');
        UPDATE shop.note SET qty = qty + 1 WHERE id = 1;
        DELETE FROM shop.note;
      `);
      written.set(image, {
        file: (await primary.binlogFiles()).at(-1)!,
        primarySaid: await primaryValue(primary, 'binlog_row_image'),
      });
      await primary.flushLogs();
    }
  }, TIMEOUT);
  afterAll(async () => {
    await primary?.stop();
  }, TIMEOUT);

  it.each(['MINIMAL', 'NOBLOB', 'FULL'])(
    'binlog_row_image is %s when the primary wrote the binlog under it',
    async (image) => {
      const { file, primarySaid } = written.get(image)!;
      expect(primarySaid).toBe(image);
      const served = await serveBinlog({ files: [file] }, { log: () => {} });
      try {
        expect(await asked(served.port, 'binlog_row_image')).toEqual({ shown: image, selected: image });
      } finally {
        await served.close();
      }
    },
    TIMEOUT,
  );

  it(
    "character_set_server and collation_server are the primary's, from its QUERY events",
    async () => {
      expect(await primaryValue(primary, 'collation_server')).toBe('latin1_german1_ci');
      const served = await serveBinlog({ files: [primary.datadir] }, { log: () => {} });
      try {
        expect(await asked(served.port, 'collation_server')).toEqual({
          shown: 'latin1_german1_ci',
          selected: 'latin1_german1_ci',
        });
        expect(await asked(served.port, 'character_set_server')).toEqual({ shown: 'latin1', selected: 'latin1' });
      } finally {
        await served.close();
      }
    },
    TIMEOUT,
  );

  it(
    "max_allowed_packet and wait_timeout are serve's own, as configured",
    async () => {
      const options = { log: () => {}, maxAllowedPacket: 4 * 1024 * 1024, waitTimeout: 600 };
      const served = await serveBinlog({ files: [primary.datadir] }, options);
      try {
        expect(await asked(served.port, 'max_allowed_packet')).toEqual({ shown: '4194304', selected: '4194304' });
        expect(await asked(served.port, 'wait_timeout')).toEqual({ shown: '600', selected: '600' });
      } finally {
        await served.close();
      }
    },
    TIMEOUT,
  );
});
