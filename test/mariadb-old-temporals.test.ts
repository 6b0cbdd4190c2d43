/**
 * MariaDB's own TIME(n), DATETIME(n) and TIMESTAMP(n), n > 0: a real server with mysql56_temporal_format=OFF
 * logs them under the types without a fraction (TIME, DATETIME, TIMESTAMP) with no metadata. Read with the
 * definitions `mariadb-dump --no-data` gives, every cell is the server's own CAST(… AS CHAR) of it, and
 * dump | encode gives the file back. Without them the row events are delivered with their images as bytes
 * and the reason (21 such columns are past the bound of the search for their digits; the inference itself is
 * test/mariadb-inferred-fractions.test.ts), every event is read, and dump | encode gives the file back all the same.
 * Column hints saying the digits (the caller's, or information_schema's on a live read) read them as the definitions
 * do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { type BinlogEvent, eventFromJson } from '../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import type { TableDefinitions } from '../runtime/tables/definitions.js';
import type { HintFn } from '../runtime/values/column.js';
import { connectBinlog } from '../replication/client.js';
import { tableDefinitionsFromSql } from '../runtime/tables/schema-file.js';
import { describeWithServer, type MariadbServer, startMariadb } from './support/mariadb.js';
import type { RowsEventOf as RowsEvent } from './support/rows.js';

const DIGITS = [0, 1, 2, 3, 4, 5, 6];
const COLUMNS = DIGITS.flatMap((n) => [`t${n}`, `d${n}`, `s${n}`]);
const COLUMN_DEFS = DIGITS.map((n) => `t${n} TIME(${n}), d${n} DATETIME(${n}), s${n} TIMESTAMP(${n}) NULL`).join(', ');
const SCHEMA = `CREATE DATABASE old; CREATE TABLE old.t (id INT PRIMARY KEY, ${COLUMN_DEFS});`;

/** A row whose every TIME is `time`, DATETIME `datetime` and TIMESTAMP `timestamp` (NULL where null). */
const row = (id: number, time: string | null, datetime: string | null, timestamp: string | null) => {
  const q = (v: string | null) => (v === null ? 'NULL' : `'${v}'`);
  return `(${id}, ${DIGITS.map(() => `${q(time)}, ${q(datetime)}, ${q(timestamp)}`).join(', ')})`;
};
// The server's time zone is UTC, as the TIMESTAMP cells' text is; zero dates need a lax sql_mode.
const STATEMENTS = [
  `INSERT INTO old.t VALUES
    ${row(1, '12:34:56.789012', '2024-02-29 23:59:58.987654', '2024-02-29 23:59:58.987654')},
    ${row(2, '-838:59:59.999999', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999')},
    ${row(3, '-00:00:00.5', '0000-00-00 00:00:00', '0000-00-00 00:00:00')},
    ${row(4, null, null, null)},
    ${row(5, '838:59:59', '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01.000001')},
    ${row(6, '-12:00:01.1', '2000-00-00 00:00:00.5', '2001-09-09 01:46:40.123456')}`,
  `UPDATE old.t SET t3 = '-01:02:03.004', d6 = '2020-01-01 00:00:00.000009', s2 = NULL WHERE id IN (1, 4)`,
  'DELETE FROM old.t WHERE id = 2',
];

const rowsEvents = (events: BinlogEvent[]) =>
  events.filter((e): e is RowsEvent => 'rows' in e && Array.isArray(e.rows));
/** The images of each change, after then before, as the server reads them back. */
const images = (events: BinlogEvent[]) =>
  rowsEvents(events).flatMap((e) => e.rows!.flatMap((c) => [c.after, c.before].filter((x) => x !== undefined)));

describeWithServer('MariaDB’s own fractional temporals (mysql56_temporal_format=OFF)', () => {
  let server: MariadbServer;
  let binlog: Uint8Array;
  let defs: TableDefinitions;
  /** The server's CAST(… AS CHAR) of every column, by id, after each statement of the workload. */
  const seen: Record<string, string | null>[][] = [];

  const snapshot = async () => {
    const cast = COLUMNS.map((c) => `CAST(${c} AS CHAR)`).join(', ');
    const rows = await server.query(`SELECT id, ${cast} FROM old.t ORDER BY id`);
    seen.push(rows.map(([id, ...cells]) => Object.fromEntries([['id', id], ...COLUMNS.map((c, i) => [c, cells[i]!])])));
  };

  beforeAll(async () => {
    server = await startMariadb({
      rowMetadata: 'NO_LOG',
      extraArgs: ['--mysql56-temporal-format=OFF', '--default-time-zone=+00:00'],
    });
    await server.sql(SCHEMA);
    await server.flushLogs();
    for (const statement of STATEMENTS) {
      await server.sql(`SET sql_mode = ''; ${statement}`);
      await snapshot();
    }
    await server.flushLogs();
    defs = tableDefinitionsFromSql(await server.dumpSchema('old'));
    binlog = new Uint8Array(readFileSync((await server.binlogFiles())[1]!));
  }, 120_000);
  afterAll(() => server?.stop());

  const viaJson = (events: BinlogEvent[], d?: TableDefinitions) =>
    encodeBinlog(
      events.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`)),
      { tableDefinitions: d },
    );

  it('the server logs the fractional columns under the old types, with no metadata', () => {
    const map = decodeBinlog(binlog, { tableDefinitions: defs }).find((e) => e.type === 'TABLE_MAP_EVENT');
    expect(map?.columnTypes).toEqual(['LONG', ...DIGITS.flatMap(() => ['TIME', 'DATETIME', 'TIMESTAMP'])]);
  });

  /** Every cell of the workload's row events is the server's CAST(… AS CHAR), before and after each change. */
  const expectServerCells = (all: BinlogEvent[]) => {
    const events = rowsEvents(all);
    expect(events.map((e) => e.type)).toEqual(['WRITE_ROWS_EVENT_V1', 'UPDATE_ROWS_EVENT_V1', 'DELETE_ROWS_EVENT_V1']);
    const text = (image: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(image).map(([k, v]) => [k, v === null ? null : String(v)]));
    const [inserted, updated, deleted] = events.map((e) => e.rows!);
    expect(inserted!.map((c) => text(c.after!))).toEqual(seen[0]);
    const byId = (rows: Record<string, string | null>[], ids: string[]) => rows.filter((r) => ids.includes(r.id!));
    expect(updated!.map((c) => text(c.before!))).toEqual(byId(seen[0]!, ['1', '4']));
    expect(updated!.map((c) => text(c.after!))).toEqual(byId(seen[1]!, ['1', '4']));
    expect(deleted!.map((c) => text(c.before!))).toEqual(byId(seen[1]!, ['2']));
    // The workload's own literals, so that the server's reading is not taken on trust alone.
    expect(inserted![1]!.after).toMatchObject({
      t6: '-838:59:59.999999',
      d6: '9999-12-31 23:59:59.999999',
      s6: '2038-01-19 03:14:07.999999',
      t1: '-838:59:59.9',
    });
    expect(inserted![2]!.after).toMatchObject({
      t1: '-00:00:00.5',
      d3: '0000-00-00 00:00:00.000',
      s0: '0000-00-00 00:00:00',
    });
  };

  it('with the definitions every cell is the server’s CAST(… AS CHAR), before and after each change', () => {
    expectServerCells(decodeBinlog(binlog, { tableDefinitions: defs }));
  });

  it('with column hints giving names and fraction digits, the same cells; and they encode back', () => {
    const columnHints: HintFn = (_, c) =>
      c.index ? { name: COLUMNS[c.index - 1], fractionDigits: Number(COLUMNS[c.index - 1]!.slice(1)) } : { name: 'id' };
    const events = decodeBinlog(binlog, { columnHints });
    expectServerCells(events);
    expect(Buffer.compare(Buffer.from(encodeBinlog(events, { columnHints })), Buffer.from(binlog))).toBe(0);
  });

  it('a hint of fraction digits past 6 is refused, naming the column', () => {
    expect(() =>
      decodeBinlog(binlog, { columnHints: (_, c) => (c.index === 3 ? { fractionDigits: 7 } : undefined) }),
    ).toThrow(
      expect.objectContaining({
        name: 'TableDefinitionError',
        message: expect.stringMatching(/old\.t.*@4.*7 fraction digits, not 0 to 6/),
      }),
    );
  });

  it('read live with information_schema’s columns, every cell is the server’s', async () => {
    const file = basename((await server.binlogFiles())[1]!);
    const events: BinlogEvent[] = [];
    for await (const e of connectBinlog({
      socketPath: server.socket,
      user: 'root',
      file,
      until: 'logs',
      columnNames: 'information_schema',
    })) {
      if (e.type !== 'ROTATE_EVENT' || !(e as { notInFile?: string }).notInFile) events.push(e);
    }
    expectServerCells(events);
  }, 60_000);

  it('dump | encode gives the file back with the definitions', () => {
    const events = decodeBinlog(binlog, { tableDefinitions: defs });
    expect(Buffer.compare(Buffer.from(viaJson(events, defs)), Buffer.from(binlog))).toBe(0);
    expect(images(events)).toHaveLength(6 + 4 + 1);
  });

  it(
    'without them every event is read; the row events keep ' +
      'their images as bytes, with the reason, and encode back',
    () => {
      const events = decodeBinlog(binlog);
      expect(events.at(-1)!.type).toBe('ROTATE_EVENT');
      const kept = events.filter(
        (e) => (e as { rowImagesUndecoded?: string }).rowImagesUndecoded !== undefined,
      ) as (BinlogEvent & { rowImagesUndecoded: string; rowImages: Uint8Array; rows?: unknown })[];
      expect(kept.map((e) => e.type)).toEqual(['WRITE_ROWS_EVENT_V1', 'UPDATE_ROWS_EVENT_V1', 'DELETE_ROWS_EVENT_V1']);
      for (const e of kept) {
        expect(e.rows).toBeUndefined();
        // 21 such columns: the search for their digits stops at its bound, or at a second fit
        // (runtime/rows/fractions.ts).
        const refs = COLUMNS.map((_, i) => `@${i + 2}`).join(', ');
        const search = `more than (4096 choices|one choice) of fraction digits for ${refs} `;
        expect(e.rowImagesUndecoded).toMatch(
          new RegExp(
            `^the row images do not split into rows: ${search}.+; give the table's definition; kept as bytes$`,
          ),
        );
      }
      // The images are the event's body after its columns bitmaps, to its end: the checksum follows them.
      const [write] = kept;
      const body = binlog.subarray(
        write!.pos + write!.header.eventSize - 4 - write!.rowImages.length,
        write!.pos + write!.header.eventSize - 4,
      );
      expect(Buffer.compare(Buffer.from(body), Buffer.from(write!.rowImages))).toBe(0);
      expect(Buffer.compare(Buffer.from(viaJson(events)), Buffer.from(binlog))).toBe(0);
    },
  );

  it(
    'binlog dump reads the file to its end, exit 7 saying how many ' +
      'row events kept their images; dump | encode gives it back',
    () => {
      const tmp = mkdtempSync(join(tmpdir(), 'binlog-old-temporals-'));
      try {
        const file = join(tmp, 'binlog.000002');
        writeFileSync(file, binlog);
        const cli = (args: string[], input?: string) =>
          spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'binlog'), ...args], {
            input,
            maxBuffer: 1 << 26,
          });
        const dump = cli(['dump', file]);
        expect([dump.status, dump.stderr.toString()]).toEqual([
          7,
          'binlog: 3 row events kept their row images as bytes, not split into rows (rowImagesUndecoded says why).\n',
        ]);
        const lines = dump.stdout
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; rowImages?: { hex: string } });
        expect(lines.at(-1)!.type).toBe('ROTATE_EVENT');
        expect(lines.filter((l) => l.rowImages).length).toBe(3);
        const encoded = cli(['encode', '-o', join(tmp, 'again'), '-'], dump.stdout.toString());
        expect([encoded.status, encoded.stderr.toString()]).toEqual([0, '']);
        expect(Buffer.compare(readFileSync(join(tmp, 'again')), Buffer.from(binlog))).toBe(0);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});
