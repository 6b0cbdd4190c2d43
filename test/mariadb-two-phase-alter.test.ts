/**
 * MariaDB's two-phase ALTER (binlog_alter_two_phase=ON) on a real NO_LOG primary: the server logs the ALTER
 * twice, as START ALTER (GTID flag FL_START_ALTER_E1) when it begins and as COMMIT ALTER (FL_COMMIT_ALTER_E1,
 * with the START's sequence number) when it is done, or as ROLLBACK ALTER when it fails. Rows other
 * connections write while an online ALTER runs are logged between the two with the old shape. The schema
 * history must change the table at COMMIT ALTER only, and never on ROLLBACK ALTER.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GtidEvent } from '../generated/mariadb.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { SchemaHistory } from '../runtime/tables/history.js';
import { databaseCharsetsFromSql, tableDefinitionsFromSql } from '../runtime/tables/schema-file.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';
import type { RowsEventOf as RowsEvent } from './support/rows.js';

const SCHEMA = `
  CREATE DATABASE shop;
  CREATE TABLE shop.t (id INT UNSIGNED NOT NULL PRIMARY KEY, a INT, pad CHAR(255)) ENGINE=InnoDB;
  INSERT INTO shop.t SELECT seq, seq % 7, REPEAT('p', 255) FROM shop.seq_1_to_300000;`;

/** The online ALTER the concurrent inserts run against: it rebuilds the table without locking it. */
const ONLINE_ALTER = 'ALTER TABLE t ADD COLUMN b INT UNSIGNED AFTER a, FORCE, ALGORITHM=INPLACE, LOCK=NONE';
/** Fails on the duplicate values of a after the server has logged its START ALTER. */
const FAILING_ALTER = 'ALTER TABLE t ADD COLUMN x INT, ADD UNIQUE KEY (a), ALGORITHM=COPY';

const ROOT = join(import.meta.dirname, '..');

/** At most this many inserts run while the online ALTER does. */
const MAX_CONCURRENT_INSERTS = 200;

/** Inserts rows from their own connections, one after another, until the ALTER is done. */
async function insertWhile(server: MariadbServer, alter: Promise<string>): Promise<number> {
  let done = false;
  const stop = () => (done = true);
  void alter.then(stop, stop); // a failed ALTER stops the inserts too, and is thrown below
  let n = 0;
  while (!done && n < MAX_CONCURRENT_INSERTS) {
    await server.sql(`INSERT INTO t (id, a) VALUES (${1_000_000 + n}, -${n + 1})`, 'shop');
    n++;
  }
  await alter;
  return n;
}

describeWithServer('MariaDB two-phase ALTER: the shape changes at COMMIT ALTER', () => {
  let bytes: Uint8Array;
  let events: BinlogEvent[];
  let schemaSql: string;
  let inserted: number;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-two-phase-'));
    const server = await startMariadb({ rowMetadata: 'NO_LOG', extraArgs: ['--binlog-alter-two-phase=ON'] });
    try {
      await server.sql(SCHEMA);
      schemaSql = await server.dumpSchema('shop');
      await server.flushLogs();
      inserted = await insertWhile(server, server.sql(ONLINE_ALTER, 'shop'));
      await server.sql('INSERT INTO t VALUES (2000000, 1, 4000000000, NULL)', 'shop');
      await expect(server.sql(FAILING_ALTER, 'shop')).rejects.toThrow(/Duplicate entry/);
      await server.sql('INSERT INTO t VALUES (2000001, 2, 4000000001, NULL)', 'shop');
      await server.flushLogs();
      const file = (await server.binlogFiles())[1]!;
      bytes = new Uint8Array(readFileSync(file));
      events = decodeBinlog(bytes);
    } finally {
      await server.stop();
    }
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  const isGtid = (e: BinlogEvent): e is BinlogEvent & GtidEvent => e.type === 'GTID_EVENT' && 'seqNo' in e;
  /** FL_START_ALTER_E1 | FL_COMMIT_ALTER_E1 | FL_ROLLBACK_ALTER_E1 (2, 4, 8 in MariaDB's log_event.h). */
  const TWO_PHASE = 14;
  /** The two-phase GTID events, in order: their index, phase flag, sequence number and that of their START. */
  const phases = () =>
    events
      .map((e, index) => ({ e, index }))
      .filter(({ e }) => isGtid(e) && ((e.flagsExtra ?? 0) & TWO_PHASE) !== 0)
      .map(({ e, index }) => {
        const g = e as GtidEvent;
        return { index, flags: g.flagsExtra! & TWO_PHASE, seqNo: g.seqNo, start: g.startAlterId };
      });

  /** The rows written to shop.t, each with the index of its event. */
  const rowsOfT = (list: BinlogEvent[]) =>
    list.flatMap((e, index) =>
      'rows' in e && Array.isArray(e.rows) && (e as RowsEvent).table === 'shop.t'
        ? (e as RowsEvent).rows!.map((r) => ({ index, after: r.after }))
        : [],
    );

  it('the server logged START and COMMIT of the online ALTER, START and ROLLBACK of the failing one', () => {
    const p = phases();
    // FL_START_ALTER_E1 = 2, FL_COMMIT_ALTER_E1 = 4, FL_ROLLBACK_ALTER_E1 = 8 (MariaDB's log_event.h).
    expect(p.map((x) => x.flags)).toEqual([2, 4, 2, 8]);
    expect(p[1]!.start).toBe(p[0]!.seqNo);
    expect(p[3]!.start).toBe(p[2]!.seqNo);
    // Some of the concurrent inserts were logged between the online ALTER's START and its COMMIT.
    const between = events.slice(p[0]!.index, p[1]!.index).filter((e) => e.type.startsWith('WRITE_ROWS_EVENT'));
    expect(between.length).toBeGreaterThan(0);
  });

  it('rows logged between START and COMMIT ALTER are read with the old shape, those after with the new', () => {
    const lines: string[] = [];
    const history = new SchemaHistory({
      seed: tableDefinitionsFromSql(schemaSql),
      databases: databaseCharsetsFromSql(schemaSql),
      report: (l) => lines.push(l),
    });
    const rows = rowsOfT(decodeBinlog(bytes, { schemaHistory: history }));
    const commit = phases()[1]!.index;
    // The concurrent inserts, in order: those logged before the COMMIT ALTER have the old shape, named.
    const concurrent = rows.slice(0, inserted);
    for (const [n, { index, after }] of concurrent.entries()) {
      const old = { id: 1_000_000 + n, a: -(n + 1), pad: null };
      expect(after).toEqual(index < commit ? old : { ...old, b: null });
    }
    expect(rows.slice(inserted).map((r) => r.after)).toEqual([
      { id: 2000000, a: 1, b: 4000000000, pad: null },
      { id: 2000001, a: 2, b: 4000000001, pad: null },
    ]);
    expect([lines, history.contradictions]).toEqual([[], 0]);
    expect(history.changes.map((c) => c.statement)).toEqual([ONLINE_ALTER]);
  });

  it('binlog dump --schema-file reads them alike, and --schema-history keeps the ALTER at its COMMIT', () => {
    const schema = join(tmp, 'schema.sql');
    const binlog = join(tmp, 'binlog.000002');
    const kept = join(tmp, 'history.jsonl');
    writeFileSync(schema, schemaSql);
    writeFileSync(binlog, bytes);
    const args = ['dump', '--schema-file', schema, `--schema-history=${kept}`, binlog];
    const out = spawnSync(process.execPath, [join(ROOT, 'bin', 'binlog'), ...args], { encoding: 'utf8' });
    expect([out.status, out.stderr]).toEqual([0, '']);
    const written = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.table === 'shop.t' && Array.isArray(e.rows));
    expect(written[0].rows[0].after).toEqual({ id: 1_000_000, a: -1, pad: null });
    expect(written.at(-1).rows[0].after).toEqual({ id: 2000001, a: 2, b: 4000000001, pad: null });
    const entries = readFileSync(kept, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const commit = phases()[1]!;
    expect(entries.map((e) => [e.statement, e.gtid])).toEqual([[ONLINE_ALTER, `0-1-${commit.seqNo}`]]);
  });
});
