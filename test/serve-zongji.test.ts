/**
 * @vlasky/zongji against `serveBinlog` of a real MariaDB primary's binlogs whose DATETIME columns are
 * MariaDB's own (mysql56_temporal_format=OFF: logged as the classic DATETIME type, which no binlog
 * metadata tells from the old one): zongji then asks INFORMATION_SCHEMA.COLUMNS, as a prepared
 * statement, and gets the columns the TABLE_MAP names, so its rows are keyed by name.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readBinlog } from '../runtime/io/stream.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import type { AnyBinlogEvent, WriteRowsEvent } from '@vlasky/zongji';

const TIMEOUT = 120_000;
const WAIT_MS = 30_000;

const { default: ZongJi } = await import('@vlasky/zongji');

/** zongji names each event's class by getEventName(). */
function isWriteRows(e: AnyBinlogEvent): e is WriteRowsEvent {
  return e.getEventName() === 'writerows';
}

describeWithServer('zongji of serveBinlog, asking for the columns', () => {
  let primary: MariadbServer;
  let served: BinlogServer;
  let first: string;

  beforeAll(async () => {
    primary = await startMariadb({ extraArgs: ['--mysql56-temporal-format=OFF'] });
    await primary.sql(`
      CREATE DATABASE shop;
      CREATE TABLE shop.visit (id INT PRIMARY KEY, who VARCHAR(20), at DATETIME);
      INSERT INTO shop.visit VALUES (1, 'ann', '2024-02-03 04:05:06'), (2, 'bob', '2024-12-31 23:59:59');
    `);
    first = (await primary.binlogFiles())[0]!;
    served = await serveBinlog({ files: [primary.datadir] }, { log: (m) => console.log(m) });
  }, TIMEOUT);
  afterAll(async () => {
    await served?.close();
    await primary?.stop();
  }, TIMEOUT);

  it(
    'gets rows keyed by the names the TABLE_MAP gives',
    async () => {
      // The binlog logs the column as classic DATETIME, with the names (binlog_row_metadata=FULL).
      const maps = [];
      for await (const e of readBinlog(first)) if (e.type === 'TABLE_MAP_EVENT') maps.push(e);
      expect(maps[0]).toMatchObject({ tableName: 'visit', columnTypes: ['LONG', 'VARCHAR', 'DATETIME'] });
      const zongji = new ZongJi({ host: '127.0.0.1', port: served.port, user: 'cdc', password: '', dateStrings: true });
      const rows: Record<string, unknown>[] = [];
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`zongji saw ${JSON.stringify(rows)}`)), WAIT_MS);
          zongji.on('error', (e) => (clearTimeout(timer), reject(e)));
          zongji.on('binlog', (e) => {
            if (!isWriteRows(e)) return;
            rows.push(...e.rows);
            if (rows.length === 2) (clearTimeout(timer), resolve());
          });
          zongji.start({
            serverId: 78,
            filename: first.split('/').at(-1),
            position: 4,
            includeEvents: ['tablemap', 'writerows'],
          });
        });
      } finally {
        zongji.stop();
      }
      expect(rows).toEqual([
        { id: 1, who: 'ann', at: '2024-02-03 04:05:06' },
        { id: 2, who: 'bob', at: '2024-12-31 23:59:59' },
      ]);
    },
    TIMEOUT,
  );
});
