/**
 * `binlog sql`, `sql --flashback`, `flashback` and `dump` on MariaDB's defaults (binlog_row_metadata=NO_LOG),
 * where a TABLE_MAP names no columns: with the definitions of the tables as they are now (the three kinds
 * of option) and without any. The workload ALTERs a column between its changes, so that the definitions
 * of now do not fit the TABLE_MAPs from before: those are read only when the filters keep them. Every
 * script and undo binlog is applied by the server, whose tables' contents say whether it did what it must.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, findMariadb, type MariadbServer, replay, startMariadb } from './support/mariadb.js';
import { joinedRegExp } from './support/regex.js';

const root = join(import.meta.dirname, '..');

function binlog(args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const SCHEMA = `CREATE DATABASE s;
  CREATE TABLE s.p (id INT PRIMARY KEY, name VARCHAR(40), phone VARCHAR(200), n INT UNSIGNED, k TINYINT, d DATETIME(3));
  CREATE TABLE s.q (id INT PRIMARY KEY, v BIGINT UNSIGNED, t TEXT);
  INSERT INTO s.p VALUES (1, 'one', '111', 4000000000, -1, '2020-01-01 00:00:00.5'), (2, 'twö', '222', 1, 2, NULL),
    (3, 'three', NULL, NULL, NULL, '1999-12-31 23:59:59.999');
  INSERT INTO s.q VALUES (1, 18446744073709551615, 'x'), (2, 20, NULL);`;

/**
 * The changes before the ALTER and the ALTER at a time after the server's own events (those of the file's
 * start), the changes after it an hour later: a start time between them leaves the first out.
 */
const EARLY = Math.floor(Date.now() / 1000) + 3600;
const LATE = EARLY + 3600;
const BEFORE_ALTER = `SET timestamp = ${EARLY}; UPDATE s.p SET phone = '999', k = -5 WHERE id = 1;
  ALTER TABLE s.p MODIFY phone VARCHAR(30);`;
const AFTER_ALTER = `SET timestamp = ${LATE};
  INSERT INTO s.p VALUES (4, 'four', '444', 4294967295, -128, '2001-02-03 04:05:06.789');
  UPDATE s.p SET name = 'TWO', n = n + 1, k = -100 WHERE id = 2;
  DELETE FROM s.p WHERE id = 3;
  UPDATE s.q SET v = v - 1, t = 'changed';
  DELETE FROM s.q WHERE id = 2;
  INSERT INTO s.q VALUES (3, 9223372036854775808, 'new');`;

async function state(s: MariadbServer): Promise<unknown> {
  const p = await s.query('SELECT id, HEX(name), HEX(phone), n, k, d FROM s.p ORDER BY id');
  const q = await s.query('SELECT id, v, HEX(t) FROM s.q ORDER BY id');
  return { p, q, checksum: await s.query('CHECKSUM TABLE s.p, s.q') };
}

describeWithServer('SQL and undo binlogs of NO_LOG files, with the definitions of now and without any', () => {
  let server: MariadbServer;
  let tmp: string;
  let file: string;
  let afterAlter: number;
  let schemaNow: string;
  let mid: unknown;
  let end: unknown;
  const bin = findMariadb()!;
  /** The changes after the ALTER applied again by mariadb-binlog, from the state at the ALTER. */
  const redo = () =>
    replay(bin.binlogTool, bin.client, file, server.socket, { dump: [`--start-position=${afterAlter}`] });

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-no-log-'));
    server = await startMariadb({ rowMetadata: 'NO_LOG' });
    await server.sql(SCHEMA);
    await server.flushLogs();
    await server.sql(BEFORE_ALTER);
    mid = await state(server);
    afterAlter = Number((await server.query('SHOW MASTER STATUS'))[0]![1]);
    await server.sql(AFTER_ALTER);
    await server.flushLogs();
    end = await state(server);
    file = (await server.binlogFiles()).at(-2)!;
    schemaNow = join(tmp, 'schema-now.sql');
    writeFileSync(schemaNow, await server.dumpSchema('s'));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'a definition that does not fit a TABLE_MAP the filters keep leaves the schema history, said, ' + 'and sql exits 7',
    () => {
      const r = binlog(['sql', '--schema-file', schemaNow, file]);
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(
        joinedRegExp(
          /column phone: the TABLE_MAP's metadata says maxLength 200, the definition's /,
          /VARCHAR\(30\).* gives 30 .*it leaves the schema history/,
        ),
      );
      // The table's rows are then written in the forms that need no names.
      expect(r.stdout).toMatch(/BINLOG statement of the UPDATE_ROWS_EVENT(_V1)? and its TABLE_MAP/);
    },
  );

  it('definitions are checked only on what the start position, the start time and the table filter keep', () => {
    const late = new Date(LATE * 1000).toISOString().slice(0, 19).replace('T', ' ');
    for (const filter of [`--start-position=${afterAlter}`, `--start-datetime=${late}`, '--table=s.q']) {
      for (const command of [['sql'], ['sql', '--flashback'], ['dump']]) {
        const r = binlog([...command, '--schema-file', schemaNow, filter, file]);
        expect([command, filter, r.code, r.stderr]).toEqual([command, filter, 0, '']);
      }
      const undo = binlog(['flashback', '--schema-file', schemaNow, filter, file, '-o', join(tmp, 'filtered.bin')]);
      expect([filter, undo.code, undo.stderr]).toEqual([filter, 0, '']);
    }
  });

  /** The definitions of now in each of the three forms the options take. */
  const definitionArgs = (): Record<string, string[]> => {
    const p = 'id INT PRIMARY KEY, name VARCHAR(40), phone VARCHAR(30), n INT UNSIGNED, k TINYINT, d DATETIME(3)';
    const q = 'id INT PRIMARY KEY, v BIGINT UNSIGNED, t TEXT';
    const defs = join(tmp, 'defs.json');
    writeFileSync(defs, JSON.stringify({ 's.p': `CREATE TABLE p (${p})`, 's.q': `CREATE TABLE q (${q})` }));
    return {
      '--schema-file': ['--schema-file', schemaNow],
      '--table-def': ['--table-def', `s.p=CREATE TABLE p (${p})`, '--table-def', `s.q=CREATE TABLE q (${q})`],
      '--table-defs': ['--table-defs', defs],
    };
  };

  it(
    'binlog flashback with each kind of definition ' + 'gives an undo binlog that mariadb-binlog | mariadb applies',
    async () => {
      for (const [kind, args] of Object.entries(definitionArgs())) {
        const out = join(tmp, `undo${kind}.bin`);
        const fb = binlog(['flashback', ...args, `--start-position=${afterAlter}`, file, '-o', out]);
        expect([kind, fb.code, fb.stderr]).toEqual([kind, 0, '']);
        const r = await replay(bin.binlogTool, bin.client, out, server.socket);
        expect([kind, r.dump, r.client, r.stderr]).toEqual([kind, 0, 0, '']);
        expect(await state(server)).toEqual(mid);
        const again = await redo();
        expect([again.dump, again.client, again.stderr]).toEqual([0, 0, '']);
        expect(await state(server)).toEqual(end);
      }
    },
    120_000,
  );

  it(
    'without definitions, sql --flashback and sql give positional INSERTs and BINLOG statements ' +
      'that the server applies',
    async () => {
      const undo = binlog(['sql', '--flashback', `--start-position=${afterAlter}`, file]);
      expect([undo.code, undo.stderr]).toEqual([0, '']);
      // The deleted row 3 comes back by a positional INSERT; the insert of row 4 and the updates are undone by BINLOG.
      expect(undo.stdout).toContain(
        '-- `s`.`p` names no columns (binlog_row_metadata=FULL does): positional INSERT, ' +
          'values in column order\nINSERT INTO `s`.`p` VALUES (3, ',
      );
      expect(undo.stdout).toMatch(
        /BINLOG statement of the DELETE_ROWS_EVENT(_V1)? and its TABLE_MAP\nBINLOG '\n[A-Za-z0-9+/=\n]+'/,
      );
      // The FORMAT_DESCRIPTION's BINLOG statement comes first, before any of the rows'.
      expect(undo.stdout.indexOf("BINLOG '")).toBeLessThan(undo.stdout.indexOf('-- `s`'));
      await server.sql(undo.stdout);
      expect(await state(server)).toEqual(mid);

      const forward = binlog(['sql', `--start-position=${afterAlter}`, file]);
      expect([forward.code, forward.stderr]).toEqual([0, '']);
      // Row 4's n is 4294967295, whose signedness NO_LOG leaves out: its INSERT is a BINLOG statement too.
      expect(forward.stdout).toMatch(/BINLOG statement of the WRITE_ROWS_EVENT(_V1)? and its TABLE_MAP/);
      expect(forward.stdout).toMatch(/BINLOG statement of the UPDATE_ROWS_EVENT(_V1)? and its TABLE_MAP/);
      await server.sql(forward.stdout);
      expect(await state(server)).toEqual(end);
    },
    120_000,
  );
});
