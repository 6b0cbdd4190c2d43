/**
 * Every real binlog in the shared fixtures: decode, encode again, compare byte for byte. Files damaged
 * on purpose must give their typed error instead; files that need events of a later issue are listed
 * with the reason and must fail with a typed error, never a crash.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BinlogError, type BinlogErrorKind } from '../runtime/errors.js';
import { eventFromJson } from '../runtime/event.js';
import { toJsonLine } from '../runtime/json.js';
import { decodeBinlog, encodeBinlog, frameBinlog } from '../runtime/stream.js';
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

/** Not yet readable: a development format. */
const PENDING: Record<string, string> = {
  'ver_5_1-wl2325_r.001': 'a 5.2 development format with longer XID events',
};

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
    const pending = match(PENDING, f.name);
    if (damaged) {
      it(`${f.name} is refused as ${damaged}`, () => {
        const bytes = readFileSync(f.path);
        expect(decodeError(bytes)?.kind).toBe(damaged);
        // Framing alone finds what framing and checksums can (a bad value inside a body it does not read).
        if (damaged !== 'length') expect(decodeError(bytes, (b) => [...frameBinlog(b)])?.kind, 'framed').toBe(damaged);
      });
    } else if (pending) {
      it(`${f.name} (pending: ${pending}) fails with a typed error`, () => {
        expect(decodeError(readFileSync(f.path))).toBeInstanceOf(BinlogError);
      });
    } else {
      it(f.name, () => {
        const bytes = readFileSync(f.path);
        const events = decodeBinlog(bytes);
        expect(Buffer.compare(Buffer.from(encodeBinlog(events)), bytes), 'decode → encode').toBe(0);
        // And through the dump's JSON, as `binlog dump | binlog encode` goes.
        const lines = events.map((e) => toJsonLine(e));
        const back = encodeBinlog(lines.map((l, i) => eventFromJson(JSON.parse(l), `line ${i + 1}`)));
        expect(Buffer.compare(Buffer.from(back), bytes), 'dump → encode').toBe(0);
        // Framed without decoding: the same events.
        const frames = [...frameBinlog(bytes)].map((e) => [e.pos, e.typeCode, e.bytes.length]);
        expect(frames, 'framed').toEqual(events.map((e) => [e.pos, e.header.typeCode, e.header.eventSize]));
      });
    }
  }
});

describeWithFixtures('real binlogs decode to what they hold', () => {
  it('MySQL 4.1 (binlog v3): START_EVENT_V3, then QUERY events without status variables', () => {
    const events = decodeBinlog(readFileSync(byName('binlog_old_version_4_1.000001').path));
    expect(events[0]).toMatchObject({ type: 'START_EVENT_V3', binlogVersion: 3, serverVersion: '4.1.24-debug-log' });
    const q = events.find((e) => e.type === 'QUERY_EVENT') as unknown as { statusVars?: unknown; query: string };
    expect(q.statusVars).toBeUndefined();
    expect(typeof q.query).toBe('string');
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
      const start = events.findIndex((e) => e.type === 'START_ENCRYPTION_EVENT' || e.type === 'START_5_7_ENCRYPTION_EVENT');
      expect(start, name).toBeGreaterThan(0);
      expect(events[start]).toMatchObject({ scheme: 1 });
      expect(events.slice(start + 1).every((e) => e.type === 'ENCRYPTED_EVENT' && 'raw' in e), name).toBe(true);
      expect(events.length - start - 1, name).toBeGreaterThan(0);
    }
  });
  // Rows v0: binlog_old_versions.test made t1 (a int, b char(50)) ENGINE=MyISAM, then INSERT (0,'one'),
  // (1,'two'); UPDATE t1 SET a=a+1; DELETE FROM t1 WHERE a=2. Each image is the record's one null byte
  // (0xf9 here: the reserved bit and the unused ones set), the int in 4 bytes, the CHAR as length + text.
  it('MySQL 5.1.15 and 5.1.17: rows v0 post-headers decoded, their images kept as bytes', () => {
    const image = (a: number, b: string) => Buffer.concat([Buffer.of(0xf9), Buffer.from(Int32Array.of(a).buffer), Buffer.of(b.length), Buffer.from(b)]);
    for (const name of ['ver_5_1-telco.001', 'ver_5_1_17.001']) {
      const rows = decodeBinlog(readFileSync(byName(name).path)).filter((e) => e.type.startsWith('PRE_GA_'));
      expect(rows.map((e) => e.type), name).toEqual(['PRE_GA_WRITE_ROWS_EVENT', 'PRE_GA_UPDATE_ROWS_EVENT', 'PRE_GA_DELETE_ROWS_EVENT']);
      const images = [
        [image(0, 'one'), image(1, 'two')],
        [image(0, 'one'), image(1, 'one'), image(1, 'two'), image(2, 'two')],
        [image(2, 'two')],
      ];
      rows.forEach((e, i) => {
        expect(e, name).toMatchObject({ table: 'test.t1', flags: 1, columnCount: 2, columnsPresent: [true, true] });
        expect(Buffer.from((e as unknown as { rowImages: Uint8Array }).rowImages), name).toEqual(Buffer.concat(images[i]!));
        expect(toJsonLine(e), name).toContain('"rowImagesUndecoded":"v0 row images depend on the table definition');
      });
    }
  });
  it('bug32407 (MySQL 5.1.15): two rows v0 WRITE events of a=1 into t1 (a int)', () => {
    const rows = decodeBinlog(readFileSync(byName('std_data__bug32407.001').path)).filter((e) => e.type === 'PRE_GA_WRITE_ROWS_EVENT');
    expect(rows).toHaveLength(2);
    for (const e of rows) {
      expect(e).toMatchObject({ table: 'test.t1', columnCount: 1, columnsPresent: [true] });
      expect(Buffer.from((e as unknown as { rowImages: Uint8Array }).rowImages).subarray(1)).toEqual(Buffer.of(1, 0, 0, 0));
    }
  });
  it('a 5.1-wl2325 binlog, whose FDE gives codes 20-22 to other events, keeps them raw', () => {
    const events = decodeBinlog(readFileSync(byName('ver_5_1-wl2325_s.001').path));
    const old = events.filter((e) => e.header.typeCode >= 20 && e.header.typeCode <= 22);
    expect(old).toHaveLength(3);
    expect(old.every((e) => 'raw' in e)).toBe(true);
  });
  it('bug40482: an INCIDENT event with incident number 0x42 and an empty message', () => {
    const events = decodeBinlog(readFileSync(byName('bug40482-bin.000001').path));
    expect(events.map((e) => e.type)).toEqual(['FORMAT_DESCRIPTION_EVENT', 'INCIDENT_EVENT', 'ROTATE_EVENT']);
    expect(events[1]).toMatchObject({ pos: 106, incident: 0x42, message: '' });
  });
});
