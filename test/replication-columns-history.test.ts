/**
 * information_schema's columns through the schema history, on a MariaDB that logs no column metadata
 * (NO_LOG): read from before an ALTER that renamed, retyped, dropped and added columns keeping their count,
 * the old rows' TABLE_MAP contradicts the table as it is now (an INT where the table now has CHAR(3)), so
 * its rows are read without names, said in one line, never under today's names; the rows after the ALTER
 * have today's names, which fit them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { connectBinlog } from '../replication/client.js';
import { SchemaHistory } from '../runtime/tables/history.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;

const afterImages = (e: BinlogEvent) =>
  e.type === 'WRITE_ROWS_EVENT_V1' || e.type === 'WRITE_ROWS_EVENT'
    ? e.rows!.map((r) => (r as { after: Record<string, unknown> }).after)
    : [];

describeWithServer('information_schema’s columns, checked by the schema history', () => {
  let server: MariadbServer;

  beforeAll(async () => {
    server = await startMariadb({ rowMetadata: 'NO_LOG' });
    await server.sql(`
      CREATE DATABASE s;
      CREATE TABLE s.p (id INT PRIMARY KEY, email VARCHAR(40), qty INT, kind ENUM('a','b'));
      FLUSH BINARY LOGS;
      INSERT INTO s.p VALUES (1, 'a@b.c', 7, 'b');
      ALTER TABLE s.p CHANGE email phone VARCHAR(40), CHANGE qty currency CHAR(3), DROP kind, ADD quantity TINYINT;
      INSERT INTO s.p VALUES (2, '555', 'EUR', 3);
    `);
  }, TIMEOUT);
  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  const read = async (file: string) => {
    const lines: string[] = [];
    const history = new SchemaHistory({ report: (l) => lines.push(l) });
    const rows: Record<string, unknown>[] = [];
    const options = { socketPath: server.socket, user: 'root', file, until: 'logs' as const };
    for await (const e of connectBinlog({ ...options, columnNames: 'information_schema', schemaHistory: history }))
      rows.push(...afterImages(e));
    return { rows, lines, contradictions: history.contradictions };
  };

  it(
    'read from after the CREATE TABLE, rows from before the ALTER are not labelled with today’s names; ' +
      'those after it are',
    async () => {
      const { rows, lines, contradictions } = await read('binlog.000002');
      expect(rows).toHaveLength(2);
      expect(Object.keys(rows[0]!)).toEqual(['@1', '@2', '@3', '@4']);
      expect(rows[0]!['@1']).toEqual(1);
      expect(rows[1]).toEqual({ id: 2, phone: '555', currency: 'EUR', quantity: 3 });
      expect(contradictions).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/s\.p.*currency.*information_schema/);
    },
    TIMEOUT,
  );

  it(
    'read from before the CREATE TABLE, the binlog’s DDL gives both sides their own names',
    async () => {
      const { rows, lines } = await read('binlog.000001');
      expect(rows).toEqual([
        { id: 1, email: 'a@b.c', qty: 7, kind: 'b' },
        { id: 2, phone: '555', currency: 'EUR', quantity: 3 },
      ]);
      expect(lines).toEqual([]);
    },
    TIMEOUT,
  );
});
