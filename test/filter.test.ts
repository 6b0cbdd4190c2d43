/**
 * The filters select whole transactions: a start or stop inside one leaves it out, a table or database
 * filter keeps the frame of the transactions that touch them and only their events. Binlogs made with
 * the builder (as MariaDB writes them), hand-made event sequences for XA and payloads, and the real files
 * of issue 14.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BinlogWriter, type Table } from '../builder/index.js';
import { LengthError } from '../runtime/core/errors.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { EventSelection, type EventFilter } from '../runtime/io/filter.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { Transactions } from '../runtime/io/transactions.js';
import { describeWithFixtures, FIXTURES, fixtures, fixturesAvailable, fixturesMissing } from './support/fixtures.js';
import { findMariadb } from './support/mariadb.js';
import { describeWhen } from './support/requires.js';
import { eventHeader, looseEvent } from './support/events.js';

const T = 2_000_000_000;
type Loose = BinlogEvent & Record<string, unknown>;

/** A MariaDB binlog: setup at T, then transactions whose events are a second apart in places, and where each begins. */
function workload() {
  const w = new BinlogWriter({ timestamp: T });
  const columns = [
    { name: 'id', type: 'int' },
    { name: 'v', type: 'varchar(20)' },
  ];
  const t: Record<string, Table> = {};
  for (const [db, name] of [
    ['shop', 'items'],
    ['shop', 'users'],
    ['other', 'logs'],
  ] as const) {
    t[`${db}.${name}`] = w.createTable({ schema: db, name, columns, primaryKey: ['id'] });
  }
  // As MariaDB writes it: the GTID at commit time, the rows a second earlier.
  w.setTimestamp(T + 11).begin();
  w.setTimestamp(T + 10).insert(t['shop.items']!, [{ id: 1, v: 'a' }], { statement: 'INSERT INTO items …' });
  w.setTimestamp(T + 11).commit();
  w.setTimestamp(T + 12).begin();
  w.insert(t['shop.items']!, [{ id: 2, v: 'b' }], { statement: 'INSERT INTO items …' });
  w.insert(t['other.logs']!, [{ id: 1, v: 'log' }], { statement: 'INSERT INTO other.logs …' });
  w.insert(t['shop.users']!, [{ id: 1, v: 'u' }]);
  w.commit();
  w.setTimestamp(T + 13).query('ALTER TABLE logs ADD INDEX (v)', { schema: 'other' });
  w.setTimestamp(T + 14).begin();
  w.insert(t['shop.users']!, [{ id: 2, v: 'v' }]);
  w.setTimestamp(T + 15).insert(t['shop.users']!, [{ id: 3, v: 'w' }]);
  w.commit();
  w.setTimestamp(T + 16)
    .insert(t['shop.items']!, [{ id: 3, v: 'c' }])
    .commit();
  const bytes = w.toBytes();
  // Each transaction's GTID, in order: the three CREATE TABLEs, then those above.
  const gtids = decodeBinlog(bytes).filter((e) => e.type === 'GTID_EVENT');
  const names = ['late-gtid', 'two-dbs', 'ddl', 'straddles', 'last'];
  return { bytes, mark: Object.fromEntries(names.map((n, i) => [n, gtids[3 + i]!.pos])) };
}

const { bytes, mark } = workload();
const all = decodeBinlog(bytes) as Loose[];
const kept = (filter: EventFilter) => decodeBinlog(bytes, { filter }) as Loose[];
const positions = (events: BinlogEvent[]) => events.map((e) => e.pos);
/** The events of the transaction that begins at `pos` (up to the next one's beginning). */
function transactionAt(pos: number): number[] {
  const t = new Transactions();
  let group: number[] | undefined;
  for (const e of all) {
    const { begins, ends } = t.step(e);
    if (begins && group) return group;
    if (begins && e.pos === pos) group = [];
    group?.push(e.pos);
    if (ends && group) return group;
  }
  return group ?? [];
}
const FDE = 4;
/** The FDE and the log's own events after it (GTID_LIST, BINLOG_CHECKPOINT): no name filter leaves them out. */
const LOG = positions(
  all.slice(
    0,
    all.findIndex((e) => e.type === 'GTID_EVENT'),
  ),
);

describe('start and stop filters keep whole transactions', () => {
  it('a transaction whose first event is at the start keeps its earlier rows', () => {
    const late = transactionAt(mark['late-gtid']!);
    expect(all.filter((e) => late.includes(e.pos)).map((e) => e.header.timestamp)).toContain(T + 10);
    const out = positions(kept({ startTime: T + 11 }));
    expect(out.slice(0, late.length + 1)).toEqual([FDE, ...late]);
    expect(out.at(-1)).toBe(all.at(-1)!.pos);
  });

  it(
    'a start position inside a transaction leaves it out whole; ' +
      'a start time any of its events reaches keeps it whole',
    () => {
      const straddler = transactionAt(mark['straddles']!);
      const after = all.filter((e) => e.pos >= mark['last']!).map((e) => e.pos);
      expect(positions(kept({ startPosition: straddler[1]! }))).toEqual([FDE, ...after]);
      // Its first event is at T+14, a later one at T+15: it has an event in the window.
      expect(positions(kept({ startTime: T + 15 }))).toEqual([FDE, ...straddler, ...after]);
      expect(positions(kept({ startTime: T + 16 }))).toEqual([FDE, ...after]);
    },
  );

  it(
    'a stop position inside a transaction leaves it out whole; ' + 'a stop time after one of its events keeps it whole',
    () => {
      const before = all.filter((e) => e.pos < mark['straddles']!).map((e) => e.pos);
      const straddler = transactionAt(mark['straddles']!);
      expect(positions(kept({ stopTime: T + 15 }))).toEqual([...before, ...straddler]);
      expect(positions(kept({ stopTime: T + 14 }))).toEqual(before);
      expect(positions(kept({ stopPosition: straddler.at(-1)! }))).toEqual(before);
      expect(positions(kept({ stopPosition: mark['straddles']! }))).toEqual(before);
    },
  );

  it('start and stop together: the window of whole transactions, any of whose events falls in it', () => {
    const out = positions(kept({ startTime: T + 11, stopTime: T + 13 }));
    expect(out).toEqual([FDE, ...transactionAt(mark['late-gtid']!), ...transactionAt(mark['two-dbs']!)]);
  });

  it('what passes encodes into a binlog that reads back as the same events', () => {
    const window = kept({ startTime: T + 11, stopTime: T + 15 });
    const again = decodeBinlog(encodeBinlog(window));
    expect(again.map((e) => [e.type, e.header.timestamp])).toEqual(window.map((e) => [e.type, e.header.timestamp]));
  });

  it('a stop filter holds a transaction until its end, up to maxTransactionSize bytes', () => {
    const big = transactionAt(mark['two-dbs']!);
    const size = all.filter((e) => big.includes(e.pos)).reduce((n, e) => n + e.header.eventSize, 0);
    expect(() => kept({ stopTime: T + 100, maxTransactionSize: size - 100 })).toThrow(LengthError);
    expect(() => kept({ stopTime: T + 100, maxTransactionSize: size - 100 })).toThrow(
      `the transaction begun at ${mark['two-dbs']}`,
    );
    expect(positions(kept({ stopTime: T + 100, maxTransactionSize: size }))).toEqual(positions(all));
    // Without a stop nothing is held whole: the same transaction streams.
    expect(positions(kept({ startTime: T, maxTransactionSize: size - 100 }))).toEqual(positions(all));
  });
});

describe('table and database filters', () => {
  const types = (events: Loose[]) =>
    events.map((e) => (e.tableName as string | undefined) ?? (e.table as string | undefined) ?? e.type);

  it('keep the frame of each transaction that touches the table and only its events', () => {
    const out = kept({ table: 'shop.items' });
    const twoDbs = out.filter((e) => transactionAt(mark['two-dbs']!).includes(e.pos));
    expect(types(twoDbs)).toEqual(['GTID_EVENT', 'ANNOTATE_ROWS_EVENT', 'items', 'shop.items', 'XID_EVENT']);
    // The DDL and the transaction of users alone are left out whole.
    expect(out.some((e) => transactionAt(mark['ddl']!).includes(e.pos))).toBe(false);
    expect(out.some((e) => transactionAt(mark['straddles']!).includes(e.pos))).toBe(false);
    // A table without its database matches it in any database.
    expect(positions(kept({ table: 'items' }))).toEqual(positions(out));
  });

  it('a database keeps its statements (by their default database), tables and annotations', () => {
    const out = kept({ database: 'other' });
    expect(types(out.filter((e) => transactionAt(mark['two-dbs']!).includes(e.pos)))).toEqual([
      'GTID_EVENT',
      'ANNOTATE_ROWS_EVENT',
      'logs',
      'other.logs',
      'XID_EVENT',
    ]);
    expect(out.find((e) => e.query === 'ALTER TABLE logs ADD INDEX (v)')).toBeDefined();
    // The table filter leaves statements out: only their SQL names their tables.
    expect(kept({ table: 'other.logs' }).find((e) => e.type === 'QUERY_EVENT')).toBeUndefined();
  });

  it('several tables or databases, and both at once', () => {
    const both = kept({ table: ['shop.items', 'other.logs'] });
    expect(types(both.filter((e) => transactionAt(mark['two-dbs']!).includes(e.pos)))).toEqual([
      'GTID_EVENT',
      'ANNOTATE_ROWS_EVENT',
      'items',
      'shop.items',
      'ANNOTATE_ROWS_EVENT',
      'logs',
      'other.logs',
      'XID_EVENT',
    ]);
    expect(positions(kept({ database: ['shop', 'other'] }))).toEqual(positions(all));
    expect(positions(kept({ database: 'other', table: 'items' }))).toEqual(LOG);
  });

  it('names compare exactly unless told to ignore case; the names nothing named are told', () => {
    const exact = new EventSelection({ table: 'SHOP.Items', database: ['Other', 'nosuch'] });
    expect(positions(decodeBinlog(bytes, { filter: exact }))).toEqual(LOG);
    expect(exact.unmatched()).toEqual({ databases: ['Other', 'nosuch'], tables: ['SHOP.Items'] });
    const folded = new EventSelection({ table: 'SHOP.Items', ignoreCase: true });
    expect(positions(decodeBinlog(bytes, { filter: folded }))).toEqual(positions(kept({ table: 'shop.items' })));
    expect(folded.unmatched()).toEqual({ databases: [], tables: [] });
  });
});

/** Events as the filters see them (only what they read is given). */
function ev(type: string, fields: Record<string, unknown> = {}): BinlogEvent {
  return looseEvent({ pos: 0, header: eventHeader(0, { timestamp: 1, eventSize: 10 }), type, ...fields });
}
const select = (events: BinlogEvent[], filter: EventFilter) => {
  const s = new EventSelection(filter);
  return [...s.apply(events.map((e, i) => ({ ...e, pos: 100 + i }))), ...s.end()].map((e) => e.pos - 100);
};
const query = (q: string, schema = 'd') => ev('QUERY_EVENT', { schema, query: q });
const map = (id: number, table: string) =>
  ev('TABLE_MAP_EVENT', { tableId: id, flags: 1, schemaName: 'd', tableName: table });
const rows = (id: number) => ev('WRITE_ROWS_EVENT', { tableId: id, flags: 1, table: `d.?` });

describe('XA transactions, statements and payloads', () => {
  // MariaDB's XA: the GTID stands for XA START; the XA COMMIT is a transaction of its own.
  const mariadbXa = [
    ev('GTID_EVENT', { flags: 76 }),
    map(1, 't'),
    rows(1),
    query("XA END X'78',X'',1"),
    ev('XA_PREPARE_LOG_EVENT'),
  ];
  const commitXa = [ev('GTID_EVENT', { flags: 141 }), query("XA COMMIT X'78',X'',1")];
  // MySQL's: BEGIN's place is XA START's.
  const mysqlXa = [
    ev('GTID_LOG_EVENT'),
    query("XA START X'78',X'',1"),
    map(1, 't'),
    rows(1),
    query("XA END X'78',X'',1"),
    ev('XA_PREPARE_LOG_EVENT'),
  ];
  const mysqlCommit = [ev('GTID_LOG_EVENT'), query("XA COMMIT X'78',X'',1")];

  it('an XA COMMIT goes with its XA transaction, and passes when that was not read', () => {
    for (const [prepare, commit] of [
      [mariadbXa, commitXa],
      [mysqlXa, mysqlCommit],
    ]) {
      const n = prepare!.length + commit!.length;
      expect(select([...prepare!, ...commit!], { table: 'd.t' })).toEqual([...Array(n).keys()]);
      expect(select([...prepare!, ...commit!], { table: 'd.u' })).toEqual([]);
      expect(select(commit!, { table: 'd.u' })).toEqual([0, 1]);
    }
  });

  it('a start between XA PREPARE and XA COMMIT keeps the commit: the transaction ended at its XA_PREPARE', () => {
    const events = [...mysqlXa, ...mysqlCommit].map((e, i) => ({
      ...e,
      header: { ...e.header, timestamp: i < mysqlXa.length ? 1 : 2 },
    }));
    expect(select(events, { startTime: 2 })).toEqual([6, 7]);
  });

  it("a statement's INTVAR, RAND and USER_VAR events go with it; other statements do not pass a table filter", () => {
    const events = [
      ev('INTVAR_EVENT'),
      query('INSERT INTO t VALUES (LAST_INSERT_ID())', 'd'),
      ev('USER_VAR_EVENT'),
      query('INSERT INTO t VALUES (@x)', 'e'),
    ];
    expect(select(events, { database: 'd' })).toEqual([0, 1]);
    expect(select(events, { database: 'e' })).toEqual([2, 3]);
    expect(select(events, { table: 'd.t' })).toEqual([]);
  });

  it('without GTIDs: BEGIN … COMMIT, and rows outside any ending at STMT_END_F', () => {
    const events = [
      query('BEGIN'),
      map(1, 't'),
      ev('WRITE_ROWS_EVENT', { tableId: 1, flags: 0 }),
      rows(1),
      query('COMMIT'),
      map(2, 'u'),
      rows(2),
      map(1, 't'),
      rows(1),
    ];
    expect(select(events, { table: 'd.t' })).toEqual([0, 1, 2, 3, 4, 7, 8]);
    expect(select(events, { table: 'd.u' })).toEqual([5, 6]);
    // The first transaction's rows are at times 2 and 3, in the window: it passes whole.
    expect(
      select(
        events.map((e, i) => ({ ...e, header: { ...e.header, timestamp: i } })),
        { startTime: 2 },
      ),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(
      select(
        events.map((e, i) => ({ ...e, header: { ...e.header, timestamp: i } })),
        { startTime: 5 },
      ),
    ).toEqual([5, 6, 7, 8]);
  });

  it("a payload's inner events are selected as a transaction: the kept ones in a payload to compress anew", () => {
    const inner = [query('BEGIN'), map(1, 't'), rows(1), map(2, 'u'), rows(2), ev('XID_EVENT')].map((e, i) => ({
      ...e,
      pos: i,
    }));
    const payload = ev('TRANSACTION_PAYLOAD_EVENT', { payload: Uint8Array.of(1, 2, 3), events: inner });
    const s = new EventSelection({ table: 'd.u' });
    const out = [...s.apply([ev('ANONYMOUS_GTID_LOG_EVENT'), payload]), ...s.end()] as Loose[];
    expect(out.map((e) => e.type)).toEqual(['ANONYMOUS_GTID_LOG_EVENT', 'TRANSACTION_PAYLOAD_EVENT']);
    expect((out[1]!.events as BinlogEvent[]).map((e) => e.pos)).toEqual([0, 3, 4, 5]);
    expect(out[1]!.payload).toEqual(new Uint8Array(0));
    expect(select([ev('ANONYMOUS_GTID_LOG_EVENT'), payload], { table: 'd.v' })).toEqual([]);
    // All of it selected: the payload as it was read.
    expect(select([ev('ANONYMOUS_GTID_LOG_EVENT'), payload], { database: 'd' })).toEqual([0, 1]);
  });
});

describeWithFixtures('the filters on the real files of issue 14', () => {
  const file = (name: string) => join(FIXTURES, 'binlogs', name);
  const sakila = file('osheroff__mysql-binlog-connector-java/src__test__resources__mysql-bin.sakila');

  it("sakila --table=sakila.actor: only actor's transaction, its frame and its events", () => {
    const out = decodeBinlog(readFileSync(sakila), { filter: { table: 'sakila.actor' } }) as Loose[];
    expect(out.map((e) => (e.query as string) ?? (e.tableName as string) ?? (e.table as string) ?? e.type)).toEqual([
      'FORMAT_DESCRIPTION_EVENT',
      'BEGIN',
      'actor',
      ...Array(5).fill('sakila.actor'),
      'XID_EVENT',
    ]);
  });

  it('every transaction of every fixture ends with its commit, statement or payload, but in the damaged files', () => {
    // Files cut inside a transaction on purpose (MySQL's recovery tests, truncated and relay logs), and
    // those whose events cannot be read.
    const damaged = /trunc|bug11747416|bug40482|corrupt-relay|no_fd_event|binlog_recovery__|aurora-padding|encrypt/;
    const cut: string[] = [];
    for (const f of fixtures().filter((x) => !damaged.test(x.name))) {
      const t = new Transactions();
      let open: number | undefined;
      for (const e of decodeBinlog(readFileSync(f.path))) {
        const { begins, ends } = t.step(e);
        if (begins && open !== undefined)
          cut.push(`${f.name}: the transaction at ${open} is cut by ${e.type} at ${e.pos}`);
        if (begins) open = e.pos;
        if (ends) open = undefined;
      }
      if (open !== undefined) cut.push(`${f.name}: the transaction at ${open} does not end`);
    }
    expect(cut).toEqual([]);
  });
});

const tool = findMariadb()?.binlogTool;
describeWhen(
  tool !== undefined && fixturesAvailable,
  'the datetime window of issue 14, as mariadb-binlog reads it',
  () => (tool === undefined ? 'mariadb-binlog not found (install mariadb-client)' : fixturesMissing()),
  () => {
    const name = 'mariadb-operator__mariadb-poc/mariadb-binlog__binlogs__domain_id_0__mariadb-repl-bin.000002';
    const path = join(FIXTURES, 'binlogs', name);

    it('keeps what mariadb-binlog applies and the transaction it rolls back at the stop, whole', () => {
      const r = spawnSync(
        tool!,
        ['--no-defaults', '--start-datetime=2025-12-30 20:55:14', '--stop-datetime=2025-12-30 20:55:15', path],
        {
          env: { ...process.env, TZ: 'UTC' },
          maxBuffer: 1 << 28,
          encoding: 'utf8',
        },
      );
      // Its events, each "# at N" and its header line; it stops inside a transaction and ends with
      // ROLLBACK, so what it applies is what comes up to its last Xid.
      const blocks = [...r.stdout.matchAll(/^# at (\d+)\n#[^\n]*\t(\w+)/gm)].map((m) => ({
        pos: Number(m[1]),
        kind: m[2]!,
      }));
      const lastXid = blocks.findLastIndex((b) => b.kind === 'Xid');
      expect(lastXid).toBeLessThan(blocks.length - 1);
      const applied = blocks.slice(0, lastXid + 1).map((b) => b.pos);
      const bytes = readFileSync(path);
      const out = decodeBinlog(bytes, {
        filter: {
          startTime: Date.UTC(2025, 11, 30, 20, 55, 14) / 1000,
          stopTime: Date.UTC(2025, 11, 30, 20, 55, 15) / 1000,
        },
      });
      // The transaction mariadb-binlog cuts at the stop began in the window: it is kept, to its XID.
      const every = decodeBinlog(bytes);
      const cutAt = every.findIndex((e) => e.pos === blocks[lastXid + 1]!.pos);
      const cut = every.slice(cutAt, every.findIndex((e, i) => i >= cutAt && e.type === 'XID_EVENT') + 1);
      expect(positions(out)).toEqual([...applied, ...positions(cut)]);
      // The transaction of the issue: its GTID at 20:55:14, its statements a second earlier, its XID.
      expect(positions(out).slice(1, 7)).toEqual([375902, 375944, 376058, 376290, 376399, 376718]);
    });
  },
);
