/**
 * `binlog sql` and `binlog flashback` against a real MariaDB (binlog_row_metadata=FULL): a workload over
 * every kind of column, and the classic accident (an UPDATE and a DELETE without WHERE). The server
 * itself says whether the SQL and the undo binlog give the states they must: CHECKSUM TABLE and the
 * tables' full contents, each value as HEX.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithServer, findMariadb, type MariadbServer, replay, startMariadb } from './support/mariadb.js';

const root = join(import.meta.dirname, '..');

function binlog(args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const COLUMNS = [
  'id INT PRIMARY KEY',
  'u VARCHAR(40) CHARACTER SET utf8mb4',
  'l VARCHAR(40) CHARACTER SET latin1',
  'g VARCHAR(40) CHARACTER SET gbk',
  's CHAR(10) CHARACTER SET sjis',
  'dt DATETIME(6)',
  'tm TIME(6)',
  'ts TIMESTAMP(6) NULL',
  'd DATE',
  'y YEAR',
  'b BIT(64)',
  "e ENUM('a','b','ü')",
  "st SET('x','y','z')",
  'dec65 DECIMAL(65,30)',
  'bl BLOB',
  'tx TEXT CHARACTER SET utf8mb4',
  'j JSON',
  'f FLOAT',
  'db DOUBLE',
  'i8 BIGINT',
  'u8 BIGINT UNSIGNED',
  'vb VARBINARY(20)',
];
const NAMES = COLUMNS.map((c) => c.split(' ')[0]!);
const ROW_1 = `1, 'héllo 😀 \\\\ ''q''', 'café', '中文字符', 'ｶﾀｶﾅ漢字', '2020-01-02 03:04:05.123456', '-838:59:59.000000', '2038-01-19 03:14:07.999999', '0000-00-00', 1901, b'1111111111111111111111111111111111111111111111111111111111111111', 'ü', 'x,z', '-12345678901234567890123456789012345.123456789012345678901234567890', x'00ff0a27', 'multi\\nline', '{"k": [1, 2.5, "s"]}', 3.40282e38, -1.7976931348623157e308, -9223372036854775808, 18446744073709551615, x'000102'`;
const ROW_2 = `2, 'ascii', 'x', 'y', 'z', '1000-01-01 00:00:00.000001', '00:00:00.5', '1970-01-01 00:00:01', '9999-12-31', 2155, b'0', 'a', '', '0.000000000000000000000000000001', '', '', '[]', 1.17549435e-38, 5e-324, 0, 0, ''`;
const ROW_3 = `3, ${NAMES.slice(1).map(() => 'NULL').join(', ')}`;

const SCHEMA = `SET sql_mode = ''; CREATE DATABASE w; CREATE TABLE w.t (${COLUMNS.join(', ')});
  INSERT INTO w.t VALUES (${ROW_1}), (${ROW_2}), (${ROW_3});
  CREATE DATABASE acc;
  CREATE TABLE acc.t (id INT PRIMARY KEY, c INT, name VARCHAR(20));
  CREATE TABLE acc.other (id INT PRIMARY KEY, v INT);
  INSERT INTO acc.t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three');
  INSERT INTO acc.other VALUES (1, 100);`;

const WORKLOAD = `SET sql_mode = '';
  INSERT INTO w.t VALUES (${ROW_1.replace(/^1,/, '4,')});
  UPDATE w.t SET u = 'ändert 𝄞', l = 'ÿ', g = '汉', s = 'ｱ', dt = '2001-02-03 04:05:06.000007', tm = '12:00:00.1', ts = '2001-01-01 00:00:00.5',
    d = '2001-01-01', y = 2000, b = b'10', e = 'b', st = 'y', dec65 = '1.5', bl = x'ff', tx = 'neu', j = '{"a": null}', f = -0.1, db = 0.1,
    i8 = -1, u8 = 9223372036854775808, vb = x'ff00' WHERE id IN (1, 2);
  UPDATE w.t SET u = NULL, f = NULL, b = NULL WHERE id = 4;
  UPDATE w.t SET u = 'was null', tm = '-00:00:01.000001' WHERE id = 3;
  DELETE FROM w.t WHERE id = 2;
  BEGIN; INSERT INTO w.t (id, u) VALUES (5, 'a'), (6, 'b'); UPDATE w.t SET id = 7 WHERE id = 5; DELETE FROM w.t WHERE id = 6; COMMIT;`;

/** Every table's content, each value as HEX (NULL as null), and CHECKSUM TABLE. */
async function state(s: MariadbServer, table: string, columns: string[]): Promise<unknown> {
  const rows = await s.query(`SELECT ${columns.map((c) => `HEX(\`${c}\`)`).join(', ')} FROM ${table} ORDER BY id`);
  return { rows, checksum: await s.query(`CHECKSUM TABLE ${table}`) };
}

describeWithServer('binlog sql and binlog flashback, applied by MariaDB', () => {
  let server: MariadbServer;
  let tmp: string;
  let workload: string;
  let start: unknown;
  let end: unknown;
  const bin = findMariadb()!;
  const wState = () => state(server, 'w.t', NAMES);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-sql-'));
    server = await startMariadb();
    await server.sql(SCHEMA);
    await server.flushLogs();
    start = await wState();
    await server.sql(WORKLOAD);
    await server.flushLogs();
    end = await wState();
    workload = (await server.binlogFiles()).at(-2)!;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('the workload changed every column', () => {
    expect(end).not.toEqual(start);
  });

  it('--flashback SQL restores the start, the SQL gives the end again, the undo binlog the start again', async () => {
    const undo = binlog(['sql', '--flashback', workload]);
    expect(undo.stderr).toBe('');
    expect(undo.code).toBe(0);
    await server.sql(undo.stdout);
    expect(await wState()).toEqual(start);

    const forward = binlog(['sql', '--rows-only', workload]);
    expect(forward.code).toBe(0);
    expect(forward.stdout).toMatch(/^-- binlog\.\d+:\d+, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, GTID 0-1-\d+$/m);
    expect(forward.stdout).toContain("_gbk X'BABA'"); // 汉 as gbk's bytes
    await server.sql(forward.stdout);
    expect(await wState()).toEqual(end);

    const out = join(tmp, 'undo.bin');
    const fb = binlog(['flashback', workload, '-o', out]);
    expect(fb.stderr).toBe('');
    expect(fb.code).toBe(0);
    const r = await replay(bin.binlogTool, bin.client, out, server.socket);
    expect(r.stderr).toBe('');
    expect([r.dump, r.client]).toEqual([0, 0]);
    expect(await wState()).toEqual(start);
  }, 120_000);

  it('the classic accident: UPDATE and DELETE without WHERE undone by position and --table, the other table left as it is', async () => {
    const before = await state(server, 'acc.t', ['id', 'c', 'name']);
    const [file, pos] = (await server.query('SHOW MASTER STATUS'))[0]!;
    await server.sql(`UPDATE acc.t SET c = 0; DELETE FROM acc.t; INSERT INTO acc.other VALUES (2, 200); UPDATE acc.other SET v = v + 1;`);
    await server.flushLogs();
    const other = await state(server, 'acc.other', ['id', 'v']);
    expect(await state(server, 'acc.t', ['id', 'c', 'name'])).not.toEqual(before);

    const path = (await server.binlogFiles()).find((f) => f.endsWith(`/${file}`))!;
    const out = join(tmp, 'accident.bin');
    const fb = binlog(['flashback', `--start-position=${pos}`, '--table=acc.t', path, '-o', out]);
    expect(fb.stderr).toBe('');
    expect(fb.code).toBe(0);
    const r = await replay(bin.binlogTool, bin.client, out, server.socket);
    expect([r.dump, r.client, r.stderr]).toEqual([0, 0, '']);
    expect(await state(server, 'acc.t', ['id', 'c', 'name'])).toEqual(before);
    expect(await state(server, 'acc.other', ['id', 'v'])).toEqual(other);
  }, 120_000);

  it('refuses to undo DDL, naming the event, and writes no file', () => {
    const first = join(tmp, 'ddl.bin');
    const r = binlog(['flashback', workload.replace(/\d+$/, (n) => String(Number(n) - 1).padStart(n.length, '0')), '-o', first]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/QUERY_EVENT at binlog\.\d+:\d+.*cannot be undone by rows|cannot be undone by rows.*QUERY_EVENT at/);
    expect(existsSync(first)).toBe(false);
  });
});
