/**
 * `binlog sql` and `binlog flashback` read with the schema history on MariaDB's defaults
 * (binlog_row_metadata=NO_LOG): the schema file is `mariadb-dump --no-data` taken before the binlog, which
 * ALTERs the table twice between its rows (a column added with the high bit set and one renamed, then one
 * dropped). The script of the whole file, applied to a second server that holds the start, gives the first
 * server's table; the undo of the changes after the last ALTER, read from the file's start, gives the table
 * as the ALTER left it. Without the history both were refused at the first TABLE_MAP after the ALTER.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, findMariadb, type MariadbServer, replay, startMariadb } from './support/mariadb.js';

const root = join(import.meta.dirname, '..');

function binlog(args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const START = `CREATE DATABASE s;
  CREATE TABLE s.a (id INT UNSIGNED PRIMARY KEY, name VARCHAR(20) CHARACTER SET utf8mb4, qty INT);
  INSERT INTO s.a VALUES (1, 'one', 1), (2, 'two', 2);`;
const FIRST = `INSERT INTO s.a VALUES (4000000000, '漢字 😀', -1);
  UPDATE s.a SET qty = 5 WHERE id = 1;
  ALTER TABLE s.a ADD COLUMN extra INT UNSIGNED AFTER id, RENAME COLUMN name TO label;
  INSERT INTO s.a VALUES (4000000001, 3000000000, 'x', 2);
  UPDATE s.a SET extra = 4294967295 WHERE id = 1;
  DELETE FROM s.a WHERE id = 2;`;
const SECOND = 'ALTER TABLE s.a DROP COLUMN qty;';
const LAST = `INSERT INTO s.a VALUES (5, 4000000005, 'ü');
  UPDATE s.a SET label = 'uno', extra = 3999999999 WHERE id = 1;
  DELETE FROM s.a WHERE id = 4000000000;`;

const state = (s: MariadbServer) => s.query('SELECT *, HEX(label) FROM s.a ORDER BY id');

describeWithServer(
  'sql and flashback of NO_LOG files with an ALTER between the rows, through the schema history',
  () => {
    let server: MariadbServer;
    let target: MariadbServer;
    let tmp: string;
    let file: string;
    let schema: string;
    let beforeSecond: number;
    let afterSecond: number;
    let altered: unknown;
    let end: unknown;
    const bin = findMariadb()!;
    const position = async () => Number((await server.query('SHOW MASTER STATUS'))[0]![1]);

    beforeAll(async () => {
      tmp = mkdtempSync(join(tmpdir(), 'binlog-history-sql-'));
      [server, target] = await Promise.all([startMariadb({ rowMetadata: 'NO_LOG' }), startMariadb()]);
      await Promise.all([server.sql(START), target.sql(START)]);
      await server.flushLogs();
      schema = join(tmp, 'start.sql');
      writeFileSync(schema, await server.dumpSchema('s'));
      await server.sql(FIRST);
      beforeSecond = await position();
      await server.sql(SECOND);
      afterSecond = await position();
      altered = await state(server);
      await server.sql(LAST);
      await server.flushLogs();
      end = await state(server);
      file = (await server.binlogFiles()).at(-2)!;
    }, 180_000);
    afterAll(async () => {
      await Promise.all([server?.stop(), target?.stop()]);
      rmSync(tmp, { recursive: true, force: true });
    });

    it('the workload’s end is the table the test expects', () => {
      expect(end).toEqual([
        ['1', '3999999999', 'uno', '756E6F'],
        ['5', '4000000005', 'ü', 'C3BC'],
        ['4000000001', '3000000000', 'x', '78'],
      ]);
    });

    it(
      'binlog sql --schema-file of the whole file, applied to the start, gives the end; ' +
        '--schema-history keeps both ALTERs',
      async () => {
        const kept = join(tmp, 'history.jsonl');
        const r = binlog(['sql', '--schema-file', schema, `--schema-history=${kept}`, file]);
        expect([r.code, r.stderr]).toEqual([0, '']);
        // Every change is a named statement: no positional INSERT or BINLOG statement was needed.
        expect(r.stdout).not.toMatch(/BINLOG '|names no columns/);
        expect(r.stdout).toContain('`label`');
        await target.sql(r.stdout);
        expect(await state(target)).toEqual(end);
        const entries = readFileSync(kept, 'utf8').trim().split('\n');
        expect(entries.map((l) => JSON.parse(l).statement)).toEqual([
          'ALTER TABLE s.a ADD COLUMN extra INT UNSIGNED AFTER id, RENAME COLUMN name TO label',
          SECOND.slice(0, -1),
        ]);
      },
      120_000,
    );

    it(
      'binlog flashback --schema-file of the changes after the last ALTER ' + 'gives the table as that ALTER left it',
      async () => {
        const out = join(tmp, 'undo.bin');
        const fb = binlog(['flashback', '--schema-file', schema, `--start-position=${afterSecond}`, file, '-o', out]);
        expect([fb.code, fb.stderr]).toEqual([0, '']);
        const r = await replay(bin.binlogTool, bin.client, out, server.socket);
        expect([r.dump, r.client, r.stderr]).toEqual([0, 0, '']);
        expect(await state(server)).toEqual(altered);
        // The same undo as SQL, applied after the changes are made again.
        const redo = await replay(bin.binlogTool, bin.client, file, server.socket, {
          dump: [`--start-position=${afterSecond}`],
        });
        expect([redo.dump, redo.client, redo.stderr]).toEqual([0, 0, '']);
        expect(await state(server)).toEqual(end);
        const undo = binlog(['sql', '--flashback', '--schema-file', schema, `--start-position=${afterSecond}`, file]);
        expect([undo.code, undo.stderr]).toEqual([0, '']);
        expect(undo.stdout).not.toMatch(/BINLOG '|names no columns/);
        await server.sql(undo.stdout);
        expect(await state(server)).toEqual(altered);
      },
      120_000,
    );

    it('binlog flashback refuses a window that holds the ALTER, naming it', () => {
      const fb = binlog([
        'flashback',
        '--schema-file',
        schema,
        `--start-position=${beforeSecond}`,
        file,
        '-o',
        join(tmp, 'x.bin'),
      ]);
      expect(fb.code).toBe(1);
      expect(fb.stderr).toContain('a statement (ALTER TABLE s.a DROP COLUMN qty) cannot be undone by rows');
    });
  },
);
