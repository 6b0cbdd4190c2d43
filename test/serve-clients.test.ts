/**
 * CDC clients of `serveBinlog` with a synthetic binlog, no database anywhere: @vlasky/zongji sees the row
 * changes the file holds; several clients at once each get the whole binlog, one leaving early harming
 * none; an idle dump gets heartbeats; events that arrive while clients wait reach them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter } from '../builder/index.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { BinlogEvent, BinlogEventInput } from '../runtime/events/event-codec.js';
import type { RowChange } from '../runtime/core/values.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { connectBinlog } from '../replication/client.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';

const WAIT_MS = 30_000;

const { default: ZongJi } = await import('@vlasky/zongji');

function synthetic(): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000 });
  w.createDatabase('shop');
  const t = w.createTable({
    schema: 'shop',
    name: 'item',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'name', type: 'varchar(20)' },
      { name: 'qty', type: 'bigint' },
    ],
    primaryKey: 'id',
  });
  w.insert(t, [
    { id: 1, name: 'pen', qty: 5 },
    { id: 2, name: 'ink', qty: 7 },
  ]).commit();
  w.update(t, [
    [
      { id: 1, name: 'pen', qty: 5 },
      { id: 1, name: 'pen', qty: 4 },
    ],
  ]).commit();
  w.delete(t, [{ id: 2, name: 'ink', qty: 7 }]).commit();
  return w.end().toBytes();
}

/** What a change says, whoever decoded it: the kind, and each row's values by column. */
type Change = [string, unknown[]];

/** The file's row events as changes, from this project's decoder. */
function fileChanges(events: BinlogEvent[]): Change[] {
  const kinds: Record<string, string> = {
    WRITE_ROWS_EVENT_V1: 'writerows',
    UPDATE_ROWS_EVENT_V1: 'updaterows',
    DELETE_ROWS_EVENT_V1: 'deleterows',
  };
  return events.flatMap((e) => {
    const kind = kinds[e.type];
    if (!kind || !('rows' in e) || !e.rows) return [];
    const rows: RowChange[] = e.rows;
    return [
      [
        kind,
        rows.map((r) =>
          kind === 'updaterows' ? { before: plain(r.before!), after: plain(r.after!) } : plain((r.after ?? r.before)!),
        ),
      ] as Change,
    ];
  });
}

function plain(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
}

describe('CDC clients of serveBinlog', () => {
  const bytes = synthetic();
  const events = decodeBinlog(bytes, { file: 'binlog.000001' });
  let server: BinlogServer;
  const at = () => ({ host: '127.0.0.1', port: server.port, user: 'cdc' });

  beforeAll(async () => {
    // The binlog served from its events, as --from-jsonl serves a dump.
    async function* served() {
      for (const e of events) yield e as BinlogEventInput;
    }
    server = await serveBinlog({ events: served() }, { log: (m) => console.log(m) });
  });
  afterAll(() => server?.close());

  it('zongji sees the row changes of the file', async () => {
    const zongji = new ZongJi({ ...at(), password: '' });
    const want = fileChanges(events);
    expect(want.map(([k]) => k)).toEqual(['writerows', 'updaterows', 'deleterows']);
    const got: Change[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`zongji saw ${JSON.stringify(got)}`)), WAIT_MS);
        zongji.on('error', (e) => (clearTimeout(timer), reject(e)));
        zongji.on('binlog', (e) => {
          if (!('rows' in e)) return;
          // A copy of a row's own fields is a record of them, whichever row type zongji's typings give.
          got.push([e.getEventName(), e.rows.map((r) => plain({ ...r }))]);
          if (got.length === want.length) (clearTimeout(timer), resolve());
        });
        zongji.start({
          serverId: 77,
          filename: 'binlog.000001',
          position: 4,
          includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'],
        });
      });
    } finally {
      zongji.stop();
    }
    expect(got).toEqual(want);
  });

  it(
    'answers the INFORMATION_SCHEMA.COLUMNS queries CDC clients ask, prepared (as zongji asks) or not, ' +
      'from the TABLE_MAP names',
    async () => {
      const mysql = await import('mysql2/promise');
      const conn = await mysql.createConnection({ ...at(), password: '' });
      try {
        // zongji's query, through mysql2's execute (COM_STMT_PREPARE, COM_STMT_EXECUTE, the binary protocol).
        const asked =
          'SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, ' +
          'COLUMN_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=? AND TABLE_NAME=? ORDER BY ORDINAL_POSITION';
        const [rows] = await conn.execute(asked, ['shop', 'item']);
        expect(rows).toEqual([
          { COLUMN_NAME: 'id', COLLATION_NAME: null, CHARACTER_SET_NAME: null, COLUMN_COMMENT: '', COLUMN_TYPE: 'int' },
          {
            COLUMN_NAME: 'name',
            COLLATION_NAME: 'utf8mb4_general_ci',
            CHARACTER_SET_NAME: 'utf8mb4',
            COLUMN_COMMENT: '',
            COLUMN_TYPE: 'varchar',
          },
          {
            COLUMN_NAME: 'qty',
            COLLATION_NAME: null,
            CHARACTER_SET_NAME: null,
            COLUMN_COMMENT: '',
            COLUMN_TYPE: 'bigint',
          },
        ]);
        // Prepared once, executed again with other values; and as a plain query.
        await expect(conn.execute(asked, ['shop', 'nosuch'])).rejects.toThrow(
          /no TABLE_MAP of shop\.nosuch is in the served binlogs/,
        );
        const [text] = await conn.query(
          "SELECT column_name, ordinal_position FROM information_schema.columns WHERE table_name = 'item' AND " +
            "table_schema = 'shop'",
        );
        expect(text).toEqual([
          { column_name: 'id', ordinal_position: '1' },
          { column_name: 'name', ordinal_position: '2' },
          { column_name: 'qty', ordinal_position: '3' },
        ]);
        await expect(
          conn.query(
            "SELECT nosuch FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'item'",
          ),
        ).rejects.toThrow(/Unknown column 'nosuch'/);
        // The project's own client asks with aliases (replication/replica-columns.ts); backquotes and a bare
        // alias are read as a server reads them.
        const [aliased] = await conn.query(
          'SELECT COLUMN_NAME AS name, `COLUMN_TYPE` type, ' +
            "CHARACTER_SET_NAME AS 'charset' FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND " +
            "TABLE_NAME = 'item' ORDER BY ORDINAL_POSITION",
        );
        expect((aliased as { name: string; type: string }[]).map((r) => [r.name, r.type])).toEqual([
          ['id', 'int'],
          ['name', 'varchar'],
          ['qty', 'bigint'],
        ]);
        expect(Object.keys((aliased as object[])[0]!)).toEqual(['name', 'type', 'charset']);
      } finally {
        await conn.end();
      }
    },
  );

  it('gives each of several clients at once the whole binlog, one that leaves early harming none', async () => {
    const whole = events.map((e) => toJsonLine(e));
    const reader = async (leaveAfter?: number) => {
      const lines: string[] = [];
      const stream = connectBinlog({ ...at(), file: 'binlog.000001', position: 4, until: 'logs', heartbeatPeriod: 0 });
      for await (const e of stream) {
        if (!e.notInFile) lines.push(toJsonLine(e));
        if (lines.length === leaveAfter) break;
      }
      return lines;
    };
    const results = await Promise.all([reader(), reader(3), reader(), reader(1), reader()]);
    expect(results.map((r) => r.length)).toEqual([whole.length, 3, whole.length, 1, whole.length]);
    for (const r of results) expect(r).toEqual(whole.slice(0, r.length));
  });

  it('sends heartbeats while a blocking dump waits at the end', async () => {
    const stream = connectBinlog({ ...at(), file: 'binlog.000001', position: 4, heartbeatPeriod: 1 });
    const timer = setTimeout(() => stream.close(), WAIT_MS);
    let heartbeat: BinlogEvent | undefined;
    try {
      for await (const e of stream) {
        if (e.notInFile === 'heartbeat') {
          heartbeat = e;
          break;
        }
      }
    } finally {
      clearTimeout(timer);
      stream.close();
    }
    // Where the source stands: the end of the binlog.
    expect(heartbeat).toMatchObject({
      type: 'HEARTBEAT_LOG_EVENT',
      logFile: 'binlog.000001',
      header: { logPos: bytes.length },
    });
  });
});

describe('serveBinlog of events still arriving', () => {
  it('sends a client waiting at the end the transactions that come', async () => {
    const all = decodeBinlog(synthetic(), { file: 'binlog.000001' });
    const firstGtid = all.findIndex((e) => e.type === 'GTID_EVENT');
    let release!: () => void;
    const later = new Promise<void>((r) => (release = r));
    async function* arriving() {
      for (let i = 0; i < all.length; i++) {
        if (i === firstGtid + 3) await later;
        yield all[i] as BinlogEventInput;
      }
    }
    const server = await serveBinlog({ events: arriving() }, { log: (m) => console.log(m) });
    const lines: string[] = [];
    const stream = connectBinlog({
      host: '127.0.0.1',
      port: server.port,
      user: 'cdc',
      file: 'binlog.000001',
      position: 4,
      heartbeatPeriod: 1,
    });
    const timer = setTimeout(() => stream.close(), WAIT_MS);
    try {
      let released = false;
      for await (const e of stream) {
        if (e.notInFile === 'heartbeat' && !released) ((released = true), release());
        if (!e.notInFile) lines.push(toJsonLine(e));
        if (lines.length === all.length) break;
      }
    } finally {
      clearTimeout(timer);
      stream.close();
      await server.close();
    }
    expect(lines).toEqual(all.map((e) => toJsonLine(e)));
  });
});

describe('the variables CDC clients read before they stream, as the served binlogs imply them', () => {
  /** A one-row binlog whose TABLE_MAP carries the optional metadata `rowMetadata` says. */
  function binlogWith(rowMetadata: 'FULL' | 'MINIMAL' | 'NO_LOG'): BinlogEventInput[] {
    const w = new BinlogWriter({ timestamp: 1_700_000_000, rowMetadata });
    const t = w.createTable({ schema: 'shop', name: 'item', columns: [{ name: 'id', type: 'int unsigned' }] });
    w.insert(t, [{ id: 1 }]).commit();
    return decodeBinlog(w.end().toBytes(), { file: 'binlog.000001' });
  }

  it.each(['FULL', 'MINIMAL', 'NO_LOG'] as const)(
    'binlog_row_metadata is %s when the TABLE_MAPs carry that; questions in any case, with or without ;',
    async (rowMetadata) => {
      async function* served() {
        yield* binlogWith(rowMetadata);
      }
      const server = await serveBinlog({ events: served() }, { log: () => {} });
      const mysql = await import('mysql2/promise');
      const conn = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'cdc', password: '' });
      try {
        const [shown] = await conn.query("show global variables like 'BINLOG_ROW_METADATA';");
        expect(shown).toEqual([{ Variable_name: 'binlog_row_metadata', Value: rowMetadata }]);
        const [selected] = await conn.query('SELECT @@binlog_row_metadata, @@GLOBAL.binlog_format');
        expect(Object.values((selected as object[])[0]!)).toEqual([rowMetadata, 'ROW']);
        // An unknown variable is an empty result set, as a server gives for a LIKE that matches nothing.
        const [unknown] = await conn.query("SHOW SESSION VARIABLES LIKE 'no_such_variable'");
        expect(unknown).toEqual([]);
      } finally {
        await conn.end();
        await server.close();
      }
    },
  );
});
