/**
 * `binlog sql` and `--flashback` with `--key-file` on the files of a real MariaDB encrypt_binlog server (AES_CTR,
 * key 1 among others): the forward SQL, replayed on a plain server, gives the encrypted server's tables; the undo
 * SQL of every file, replayed after it, takes out every row the files wrote, and so does flashback's undo binlog.
 * Without the key, sql exits 7.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBinlog } from './support/cli.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const TIMEOUT = 240_000;
const TABLES = 'e.a, e.m';

const SCHEMA = `CREATE DATABASE e;
   CREATE TABLE e.a (id INT PRIMARY KEY, s VARCHAR(300), d DECIMAL(10,3), b BLOB) ENGINE=InnoDB;
   CREATE TABLE e.m (k BIGINT UNSIGNED PRIMARY KEY, j JSON) ENGINE=InnoDB;`;

const WORKLOAD = [
  ...Array.from(
    { length: 12 },
    (_, i) =>
      `INSERT INTO e.a VALUES (${i}, REPEAT('s', ${i * 11}), ${i}.125, ${i % 3 ? `REPEAT(x'a5', ${i * 5})` : 'NULL'});
       INSERT INTO e.m VALUES (${i * 1000003}, '{"i": ${i}}');`,
  ),
  `BEGIN; UPDATE e.a SET s = CONCAT(s, 'u'), d = -d WHERE id % 4 = 0; DELETE FROM e.a WHERE id % 5 = 1; COMMIT;`,
  `UPDATE e.m SET j = JSON_SET(j, '$.u', true) WHERE k < 5000000;`,
];

describeWithServer('sql and flashback of MariaDB encrypt_binlog files, with --key-file', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'binlog-encrypted-sql-'));
  const keyFile = join(tmp, 'keys');
  let source: MariadbServer;
  let target: MariadbServer;
  let files: string[];

  beforeAll(async () => {
    writeFileSync(keyFile, `2;${'11'.repeat(16)}\n1;${'7e'.repeat(32)}\n`);
    [source, target] = await Promise.all([
      startMariadb({
        extraArgs: [
          '--plugin-load-add=file_key_management',
          `--file-key-management-filename=${keyFile}`,
          '--file-key-management-encryption-algorithm=AES_CTR',
          '--encrypt-binlog=ON',
        ],
      }),
      startMariadb({ extraArgs: ['--server-id=2'] }),
    ]);
    // The tables are made before the files read: an undo takes rows out, and refuses to undo DDL.
    await Promise.all([source.sql(SCHEMA), target.sql(SCHEMA)]);
    await source.flushLogs();
    const before = (await source.binlogFiles()).length - 1;
    for (const [i, sql] of WORKLOAD.entries()) {
      await source.sql(sql);
      if (i === 6) await source.flushLogs();
    }
    await source.flushLogs();
    files = (await source.binlogFiles()).slice(before, -1);
    expect(files.length).toBe(2);
  }, TIMEOUT);
  afterAll(async () => {
    await Promise.all([source?.stop(), target?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  }, TIMEOUT);

  it(
    'the forward SQL gives the tables, the undo SQL takes every row out again; without the key sql exits 7',
    async () => {
      const forward = await runBinlog(['sql', `--key-file=${keyFile}`, ...files]);
      expect(forward.stderr).toBe('');
      expect(forward.status).toBe(0);
      await target.sql(forward.stdout);
      const checksums = (s: MariadbServer) => s.query(`CHECKSUM TABLE ${TABLES} EXTENDED`);
      expect(await checksums(target)).toEqual(await checksums(source));
      expect(Number((await target.query('SELECT COUNT(*) FROM e.a'))[0]![0])).toBeGreaterThan(5);

      const undo = await runBinlog(['sql', '--flashback', `--key-file=${keyFile}`, ...files]);
      expect(undo.stderr).toBe('');
      expect(undo.status).toBe(0);
      await target.sql(undo.stdout);
      expect(await target.query('SELECT (SELECT COUNT(*) FROM e.a) + (SELECT COUNT(*) FROM e.m)')).toEqual([['0']]);

      // The same again through flashback's undo binlog, which is written in clear.
      await target.sql(forward.stdout);
      expect(await checksums(target)).toEqual(await checksums(source));
      const undoFile = join(tmp, 'undo.bin');
      const flashback = await runBinlog(['flashback', `--key-file=${keyFile}`, ...files, '-o', undoFile]);
      expect([flashback.status, flashback.stderr]).toEqual([0, '']);
      const undoSql = await runBinlog(['sql', undoFile]);
      expect(undoSql.status).toBe(0);
      await target.sql(undoSql.stdout);
      expect(await target.query('SELECT (SELECT COUNT(*) FROM e.a) + (SELECT COUNT(*) FROM e.m)')).toEqual([['0']]);

      const keyless = await runBinlog(['sql', ...files]);
      expect(keyless.status).toBe(7);
      expect(keyless.stderr).toMatch(/are encrypted \(encrypt_binlog\) and cannot be read without key id 1/);
    },
    TIMEOUT,
  );
});
