/**
 * Every real binlog in the shared fixtures: decode, encode again, compare byte for byte. Files damaged
 * on purpose must give their typed error instead.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BinlogError, type BinlogErrorKind } from '../runtime/core/errors.js';
import type { RandEvent } from '../generated/control.js';
import { eventFromJson, isEventType, type BinlogEvent } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog, frameBinlog } from '../runtime/io/stream.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

/** Damaged on purpose (the fixtures' README): the error each must give. */
const DAMAGED: Record<string, BinlogErrorKind> = {
  'binlog_truncated_event.000001': 'truncated',
  'binlog_truncated_prev_gtid_event.000001': 'truncated',
  'bug11747416_32228_binlog.000001': 'truncated',
  'binlog_recovery__duplicate_xid.000001': 'checksum',
  'binlog_recovery__duplicate_xid_ddl.000001': 'checksum',
  'binlog_recovery__duplicate_xid_xa_prepare.000001': 'checksum',
  'binlog_recovery__malformed_xid_xa_commit.000001': 'checksum',
  'binlog_recovery__malformed_xid_xa_rollback.000001': 'checksum',
  'rpl_nogtid_encryption_master-bin.000002': 'bad-magic',
  'corrupt-relay-bin.000624': 'length',
  'ps_encrypted_truncated_master-bin.000002': 'truncated',
};

/**
 * Files whose first event is no FORMAT_DESCRIPTION (the fixtures' README): encoded back only when asked to assume one.
 */
const WITHOUT_FORMAT = ['binlog_no_fd_event.000001'];

function match<T>(table: Record<string, T>, name: string): T | undefined {
  const key = Object.keys(table).find((k) => name.endsWith(k) || name.includes(`__${k}`));
  return key === undefined ? undefined : table[key];
}

function decodeError(bytes: Uint8Array, read: (b: Uint8Array) => unknown = decodeBinlog): BinlogError | undefined {
  try {
    read(bytes);
    return undefined;
  } catch (e) {
    if (e instanceof BinlogError) return e;
    throw e;
  }
}

describeWithFixtures('real binlogs round-trip byte for byte', () => {
  const all = fixtures();
  it('are all there', () => expect(all.length).toBe(167));
  for (const f of all) {
    const damaged = match(DAMAGED, f.name);
    if (damaged) {
      it(`${f.name} is refused as ${damaged}`, () => {
        const bytes = readFileSync(f.path);
        expect(decodeError(bytes)?.kind).toBe(damaged);
        // Framing alone finds what framing and checksums can (a bad value inside a body it does not read).
        if (damaged !== 'length') expect(decodeError(bytes, (b) => [...frameBinlog(b)])?.kind, 'framed').toBe(damaged);
      });
    } else {
      it(f.name, () => {
        const bytes = readFileSync(f.path);
        const events = decodeBinlog(bytes);
        const options = { assumeFormat: WITHOUT_FORMAT.some((name) => f.name.endsWith(name)) };
        expect(Buffer.compare(Buffer.from(encodeBinlog(events, options)), bytes), 'decode → encode').toBe(0);
        // And through the dump's JSON, as `binlog dump | binlog encode` goes.
        const lines = events.map((e) => toJsonLine(e));
        const back = encodeBinlog(
          lines.map((l, i) => eventFromJson(JSON.parse(l), `line ${i + 1}`)),
          options,
        );
        expect(Buffer.compare(Buffer.from(back), bytes), 'dump → encode').toBe(0);
        // Framed without decoding: the same events (a payload's own, flat after it, are inside its frame).
        const frames = [...frameBinlog(bytes)].map((e) => [e.pos, e.typeCode, e.bytes.length]);
        const outer = events.filter((e) => e.inPayload === undefined);
        expect(frames, 'framed').toEqual(outer.map((e) => [e.pos, e.header.typeCode, e.header.eventSize]));
      });
    }
  }
});

describeWithFixtures('real binlogs decode to what they hold', () => {
  it('MySQL 4.1 (binlog v3): START_EVENT_V3, then QUERY events without status variables', () => {
    const events = decodeBinlog(readFileSync(byName('binlog_old_version_4_1.000001').path));
    expect(events[0]).toMatchObject({ type: 'START_EVENT_V3', binlogVersion: 3, serverVersion: '4.1.24-debug-log' });
    const q = events.find((e) => e.type === 'QUERY_EVENT');
    expect(q?.statusVars).toBeUndefined();
    expect(typeof q?.query).toBe('string');
  });

  const byName = (suffix: string) => fixtures().find((f) => f.name.endsWith(suffix))!;
  it('a MySQL 8 encrypted binlog is recognised as one, never read as plaintext', () => {
    const e = decodeError(readFileSync(byName('rpl_nogtid_encryption_master-bin.000002').path));
    expect(e).toMatchObject({ kind: 'bad-magic', offset: 0 });
    expect(e!.message).toContain('MySQL 8 encrypted binlog');
  });
  it('MariaDB and Percona encrypted binlogs: events after START_ENCRYPTION are kept whole, never read', () => {
    for (const name of ['binlog_before_20574.bin', 'ps_encrypted_master-bin.000002']) {
      const events = decodeBinlog(readFileSync(byName(name).path));
      const start = events.findIndex(
        (e) => e.type === 'START_ENCRYPTION_EVENT' || e.type === 'START_5_7_ENCRYPTION_EVENT',
      );
      expect(start, name).toBeGreaterThan(0);
      expect(events[start]).toMatchObject({ scheme: 1 });
      expect(
        events.slice(start + 1).every((e) => e.type === 'ENCRYPTED_EVENT' && 'raw' in e),
        name,
      ).toBe(true);
      expect(events.length - start - 1, name).toBeGreaterThan(0);
    }
  });
  // Rows v0: binlog_old_versions.test made t1 (a int, b char(50)) ENGINE=MyISAM, then INSERT (0,'one'),
  // (1,'two'); UPDATE t1 SET a=a+1; DELETE FROM t1 WHERE a=2. Each image is the record's one null byte
  // (0xf9 here: the reserved bit and the unused ones set), the int in 4 bytes, the CHAR as length + text.
  it('MySQL 5.1.15, 5.1.17 and the 5.1-wl2325 tree: rows v0 post-headers decoded, their images kept as bytes', () => {
    const image = (a: number, b: string) =>
      Buffer.concat([Buffer.of(0xf9), Buffer.from(Int32Array.of(a).buffer), Buffer.of(b.length), Buffer.from(b)]);
    for (const name of ['ver_5_1-telco.001', 'ver_5_1_17.001', 'ver_5_1-wl2325_r.001']) {
      const rows = decodeBinlog(readFileSync(byName(name).path))
        .filter((e) => 'columnsPresent' in e)
        .filter((e) => e.type.startsWith('PRE_GA_'));
      expect(
        rows.map((e) => e.type),
        name,
      ).toEqual(['PRE_GA_WRITE_ROWS_EVENT', 'PRE_GA_UPDATE_ROWS_EVENT', 'PRE_GA_DELETE_ROWS_EVENT']);
      const images = [
        [image(0, 'one'), image(1, 'two')],
        [image(0, 'one'), image(1, 'one'), image(1, 'two'), image(2, 'two')],
        [image(2, 'two')],
      ];
      rows.forEach((e, i) => {
        expect(e, name).toMatchObject({ table: 'test.t1', flags: 1, columnCount: 2, columnsPresent: [true, true] });
        expect(Buffer.from(e.rowImages!), name).toEqual(Buffer.concat(images[i]!));
        expect(toJsonLine(e), name).toContain('"rowImagesUndecoded":"v0 row images depend on the table definition');
      });
    }
  });
  it('bug32407 (MySQL 5.1.15): two rows v0 WRITE events of a=1 into t1 (a int)', () => {
    const rows = decodeBinlog(readFileSync(byName('std_data__bug32407.001').path)).filter((e) =>
      isEventType(e, 'PRE_GA_WRITE_ROWS_EVENT'),
    );
    expect(rows).toHaveLength(2);
    for (const e of rows) {
      expect(e).toMatchObject({ table: 'test.t1', columnCount: 1, columnsPresent: [true] });
      expect(Buffer.from(e.rowImages!).subarray(1)).toEqual(Buffer.of(1, 0, 0, 0));
    }
  });
  it('bug40482: an INCIDENT event with incident number 0x42 and an empty message', () => {
    const events = decodeBinlog(readFileSync(byName('bug40482-bin.000001').path));
    expect(events.map((e) => e.type)).toEqual(['FORMAT_DESCRIPTION_EVENT', 'INCIDENT_EVENT', 'ROTATE_EVENT']);
    expect(events[1]).toMatchObject({ pos: 106, incident: 0x42, message: '' });
  });
});

/**
 * MySQL's alcatel tree (mysql-5.1-wl2325-5.0-drop6, server 5.2.2-a_drop6p13) stored TABLE_MAP as 16, rows
 * v0 as 17-19 and XID, BEGIN_LOAD_QUERY, EXECUTE_LOAD_QUERY as 20-22 (log_event.cc's
 * event_type_permutation). binlog_old_versions.result, after replaying ver_5_1-wl2325_r.001 and _s.001:
 * t1 holds (0,'last_insert_id'), (1,'one'), (3,'last stm in trx: next event should be xid'), (4,'four'),
 * (781729,'random'); t2 holds (3,'first stm in trx'); t3 17920 rows (the LOAD DATA test in legacy.test.ts).
 */
describeWithFixtures('the 5.1-wl2325 tree, whose event type codes differ from MySQL’s', () => {
  const file = (suffix: string) => readFileSync(fixtures().find((f) => f.name.endsWith(suffix))!.path);
  const decoded = (suffix: string) => decodeBinlog(file(suffix));
  const stored = (events: BinlogEvent[]) => events.map((e) => `${e.header.typeCode}:${e.type}`);
  const queries = (events: BinlogEvent[]) => events.filter((e) => e.type === 'QUERY_EVENT').map((e) => e.query);

  it("_r: the three tables, then t1's rows v0 (its TABLE_MAPs stored as 16, the rows as 17, 18 and 19)", () => {
    const events = decoded('ver_5_1-wl2325_r.001');
    expect(queries(events)).toEqual([
      'CREATE TABLE t1 (a int, b char(50)) ENGINE = MyISAM',
      'CREATE TABLE t2 (a int, b char(50)) ENGINE = InnoDB',
      'CREATE TABLE t3 (a int, b char(20))',
    ]);
    expect(stored(events.filter((e) => e.header.typeCode > 15))).toEqual([
      '16:TABLE_MAP_EVENT',
      '17:PRE_GA_WRITE_ROWS_EVENT',
      '16:TABLE_MAP_EVENT',
      '18:PRE_GA_UPDATE_ROWS_EVENT',
      '16:TABLE_MAP_EVENT',
      '19:PRE_GA_DELETE_ROWS_EVENT',
    ]);
    expect(
      events.filter((e) => e.type === 'TABLE_MAP_EVENT').every((e) => e.schemaName === 'test' && e.tableName === 't1'),
    ).toBe(true);
    expect(events.some((e) => 'raw' in e)).toBe(false);
  });

  it('_s: the statements that fill t1 and t2, the XID of the InnoDB transaction, the LOAD DATA into t3', () => {
    const events = decoded('ver_5_1-wl2325_s.001');
    expect(events.some((e) => 'raw' in e)).toBe(false);
    expect(stored(events.filter((e) => e.header.typeCode > 15))).toEqual([
      '20:XID_EVENT',
      '21:BEGIN_LOAD_QUERY_EVENT',
      '22:EXECUTE_LOAD_QUERY_EVENT',
    ]);
    expect(queries(events)).toEqual([
      'BEGIN',
      "INSERT INTO t2 VALUES (3, 'first stm in trx')",
      "INSERT INTO t1 VALUES (3, 'last stm in trx: next event should be xid')",
      "INSERT INTO t1 VALUES (@x, 'four')",
      "INSERT INTO t1 VALUES (RAND() * 1000000, 'random')",
      "INSERT INTO t1 VALUES (LAST_INSERT_ID(), 'last_insert_id')",
    ]);
    const at = (type: string) => events.findIndex((e) => e.type === type);
    // The transaction's two INSERTs end with its XID, as the statement says it should.
    expect(at('XID_EVENT')).toBe(
      events.findIndex((e) => e.type === 'QUERY_EVENT' && String(e.query).startsWith('INSERT INTO t1 VALUES (3')) + 1,
    );
    // An ordinary XID: the 8-byte transaction id after the 19-byte header.
    expect(events[at('XID_EVENT')]).toMatchObject({ header: { eventSize: 27 }, xid: expect.any(BigInt) });
    expect(events[at('USER_VAR_EVENT')]).toMatchObject({ name: 'x', value: { int: 4n } });
    expect(events[at('INTVAR_EVENT')]).toMatchObject({ kind: 'LAST_INSERT_ID_EVENT', value: 0n });
    const rand = events.find((e) => e.type === 'RAND_EVENT');
    expect(rand && Math.round(mysqlRand(rand) * 1000000)).toBe(781729);
  });

  it('without type codes, events are stored under the codes the FDE in force implies', () => {
    for (const name of ['ver_5_1-wl2325_r.001', 'ver_5_1-wl2325_s.001']) {
      const events = decodeBinlog(file(name)).map((e) => ({ ...e, header: { ...e.header, typeCode: undefined } }));
      expect(Buffer.compare(Buffer.from(encodeBinlog(events)), file(name)), name).toBe(0);
    }
  });

  it('a type code that stands for another event under the FDE in force is refused', () => {
    const events = decodeBinlog(file('ver_5_1-wl2325_s.001'));
    const xid = events.findIndex((e) => e.type === 'XID_EVENT');
    const wrong = events.map((e, i) => (i === xid ? { ...e, header: { ...e.header, typeCode: 16 } } : e));
    expect(() => encodeBinlog(wrong)).toThrow(
      expect.objectContaining({
        kind: 'encode',
        message: expect.stringContaining('type XID_EVENT is code 20, but header.typeCode is 16'),
      }),
    );
  });

  it('an FDE of such a version that does not list exactly 22 event types is invalid, as MySQL finds it', () => {
    const bytes = file('ver_5_1-wl2325_r.001');
    const fde = Buffer.from(bytes.subarray(4, 4 + 98));
    const longer = Buffer.concat([bytes.subarray(0, 4), fde, Buffer.of(0)]);
    longer.writeUInt32LE(99, 4 + 9); // event_size
    expect(decodeError(longer)).toMatchObject({ kind: 'invalid-value', eventPos: 4 });
  });
});

/** RAND() after a RAND_EVENT: MySQL's my_rnd (mysys/my_rnd.c) from the two seeds, for the statement that follows. */
function mysqlRand(e: RandEvent): number {
  const max = 0x3fffffff;
  const [seed1, seed2] = [Number(e.seed1 % BigInt(max)), Number(e.seed2 % BigInt(max))];
  return ((seed1 * 3 + seed2) % max) / max;
}
