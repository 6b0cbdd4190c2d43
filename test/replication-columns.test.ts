/**
 * Column names from information_schema, against a real MariaDB server that logs no column metadata
 * (binlog_row_metadata=NO_LOG): live rows keyed and valued as a FULL server's, kept right across DDL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 120_000;

async function rows(options: LiveOptions): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const e of connectBinlog(options)) out.push(...afterImages(e));
  return out;
}

function afterImages(e: BinlogEvent): Record<string, unknown>[] {
  if (e.type !== 'WRITE_ROWS_EVENT_V1' && e.type !== 'WRITE_ROWS_EVENT') return [];
  return e.rows!.map((r) => (r as { after: Record<string, unknown> }).after);
}

describeWithServer('column hints from information_schema', () => {
  let server: MariadbServer;
  const options = (more: Partial<LiveOptions> = {}): LiveOptions => ({
    socketPath: server.socket,
    user: 'root',
    file: 'binlog.000001',
    until: 'logs',
    ...more,
  });

  beforeAll(async () => {
    server = await startMariadb({ rowMetadata: 'NO_LOG' });
    await server.sql(`
      CREATE DATABASE s;
      CREATE TABLE s.t (id INT UNSIGNED PRIMARY KEY, big BIGINT UNSIGNED, small TINYINT, kind ENUM('a','it''s','c'), \
tags SET('x','y'), name VARCHAR(10) CHARACTER SET latin1);
      INSERT INTO s.t VALUES (4294967295, 18446744073709551615, -1, 'it''s', 'x,y', 'café');
      ALTER TABLE s.t CHANGE name label VARCHAR(10) CHARACTER SET latin1;
      INSERT INTO s.t VALUES (1, 0, 127, 'c', '', 'naïve');
    `);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  it(
    'without it, NO_LOG rows are @N-keyed and an integer\u2019s signedness unknown',
    async () => {
      const [first] = await rows(options());
      expect(Object.keys(first!)).toEqual(['@1', '@2', '@3', '@4', '@5', '@6']);
      expect(first!['@1']).toEqual({ signed: -1, unsigned: 4294967295 });
    },
    TIMEOUT,
  );

  it(
    'with it, names, unsigned integers, ENUM and SET members and the charset are as a FULL server logs them, ' +
      'for the table as it is now',
    async () => {
      const seen = await rows(options({ columnNames: 'information_schema' }));
      // Read after the ALTER, the first row's table is the altered one: `label`, as the server says now.
      expect(seen).toEqual([
        { id: 4294967295, big: 18446744073709551615n, small: -1, kind: "it's", tags: ['x', 'y'], label: 'café' },
        { id: 1, big: 0n, small: 127, kind: 'c', tags: [], label: 'naïve' },
      ]);
    },
    TIMEOUT,
  );

  it(
    'a DDL passing in the stream is read again at the table\u2019s next TABLE_MAP',
    async () => {
      const stream = connectBinlog(options({ columnNames: 'information_schema', until: 'never' }));
      const seen: Record<string, unknown>[] = [];
      for await (const e of stream) {
        const images = afterImages(e);
        seen.push(...images);
        if (images.length && seen.length === 2)
          await server.sql(
            'ALTER TABLE s.t CHANGE label title VARCHAR(10) CHARACTER SET latin1; INSERT INTO s.t VALUES (2, 2, 2, ' +
              "'a', 'y', 'z');",
          );
        if (seen.length === 3) break;
      }
      expect(Object.keys(seen[2]!)).toEqual(['id', 'big', 'small', 'kind', 'tags', 'title']);
      expect(seen[2]).toMatchObject({ id: 2, title: 'z', kind: 'a', tags: ['y'] });
    },
    TIMEOUT,
  );
});
