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
import { joinedRegExp } from './support/regex.js';

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
const ROW_1 =
  `1, 'héllo 😀 \\\\ ''q''', 'café', '中文字符', 'ｶﾀｶﾅ漢字', '2020-01-02 03:04:05.123456', '-838:59:59.000000', ` +
  `'2038-01-19 03:14:07.999999', '0000-00-00', 1901, ` +
  `b'1111111111111111111111111111111111111111111111111111111111111111', 'ü', 'x,z', ` +
  `'-12345678901234567890123456789012345.123456789012345678901234567890', x'00ff0a27', 'multi\\nline', '{"k": ` +
  `[1, 2.5, "s"]}', 3.40282e38, -1.7976931348623157e308, -9223372036854775808, 18446744073709551615, x'000102'`;
const ROW_2 =
  `2, 'ascii', 'x', 'y', 'z', '1000-01-01 00:00:00.000001', '00:00:00.5', '1970-01-01 00:00:01', ` +
  `'9999-12-31', 2155, b'0', 'a', '', '0.000000000000000000000000000001', '', '', '[]', 1.17549435e-38, 5e-324, 0, ` +
  `0, ''`;
const ROW_3 = `3, ${NAMES.slice(1)
  .map(() => 'NULL')
  .join(', ')}`;

const SCHEMA = `SET sql_mode = ''; CREATE DATABASE w; CREATE TABLE w.t (${COLUMNS.join(', ')});
  INSERT INTO w.t VALUES (${ROW_1}), (${ROW_2}), (${ROW_3});
  CREATE DATABASE acc;
  CREATE TABLE acc.t (id INT PRIMARY KEY, c INT, name VARCHAR(20));
  CREATE TABLE acc.other (id INT PRIMARY KEY, v INT);
  INSERT INTO acc.t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three');
  INSERT INTO acc.other VALUES (1, 100);`;

const WORKLOAD = `SET sql_mode = '';
  INSERT INTO w.t VALUES (${ROW_1.replace(/^1,/, '4,')});
  UPDATE w.t SET u = 'ändert 𝄞', l = 'ÿ', g = '汉', s = 'ｱ', dt = '2001-02-03 04:05:06.000007', tm = '12:00:00.1', \
ts = '2001-01-01 00:00:00.5',
    d = '2001-01-01', y = 2000, b = b'10', e = 'b', st = 'y', dec65 = '1.5', bl = x'ff', tx = 'neu', j = '{"a": \
null}', f = -0.1, db = 0.1,
    i8 = -1, u8 = 9223372036854775808, vb = x'ff00' WHERE id IN (1, 2);
  UPDATE w.t SET u = NULL, f = NULL, b = NULL WHERE id = 4;
  UPDATE w.t SET u = 'was null', tm = '-00:00:01.000001' WHERE id = 3;
  DELETE FROM w.t WHERE id = 2;
  BEGIN; INSERT INTO w.t (id, u) VALUES (5, 'a'), (6, 'b'); UPDATE w.t SET id = 7 WHERE id = 5; \
DELETE FROM w.t WHERE id = 6; COMMIT;`;

/** The start of the image tests, not logged: a table with blobs and one without. */
const IMAGE_START = `SET sql_log_bin = 0; DROP DATABASE IF EXISTS img; CREATE DATABASE img;
  CREATE TABLE img.b (id INT PRIMARY KEY, v INT, bl BLOB, tx TEXT);
  CREATE TABLE img.n (id INT PRIMARY KEY, v INT, s VARCHAR(10));
  INSERT INTO img.b VALUES (1, 10, x'00ff', 'one'), (2, 20, x'01', 'two');
  INSERT INTO img.n VALUES (1, 10, 'one'), (2, 20, 'two'), (3, NULL, 'three');
  SET sql_log_bin = 1;`;
/** The first change is an UPDATE of img.b's v alone, the second of its blob; img.b loses its row 2. */
const IMAGE_WORKLOAD = `UPDATE img.b SET v = v + 1; UPDATE img.b SET bl = x'02' WHERE id = 1; \
DELETE FROM img.b WHERE id = 2;
  UPDATE img.n SET v = v + 1, s = 'x' WHERE id = 1; DELETE FROM img.n WHERE id = 2; INSERT INTO img.n (id, s) VALUES \
(4, 'four');
  UPDATE img.n SET v = 0 WHERE v IS NULL;`;

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

  it(
    'the classic accident: UPDATE and DELETE without WHERE undone by position and --table, ' +
      'the other table left as it is',
    async () => {
      const before = await state(server, 'acc.t', ['id', 'c', 'name']);
      const [file, pos] = (await server.query('SHOW MASTER STATUS'))[0]!;
      await server.sql(
        `UPDATE acc.t SET c = 0; DELETE FROM acc.t; INSERT INTO acc.other VALUES (2, 200); ` +
          `UPDATE acc.other SET v = v + 1;`,
      );
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
    },
    120_000,
  );

  /** The image workload under binlog_row_image=`image`, from IMAGE_START: its binlog and the end state. */
  async function imageWorkload(image: string): Promise<{ file: string; start: unknown[]; end: unknown[] }> {
    await server.sql(IMAGE_START);
    await server.flushLogs();
    const start = await imageState();
    await server.sql(`SET SESSION binlog_row_image = '${image}'; ${IMAGE_WORKLOAD}`);
    await server.flushLogs();
    return { file: (await server.binlogFiles()).at(-2)!, start, end: await imageState() };
  }
  const imageState = async () => [
    await state(server, 'img.b', ['id', 'v', 'bl', 'tx']),
    await state(server, 'img.n', ['id', 'v', 's']),
  ];

  for (const image of ['NOBLOB', 'MINIMAL']) {
    it(`${image} images: the SQL gives the end state again from the start`, async () => {
      const { file, end } = await imageWorkload(image);
      const forward = binlog(['sql', '--rows-only', file]);
      expect([forward.code, forward.stderr]).toEqual([0, '']);
      // MINIMAL: the before image is the key alone, and so is the WHERE.
      if (image === 'MINIMAL') expect(forward.stdout).toContain('UPDATE `img`.`b` SET `v`=11 WHERE `id`=1 LIMIT 1;');
      else expect(forward.stdout).toContain('UPDATE `img`.`b` SET `id`=1, `v`=11 WHERE `id`=1 AND `v`=10 LIMIT 1;');
      await server.sql(IMAGE_START);
      await server.sql(forward.stdout);
      expect(await imageState()).toEqual(end);
    }, 120_000);
  }

  it(
    'MINIMAL images: the undo SQL and the undo binlog are refused, naming the column, ' + 'the event and its row',
    async () => {
      const { file } = await imageWorkload('MINIMAL');
      const undo = binlog(['sql', '--flashback', file]);
      expect(undo.code).toBe(1);
      expect(undo.stderr).toMatch(
        joinedRegExp(
          /^binlog: .*: the before image lacks column v, whose old value the undo must write: the /,
          /binlog does not hold it \(binlog_row_image=FULL logs it\) \[in UPDATE_ROWS_EVENT(_V1)? /,
          /at binlog\.\d+:\d+, row 1\]\n$/,
        ),
      );
      const out = join(tmp, 'minimal.bin');
      const fb = binlog(['flashback', file, '-o', out]);
      expect(fb.code).toBe(1);
      expect(fb.stderr).toMatch(
        joinedRegExp(
          /the before image lacks column v, whose old value .* \[in UPDATE_ROWS_EVENT(_V1)? at /,
          /binlog\.\d+:\d+, row 1\]\n$/,
        ),
      );
      expect(existsSync(out)).toBe(false);
    },
    120_000,
  );

  it(
    'NOBLOB images: an update of a blob is refused; the table without blobs is undone, ' +
      'by SQL and by the undo binlog',
    async () => {
      const { file, start, end } = await imageWorkload('NOBLOB');
      const undo = binlog(['sql', '--flashback', file]);
      expect(undo.code).toBe(1);
      // The UPDATE of bl (the workload's second statement): NOBLOB leaves the old blob out of its before image.
      expect(undo.stderr).toMatch(
        joinedRegExp(
          /: the before image lacks column bl, whose old value the undo must write: .* \[in /,
          /UPDATE_ROWS_EVENT(_V1)? at binlog\.\d+:\d+, row 1\]\n$/,
        ),
      );

      // The table without blobs alone: its images are whole, its undo by SQL restores it, img.b left changed.
      const n = binlog(['sql', '--flashback', '--table=img.n', file]);
      expect([n.code, n.stderr]).toEqual([0, '']);
      await server.sql(n.stdout);
      const [b, nAfter] = await imageState();
      expect([b, nAfter]).toEqual([end[0], start[1]]);

      const again = await imageWorkload('NOBLOB');
      const out = join(tmp, 'noblob.bin');
      const fb = binlog(['flashback', '--table=img.n', again.file, '-o', out]);
      expect([fb.code, fb.stderr]).toEqual([0, '']);
      const r = await replay(bin.binlogTool, bin.client, out, server.socket);
      expect([r.dump, r.client, r.stderr]).toEqual([0, 0, '']);
      expect(await imageState()).toEqual([again.end[0], again.start[1]]);
    },
    120_000,
  );

  it(
    'DDL replays in its own session: a trigger whose body holds `;`, a view that PIPES_AS_CONCAT reads, ' +
      "then rows in the script's session",
    async () => {
      await server.flushLogs();
      await server.sql(`CREATE DATABASE ddl; CREATE TABLE ddl.t (id INT PRIMARY KEY, v INT); CREATE TABLE ddl.log \
(n INT);
      DELIMITER //
      CREATE TRIGGER ddl.tr AFTER INSERT ON ddl.t FOR EACH ROW BEGIN INSERT INTO ddl.log VALUES (NEW.v); \
INSERT INTO ddl.log VALUES (NEW.v * 2); END//
      DELIMITER ;
      SET sql_mode = 'PIPES_AS_CONCAT', time_zone = '+05:00', auto_increment_increment = 5; \
CREATE VIEW ddl.v AS SELECT 'a' || 'b' AS x;
      SET sql_mode = DEFAULT, time_zone = DEFAULT, auto_increment_increment = DEFAULT; CREATE TABLE ddl.r \
(ts TIMESTAMP NULL); INSERT INTO ddl.r VALUES ('2001-02-03 04:05:06');`);
      await server.flushLogs();
      const file = (await server.binlogFiles()).at(-2)!;
      const ts = await server.query('SELECT UNIX_TIMESTAMP(ts) FROM ddl.r');
      const script = binlog(['sql', file]);
      expect([script.code, script.stderr]).toEqual([0, '']);
      expect(script.stdout).toMatch(
        joinedRegExp(
          /^DELIMITER /m,
          /(\$\$+)\nCREATE DEFINER=.*TRIGGER .*BEGIN INSERT INTO ddl\.log VALUES \(NEW\.v\); .* END\1/,
          /\nDELIMITER ;$/,
        ),
      );
      // The view's session, then the next statement's: sql_mode and auto_increment_increment back as they were.
      expect(script.stdout).toMatch(
        joinedRegExp(
          /\nSET @@session\.sql_mode = 2;\nSET @@session\.auto_increment_increment = 5, /,
          /@@session\.auto_increment_offset = 1;\nCREATE .*VIEW `ddl`\.`v`.*;\n.*\nSET /,
          /@@session\.sql_mode = \d+;\nSET @@session\.auto_increment_increment = 1, /,
          /@@session\.auto_increment_offset = 1;\nCREATE TABLE ddl\.r/,
        ),
      );
      // The row after the DDL reads in the script's session again.
      expect(script.stdout).toMatch(
        /BEGIN;\nSET NAMES utf8mb4;\nSET sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\nINSERT INTO `ddl`\.`r`/,
      );

      await server.sql('SET sql_log_bin = 0; DROP DATABASE ddl;');
      await server.sql(script.stdout);
      expect(await server.query('SELECT x FROM ddl.v')).toEqual([['ab']]);
      expect(await server.query('SELECT UNIX_TIMESTAMP(ts) FROM ddl.r')).toEqual(ts);
      await server.sql('INSERT INTO ddl.t VALUES (1, 21)');
      expect(await server.query('SELECT n FROM ddl.log ORDER BY n')).toEqual([['21'], ['42']]);
    },
    120_000,
  );

  it('refuses to undo DDL, naming the event, and writes no file', () => {
    const first = join(tmp, 'ddl.bin');
    const r = binlog([
      'flashback',
      workload.replace(/\d+$/, (n) => String(Number(n) - 1).padStart(n.length, '0')),
      '-o',
      first,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /QUERY_EVENT at binlog\.\d+:\d+.*cannot be undone by rows|cannot be undone by rows.*QUERY_EVENT at/,
    );
    expect(existsSync(first)).toBe(false);
  });
});
