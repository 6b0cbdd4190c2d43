/**
 * `binlog sql -R --snapshot --stop-never` against a real MariaDB while a writer commits small transactions
 * throughout the snapshot, and one ALTER TABLE during it: the script, replayed by `mariadb` into a fresh
 * server, gives tables identical to the source's, compared whole, under binlog_row_metadata FULL and
 * NO_LOG (where the snapshot's definitions name the columns of the changes after it).
 *
 * The figure is 150 000 rows; by default the tables hold 30 000 together, so that the suite stays
 * quick on a shared machine. SNAPSHOT_ROWS=150000 runs the full case.
 */
import { mkdtempSync, readFileSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBinlog } from './support/cli.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import { afterAlter, ALTER, seedSql, TABLES, wholeTable, writerTransaction } from './support/snapshot-workload.js';

const TIMEOUT = 300_000;
const ROWS = Number(process.env.SNAPSHOT_ROWS ?? 30_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function describeCase(metadata: 'FULL' | 'NO_LOG'): void {
  describeWithServer(`binlog sql -R --snapshot --stop-never, binlog_row_metadata=${metadata}`, () => {
    let source: MariadbServer;
    let copy: MariadbServer;
    let work: string;

    beforeAll(async () => {
      [source, copy] = await Promise.all([startMariadb({ rowMetadata: metadata }), startMariadb()]);
      await source.sql(TABLES);
      for (const statement of seedSql(ROWS)) await source.sql(statement);
      work = mkdtempSync(join(tmpdir(), 'binlog-snapshot-sql-'));
    }, TIMEOUT);

    afterAll(async () => {
      await Promise.all([source?.stop(), copy?.stop()]);
      if (work) rmSync(work, { recursive: true, force: true });
    }, TIMEOUT);

    it(
      'replays into a fresh server as the same tables, the changes during the snapshot and an ALTER TABLE included',
      async () => {
        const script = join(work, 'copy.sql');
        const file = createWriteStream(script);
        const sql = startBinlog([
          'sql',
          '-R',
          '--socket',
          source.socket,
          '--user',
          'root',
          '--snapshot',
          '--snapshot-chunk=500',
          '--database=app',
          '--stop-never',
        ]);
        let out = '';
        let held = false;
        const stdout = sql.child.stdout!;
        stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          file.write(d);
          // Held here, the snapshot waits on a full pipe inside its transaction while the writer commits.
          if (!held && out.includes('-- snapshot at') && !out.includes('-- snapshot ends')) {
            held = true;
            stdout.pause();
          }
        });
        let stderr = '';
        sql.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        const deadline = Date.now() + 120_000;
        while (!stdout.isPaused() && Date.now() < deadline) await sleep(20);
        expect(out).toContain('-- snapshot at');
        // Small transactions while the snapshot is read, and an ALTER TABLE it holds off until it ends.
        for (let i = 0; i < 60; i++) await source.sql(writerTransaction(i, ROWS));
        const alter = source.sql(ALTER, 'app');
        await sleep(200);
        expect(out).not.toContain('-- snapshot ends');
        stdout.resume();
        await alter;
        for (let i = 0; i < 10; i++) await source.sql(afterAlter(i));
        // The last change's transaction begins at or after the position the binlog has before it.
        const [[logFile, logPos]] = (await source.query('SHOW MASTER STATUS')) as [string, string][];
        await source.sql("INSERT INTO app.comp VALUES ('zz', -1, 0, 'last')");
        const lastAt = new RegExp(`^-- ${logFile.replace('.', '\\.')}:(\\d+),`, 'gm');
        const reached = () => [...out.matchAll(lastAt)].some((m) => Number(m[1]) >= Number(logPos));
        while (!reached() && Date.now() < deadline) await sleep(100);
        await sleep(200);
        sql.child.kill('SIGTERM');
        await sql.done;
        await new Promise((r) => file.end(r));
        const text = readFileSync(script, 'utf8');
        expect(text === out).toBe(true);
        expect(text.includes('-- snapshot ends')).toBe(true);
        expect(/ALTER TABLE pk ADD COLUMN extra/.test(text)).toBe(true);
        expect(stderr).toBe('');
        await copy.sql(text);
        for (const table of ['pk', 'comp', 'bare']) {
          const [want, got] = await Promise.all([wholeTable(source, table), wholeTable(copy, table)]);
          expect(got.length).toBe(want.length);
          expect(got).toEqual(want);
        }
        const create = async (s: MariadbServer) => (await s.query('SHOW CREATE TABLE app.pk'))[0]![1];
        expect(await create(copy)).toBe(await create(source));
      },
      TIMEOUT,
    );
  });
}

describeCase('FULL');
describeCase('NO_LOG');
