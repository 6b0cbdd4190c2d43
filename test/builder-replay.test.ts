/**
 * A synthetic binlog from the builder, read by the real tools: `mariadb-binlog --verbose` reads it
 * without error, and `mariadb-binlog FILE | mariadb` replays it into a fresh real MariaDB 10.11 server,
 * which then holds exactly the intended rows (read back cell by cell with CAST and HEX). The server's own
 * TABLE_MAP for each table (binlog_row_metadata=FULL) is the builder's, and schemas/sqltypes.yaml's
 * character sets and collations are the server's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Charsets, Collations } from '../generated/sqltypes.js';
import {
  BinlogWriter,
  type BuiltColumn,
  describeTable,
  type RowInput,
  type Table,
  type TableDef,
} from '../builder/index.js';
import { charsetOf, encodeText } from '../runtime/values/charsets.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { EVERY_TYPE_COLUMNS } from './support/every-type.js';
import { describeWithServer, findMariadb, type MariadbServer, replay, startMariadb } from './support/mariadb.js';
import type { CellValue } from '../runtime/core/values.js';
import type { Split } from './support/rows.js';

type Of<T extends string> = Split<Extract<BinlogEvent, { type: T }>>;
const of = <T extends string>(events: BinlogEvent[], type: T) => events.filter((e): e is Of<T> => e.type === type);
const T0 = 1_700_000_000;
const bytes = (...b: number[]) => Uint8Array.from(b);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

function wkb(type: number, coords: number[], srid = 0, count?: number): Uint8Array {
  const head = count === undefined ? 9 : 13;
  const b = new DataView(new ArrayBuffer(head + 8 * coords.length));
  b.setUint32(0, srid, true);
  b.setUint8(4, 1);
  b.setUint32(5, type, true);
  if (count !== undefined) b.setUint32(9, count, true);
  coords.forEach((x, i) => b.setFloat64(head + 8 * i, x, true));
  return new Uint8Array(b.buffer);
}
const point = (x: number, y: number, srid = 0) => wkb(1, [x, y], srid);
const line = (...xy: number[]) => wkb(2, xy, 0, xy.length / 2);

// ---- the tables and what is done to them -------------------------------------------------------------------

const EVERY: TableDef = {
  schema: 'rt',
  name: 'every',
  columns: EVERY_TYPE_COLUMNS,
  primaryKey: 'id',
};

const E1: RowInput = {
  id: 1,
  ti: -128,
  tiu: 255,
  si: -32768,
  siu: 65535,
  mi: -8388608,
  miu: 16777215,
  i: -2147483648,
  bi: -(2n ** 63n),
  biu: 2n ** 64n - 1n,
  f: 3.4028235e38,
  d: -1.7976931348623157e308,
  dec: '-12345678901234567890123456789012345.123456789012345678901234567890',
  money: '999.99',
  day: '1000-01-01',
  t0: '-838:59:59',
  t3: '-00:00:01.500',
  t6: '-01:02:03.000004',
  dt: '1000-01-01 00:00:00',
  dt6: '9999-12-31 23:59:59.999999',
  ts: '1970-01-01 00:00:01',
  ts2: '2038-01-19 03:14:07.99',
  y: 1901,
  b1: 1n,
  b13: 8191n,
  b64: 2n ** 64n - 1n,
  e: 'large',
  s: ['red', 'blue'],
  c: 'héllo 😀',
  c255: 'ü'.repeat(255),
  bin: bytes(1, 2, 0, 0),
  vc: 'café €',
  vb: bytes(0, 1, 2, 0xff),
  u3: '日本語',
  asc: 'abc',
  u16: 'ab€𝄞',
  tt: 'tiny',
  tx: 'Ünïcödé text',
  mt: 'medium '.repeat(100),
  lt: 'long '.repeat(1000),
  tb: bytes(0xde, 0xad),
  bl: new Uint8Array(300).fill(7),
  mb: new Uint8Array(70_000).fill(9),
  lb: bytes(),
  j: '{"k": [1, "v", null], "n": 1.5}',
  g: line(0, 0, 1, 1),
  pt: point(-1.5, 2.25),
  ls: line(1, 2, 3, 4, 5, 6),
};
const E2: RowInput = {
  id: 2,
  ti: 127,
  tiu: 0,
  si: 32767,
  siu: 0,
  mi: 8388607,
  miu: 0,
  i: 2147483647,
  bi: 2n ** 63n - 1n,
  biu: 0n,
  f: 0.1,
  d: 5e-324,
  dec: '0.000000000000000000000000000001',
  money: '0.00',
  day: '9999-12-31',
  t0: '838:59:59',
  t3: '12:34:56.789',
  t6: '00:00:00.000000',
  dt: '2024-02-29 12:00:00',
  dt6: '0000-00-00 00:00:00.000000',
  ts: '2038-01-19 03:14:07',
  ts2: '0000-00-00 00:00:00.00',
  y: 0,
  b1: 0n,
  b13: 0n,
  b64: 0n,
  e: 'small',
  s: [],
  c: '',
  c255: '',
  bin: bytes(0, 0, 0, 0),
  vc: '',
  vb: bytes(),
  u3: '',
  asc: '',
  u16: '',
  tt: '',
  tx: '',
  mt: '',
  lt: '',
  tb: bytes(),
  bl: bytes(),
  mb: bytes(),
  lb: new Uint8Array(100_000).fill(1),
  j: '[]',
  g: point(0, 0, 4326),
  pt: point(0, 0),
  ls: line(),
};
const E3: RowInput = { id: 3 };
const E4: RowInput = {
  id: 4,
  ti: 0,
  f: -1.5,
  d: 0.1,
  dec: '3.141592653589793238462643383279',
  day: '2000-02-29',
  t6: '23:59:59.999999',
  y: 2155,
  e: 'medium',
  s: ['green'],
  j: '"text"',
};

const LATIN: TableDef = {
  schema: 'rt',
  name: 'latin',
  charset: 'latin1',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'c', type: 'char(5)' },
    { name: 'v', type: 'varchar(20)' },
    { name: 't', type: 'text' },
    { name: 'e', type: "enum('café','naïve','€uro')" },
    { name: 's', type: "set('à','ß','ç')" },
    { name: 'u', type: 'varchar(10)', charset: 'utf8mb4' },
    { name: 'b', type: 'varchar(10)', collation: 'latin1_bin' },
  ],
  primaryKey: 'id',
};
const ISAM: TableDef = {
  schema: 'rt',
  name: 'isam',
  engine: 'MyISAM',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'note', type: 'varchar(30)' },
    { name: 'n', type: 'double' },
  ],
  primaryKey: 'id',
};
/** No numeric column (no SIGNEDNESS), a character primary key. */
const NONUM: TableDef = {
  schema: 'rt',
  name: 'nonum',
  columns: [
    { name: 'k', type: 'varchar(20)' },
    { name: 'v', type: 'text' },
    { name: 'b', type: 'blob' },
  ],
  primaryKey: 'k',
};
const BIG: TableDef = {
  schema: 'rt',
  name: 'big',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'v', type: 'varchar(2000)' },
  ],
  primaryKey: 'id',
};
/** No primary key: row events find their rows by the whole before image. */
const NOPK: TableDef = {
  schema: 'rt',
  name: 'nopk',
  columns: [
    { name: 'a', type: 'int' },
    { name: 'd', type: 'double' },
    { name: 'b', type: 'bit(5)' },
    { name: 't', type: 'time(6)' },
  ],
};
/** A composite key in another order than the columns. */
const CKEY: TableDef = {
  schema: 'rt',
  name: 'ckey',
  columns: [
    { name: 'a', type: 'int' },
    { name: 'b', type: 'varchar(10)' },
    { name: 'c', type: 'date' },
  ],
  primaryKey: ['b', 'a'],
};
const STMT: TableDef = {
  schema: 'rt',
  name: 'stmt',
  columns: [
    { name: 'id', type: 'int' },
    { name: 'v', type: 'varchar(40)' },
  ],
  primaryKey: 'id',
};
const TABLES = [EVERY, LATIN, ISAM, NONUM, BIG, NOPK, CKEY, STMT].map(describeTable);
const table = (name: string) => TABLES.find((t) => t.name === name)!;

/** The rows each table must hold at the end, by key, and the row changes each table's row events carry. */
class Model {
  readonly rows = new Map<string, Map<string, Record<string, CellValue>>>();
  readonly changes = new Map<string, { insert: number; update: number; delete: number }>();
  private key(t: Table, r: Record<string, CellValue>): string {
    const cols = t.primaryKey.length ? t.primaryKey.map((i) => t.columns[i]!.name) : t.columns.map((c) => c.name);
    return JSON.stringify(cols.map((c) => String(r[c] ?? null)));
  }
  private full(t: Table, r: RowInput): Record<string, CellValue> {
    return Object.fromEntries(t.columns.map((c) => [c.name, r[c.name] ?? null]));
  }
  private of(t: Table) {
    if (!this.rows.has(t.name)) this.rows.set(t.name, new Map());
    if (!this.changes.has(t.name)) this.changes.set(t.name, { insert: 0, update: 0, delete: 0 });
    return { rows: this.rows.get(t.name)!, changes: this.changes.get(t.name)! };
  }
  /** `rowEvents`: false for the changes of a statement (a QUERY event), which are no row events. */
  insert(t: Table, rows: RowInput[], rowEvents = true): void {
    const m = this.of(t);
    for (const r of rows) m.rows.set(this.key(t, this.full(t, r)), this.full(t, r));
    if (rowEvents) m.changes.insert += rows.length;
  }
  update(t: Table, pairs: [RowInput, RowInput][], rowEvents = true): void {
    const m = this.of(t);
    for (const [before, after] of pairs) {
      m.rows.delete(this.key(t, this.full(t, before)));
      m.rows.set(this.key(t, this.full(t, after)), this.full(t, after));
    }
    if (rowEvents) m.changes.update += pairs.length;
  }
  delete(t: Table, rows: RowInput[]): void {
    const m = this.of(t);
    for (const r of rows) m.rows.delete(this.key(t, this.full(t, r)));
    m.changes.delete += rows.length;
  }
}

/** Writes the test's binlog and keeps the model of what it does. */
function build(options: ConstructorParameters<typeof BinlogWriter>[0] = {}): {
  w: BinlogWriter;
  model: Model;
  lastSeq: Map<number, bigint>;
} {
  const w = new BinlogWriter({ serverId: 7, timestamp: T0, checkpointFile: 'builder.000001', ...options });
  const model = new Model();
  const ops = {
    insert: (t: Table, rows: RowInput[], statement?: string) => (
      w.insert(t, rows, statement ? { statement } : {}),
      model.insert(t, rows)
    ),
    update: (t: Table, pairs: [RowInput, RowInput][]) => (w.update(t, pairs), model.update(t, pairs)),
    delete: (t: Table, rows: RowInput[]) => (w.delete(t, rows), model.delete(t, rows)),
  };
  w.createDatabase('rt');
  for (const t of TABLES) w.createTable(t);

  const every = table('every');
  ops.insert(every, [E1, E2, E3, E4], 'INSERT INTO every …');
  const latin = table('latin');
  const L1 = { id: 1, c: 'àé', v: 'café €', t: 'Ærøskøbing', e: 'naïve', s: ['à', 'ç'], u: '😀 ok', b: 'Bin' };
  const L2 = { id: 2, c: '', v: 'x', e: '€uro', s: [], u: '' };
  ops.insert(latin, [L1, L2]);
  w.commit();

  const E1b = {
    ...E1,
    ti: 0,
    dec: '1.000000000000000000000000000000',
    e: 'medium',
    s: ['red', 'green', 'blue'],
    c: null,
    j: null,
    pt: point(9, 9),
    mb: bytes(1),
  };
  ops.update(every, [
    [E1, E1b],
    [E3, { ...E3, vc: 'now set', y: 1999 }],
  ]);
  ops.delete(every, [E2]);
  ops.update(latin, [[L2, { ...L2, v: 'ÿ', e: 'café', s: ['ß'] }]]);
  w.commit();

  const isam = table('isam');
  ops.insert(isam, [
    { id: 1, note: 'not transactional', n: 2.5 },
    { id: 2, note: 'gone soon', n: -0.25 },
  ]);
  w.commit(); // QUERY COMMIT
  ops.delete(isam, [{ id: 2, note: 'gone soon', n: -0.25 }]);
  w.commit();

  const nonum = table('nonum');
  ops.insert(nonum, [
    { k: 'alpha', v: 'first', b: bytes(1, 2, 3) },
    { k: 'beta', v: null, b: null },
    { k: 'gamma', v: 'third' },
  ]);
  ops.update(nonum, [[{ k: 'beta' }, { k: 'beta2', v: 'renamed' }]]);
  w.commit();

  // One statement of 30 rows of 1000 characters: four row events, as a server splits them.
  const big = table('big');
  const bigRows = Array.from({ length: 30 }, (_, i) => ({
    id: i + 1,
    v: String.fromCharCode(97 + (i % 26)).repeat(1000),
  }));
  ops.insert(big, bigRows, 'INSERT INTO big SELECT seq, REPEAT(…, 1000) FROM seq_1_to_30');
  w.commit();
  ops.update(
    big,
    bigRows.slice(0, 5).map((r) => [r, { ...r, v: r.v.toUpperCase() }] as [RowInput, RowInput]),
  );
  ops.delete(big, bigRows.slice(27));
  w.commit();

  // Another replication domain for one transaction.
  const nopk = table('nopk');
  w.gtid({ domainId: 2, seqNo: 1000 });
  ops.insert(nopk, [
    { a: 1, d: 0.5, b: 31n, t: '-12:00:00.000001' },
    { a: 2, d: 1e300, b: 0n, t: '00:00:00.000000' },
    { a: 3 },
  ]);
  ops.update(nopk, [[{ a: 3 }, { a: 3, d: -2.5 }]]);
  ops.delete(nopk, [{ a: 2, d: 1e300, b: 0n, t: '00:00:00.000000' }]);
  w.commit();

  const ckey = table('ckey');
  ops.insert(ckey, [
    { a: 1, b: 'k', c: '2020-01-01' },
    { a: 2, b: 'k', c: null },
    { a: 1, b: 'j', c: '1999-12-31' },
  ]);
  ops.update(ckey, [
    [
      { a: 2, b: 'k', c: null },
      { a: 2, b: 'z', c: '2021-06-30' },
    ],
  ]);
  w.commit();

  // Statements, alone (autocommit) and inside a transaction with row events.
  const stmt = table('stmt');
  w.query("INSERT INTO stmt (id, v) VALUES (1, 'from a statement')", { schema: 'rt' });
  model.insert(stmt, [{ id: 1, v: 'from a statement' }], false);
  w.begin();
  w.query("UPDATE stmt SET v = 'changed by a statement' WHERE id = 1", { schema: 'rt' });
  model.update(stmt, [[{ id: 1 }, { id: 1, v: 'changed by a statement' }]], false);
  ops.insert(stmt, [{ id: 2, v: 'from a row event' }]);
  w.commit();

  w.rotate('builder.000002');
  const lastSeq = new Map<number, bigint>();
  for (const g of of(decodeBinlog(w.toBytes()), 'GTID_EVENT')) lastSeq.set(g.domainId, g.seqNo);
  return { w, model, lastSeq };
}

// ---- reading back ----------------------------------------------------------------------------------------------

/** An SQL expression that reads the cell back exactly. */
function readExpr(c: BuiltColumn): string {
  const q = `\`${c.name}\``;
  switch (c.kind) {
    case 'float':
      return `CAST(${q} AS DOUBLE)`; // a FLOAT's exact value
    case 'bit':
      return `CAST(${q} AS UNSIGNED)`;
    case 'int':
    case 'decimal':
    case 'date':
    case 'time':
    case 'datetime':
    case 'timestamp':
    case 'year':
      return `CAST(${q} AS CHAR)`;
    default:
      return `HEX(${q})`; // ENUM, SET, strings, blobs, JSON, geometry: their stored bytes
  }
}

/** What readExpr must give for the value the builder was given (numbers normalised as JavaScript prints them). */
function expectedText(c: BuiltColumn, v: CellValue): string | null {
  if (v === null) return null;
  const text = (s: string) => hex(encodeText(s, c.charset === 'binary' ? 'utf8mb4' : c.charset!));
  switch (c.kind) {
    case 'float':
      return String(c.sqlType.startsWith('FLOAT') ? Math.fround(v as number) : v);
    case 'year':
      return v === 0 ? '0000' : String(v);
    case 'int':
    case 'decimal':
    case 'date':
    case 'time':
    case 'datetime':
    case 'timestamp':
    case 'bit':
      return String(v);
    case 'enum':
      return text(typeof v === 'number' ? c.members![v - 1]! : (v as string));
    case 'set':
      return text((v as string[]).join(','));
    case 'char':
      if (c.charset === 'binary') {
        const padded = new Uint8Array(c.length!);
        padded.set(v as Uint8Array);
        return hex(padded);
      }
      return typeof v === 'string' ? text(v) : hex(v as Uint8Array);
    default:
      return typeof v === 'string' ? text(v) : hex(v as Uint8Array);
  }
}

const serverText = (c: BuiltColumn, s: string | null) => (s !== null && c.kind === 'float' ? String(Number(s)) : s);

function run(cmd: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describeWithServer('builder binlogs, read and replayed by a real MariaDB 10.11', () => {
  let tmp: string;
  let built: ReturnType<typeof build>;
  let ours: BinlogEvent[];
  let verbose: ReturnType<typeof run>;
  let verboseNone: ReturnType<typeof run>;
  let server: MariadbServer;
  let replayed: Awaited<ReturnType<typeof replay>>;
  let contents: Map<string, (string | null)[][]>;
  let gtidPos: string;
  let charsets: (string | null)[][];
  let collations: (string | null)[][];
  let serverEvents: BinlogEvent[];

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'binlog-builder-replay-'));
    const file = join(tmp, 'builder.000001');
    const noChecksum = join(tmp, 'nocrc.000001');
    built = build();
    await built.w.writeTo(file);
    ours = decodeBinlog(built.w.toBytes());
    await build({ checksum: 'NONE' }).w.writeTo(noChecksum);
    const bin = findMariadb()!;
    verbose = run(bin.binlogTool, ['--no-defaults', '--verbose', file]);
    verboseNone = run(bin.binlogTool, ['--no-defaults', '--verbose', noChecksum]);

    server = await startMariadb();
    replayed = await replay(bin.binlogTool, bin.client, file, server.socket);
    gtidPos = (await server.sql('SELECT @@gtid_binlog_pos')).trim();
    contents = new Map();
    for (const t of TABLES) {
      const key = (t.primaryKey.length ? t.primaryKey.map((i) => t.columns[i]!) : t.columns)
        .map((c) => `\`${c.name}\``)
        .join(', ');
      const cols = t.columns.map(readExpr).join(', ');
      const sql = `SET time_zone = '+00:00'; SELECT ${cols} FROM rt.\`${t.name}\` ORDER BY ${key}`;
      contents.set(t.name, await server.query(sql));
    }
    charsets = await server.query(
      'SELECT CHARACTER_SET_NAME, DEFAULT_COLLATE_NAME, MAXLEN FROM information_schema.CHARACTER_SETS',
    );
    collations = await server.query('SELECT ID, COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLLATIONS');
    // The server's own TABLE_MAP of each table, from a copy it fills itself.
    for (const t of TABLES)
      await server.sql(
        `CREATE TABLE rt.\`copy_${t.name}\` LIKE rt.\`${t.name}\`; ` +
          `INSERT INTO rt.\`copy_${t.name}\` SELECT * FROM rt.\`${t.name}\`;`,
      );
    serverEvents = (await server.stopAndReadBinlogs()).flatMap((f) => decodeBinlog(f.bytes));
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('mariadb-binlog --verbose reads the builder’s binlog without error and shows every row change', () => {
    for (const r of [verbose, verboseNone]) {
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
    for (const [name, n] of built.model.changes) {
      const count = (re: RegExp) => verbose.stdout.split('\n').filter((l) => re.test(l)).length;
      expect(
        [
          count(new RegExp(`^### INSERT INTO \`rt\`\\.\`${name}\`$`)),
          count(new RegExp(`^### UPDATE \`rt\`\\.\`${name}\`$`)),
          count(new RegExp(`^### DELETE FROM \`rt\`\\.\`${name}\`$`)),
        ],
        name,
      ).toEqual([n.insert, n.update, n.delete]);
    }
    // Its account of a few values, and of the events' framing.
    // (mariadb-binlog prints integers signed, with the unsigned reading after.)
    expect(verbose.stdout).toContain('###   @2=-128 (128)');
    expect(verbose.stdout).toContain('###   @10=-1 (18446744073709551615)');
    expect(verbose.stdout).toContain('###   @13=-12345678901234567890123456789012345.123456789012345678901234567890');
    expect(verbose.stdout).toMatch(/GTID 2-7-1000 trans/);
    expect(verbose.stdout).toMatch(/Rotate to builder\.000002 {2}pos: 4/);
    expect(verbose.stdout).toMatch(/CRC32 0x[0-9a-f]{8}/);
    expect(verboseNone.stdout).not.toMatch(/CRC32 0x/);
  });

  it('mariadb-binlog FILE | mariadb replays it into a fresh server without error', () => {
    expect(replayed).toEqual({ dump: 0, client: 0, stderr: '' });
  });

  it('the server then holds exactly the intended rows, cell by cell', () => {
    for (const t of TABLES) {
      const rows = [...built.model.rows.get(t.name)!.values()];
      const order = t.primaryKey.length ? t.primaryKey.map((i) => t.columns[i]!) : t.columns;
      rows.sort((a, b) => {
        for (const c of order) {
          const [x, y] = [a[c.name], b[c.name]];
          if (x === y) continue;
          if (x === null) return -1;
          if (y === null) return 1;
          return typeof x === 'string' ? (x < (y as string) ? -1 : 1) : Number(x) - Number(y);
        }
        return 0;
      });
      const expected = rows.map((r) => t.columns.map((c) => expectedText(c, r[c.name]!)));
      const actual = contents.get(t.name)!.map((r) => r.map((v, i) => serverText(t.columns[i]!, v)));
      expect(actual.length, t.name).toBe(expected.length);
      for (let k = 0; k < expected.length; k++) {
        for (let i = 0; i < t.columns.length; i++) {
          expect(actual[k]![i], `${t.name} row ${k} column ${t.columns[i]!.name}`).toBe(expected[k]![i]);
        }
      }
    }
  });

  it('the server writes the same TABLE_MAP for each table as the builder (binlog_row_metadata=FULL)', () => {
    const shape = (e: Of<'TABLE_MAP_EVENT'>) => {
      const {
        pos: _p,
        header: _h,
        checksum: _c,
        tableId: _i,
        tableName: _n,
        ...rest
      } = JSON.parse(toJsonLine(e)) as Record<string, unknown>;
      return rest;
    };
    for (const t of TABLES) {
      const mine = of(ours, 'TABLE_MAP_EVENT').find((e) => e.tableName === t.name);
      expect(mine, t.name).toBeDefined();
      // From the server's own definition of the table, filled by INSERT … SELECT.
      const copy = of(serverEvents, 'TABLE_MAP_EVENT').find((e) => e.tableName === `copy_${t.name}`);
      expect(shape(copy!), t.name).toEqual(shape(mine!));
      // And as it logged the rows it replayed.
      const replayedMap = of(serverEvents, 'TABLE_MAP_EVENT').find((e) => e.tableName === t.name);
      expect(shape(replayedMap!), t.name).toEqual(shape(mine!));
    }
  });

  it('the server splits a statement into row events as the builder does', () => {
    const copy = serverEvents.find(
      (e) => e.type === 'TABLE_MAP_EVENT' && (e as Of<'TABLE_MAP_EVENT'>).tableName === 'copy_big',
    ) as Of<'TABLE_MAP_EVENT'>;
    const theirs = of(serverEvents, 'WRITE_ROWS_EVENT_V1').filter((e) => e.tableId === copy.tableId);
    const w = new BinlogWriter({ timestamp: T0 });
    w.insert(table('big'), [...built.model.rows.get('big')!.values()] as RowInput[]).commit();
    const mine = of(decodeBinlog(w.toBytes()), 'WRITE_ROWS_EVENT_V1');
    expect(theirs.map((e) => [e.rows.length, e.header.eventSize, e.flags])).toEqual(
      mine.map((e) => [e.rows.length, e.header.eventSize, e.flags]),
    );
    expect(mine.length).toBeGreaterThan(1);
    // Our 30-row statement: 8, 8, 8, 6 rows, as the server split the same statement (test/builder.test.ts).
    const ourBig = of(ours, 'TABLE_MAP_EVENT').find((e) => e.tableName === 'big')!;
    expect(
      of(ours, 'WRITE_ROWS_EVENT_V1')
        .filter((e) => e.tableId === ourBig.tableId)
        .map((e) => e.rows.length),
    ).toEqual([8, 8, 8, 6]);
  });

  it('the replayed GTIDs are the builder’s: @@gtid_binlog_pos is the last of each domain', () => {
    const expected = [...built.lastSeq]
      .sort((a, b) => a[0] - b[0])
      .map(([domain, seq]) => `${domain}-7-${seq}`)
      .join(',');
    expect(gtidPos).toBe(expected);
    expect(expected).toMatch(/^0-7-\d+,2-7-1000$/);
  });

  it(
    'schemas/sqltypes.yaml: the character sets (default collation, ' +
      'bytes per character) and collations are the server’s',
    () => {
      const server = new Map(
        charsets.map(([name, collation, maxlen]) => [name!, { collation: collation!, maxlen: Number(maxlen) }]),
      );
      const ids = new Map(collations.map(([id, name, charset]) => [Number(id), { name: name!, charset: charset! }]));
      for (const [id, c] of Charsets as ReadonlyMap<number, { name: string; maxBytes: number }>) {
        expect(server.get(c.name), c.name).toEqual({ collation: ids.get(id)!.name, maxlen: c.maxBytes });
      }
      for (const [id, name] of Collations as ReadonlyMap<number, string>) {
        expect(ids.get(id), `${id}`).toEqual({ name, charset: charsetOf(id) });
      }
    },
  );
});
