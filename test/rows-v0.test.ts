/**
 * Rows v0 (MySQL 5.1.0 to 5.1.17) decoded with the caller's table definition. The fixtures' values are
 * what the statements of MySQL 5.1's mysql-test made them: suite/binlog/t/binlog_old_versions.test
 * (CREATE TABLE t1 (a int, b char(50)) ENGINE=MyISAM; INSERT INTO t1 VALUES (0, 'one'), (1, 'two');
 * UPDATE t1 SET a=a+1; DELETE FROM t1 WHERE a=2) and suite/binlog/t/binlog_base64_flag.test for
 * bug32407.001 (CREATE TABLE t1 (a int) engine = myisam; INSERT INTO t1 VALUES (1), (1), logged as two
 * events). The hand-made images follow sql/rpl_record_old.cc, sql/table.cc and sql/field.cc of 5.1.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BinlogError, EncodeError, InvalidValueError } from '../runtime/core/errors.js';
import { EventDecoder, eventFromJson, type BinlogEvent, type BinlogEventInput } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { TableDefinitionError } from '../builder/index.js';
import { parseTableSql, type TableDefinitions } from '../runtime/tables/definitions.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { caught, hex } from './runtime/helpers.js';

const byName = (suffix: string) => readFileSync(fixtures().find((f) => f.name.endsWith(suffix))!.path);
const T1: TableDefinitions = { 'test.t1': 'CREATE TABLE t1 (a int, b char(50)) ENGINE = MyISAM' };
const oldRows = (events: BinlogEvent[]) =>
  events.filter((e) => e.type.startsWith('PRE_GA_')) as (BinlogEvent & { rows?: unknown[]; rowImages?: Uint8Array })[];

/** decode → encode, and dump → JSON → encode, both with the definitions, give the input back. */
function expectRoundTrips(bytes: Uint8Array, tableDefinitions: TableDefinitions): void {
  const events = decodeBinlog(bytes, { tableDefinitions });
  expect(Buffer.from(encodeBinlog(events, { tableDefinitions })).equals(Buffer.from(bytes))).toBe(true);
  const fromJson = events.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`));
  expect(Buffer.from(encodeBinlog(fromJson, { tableDefinitions })).equals(Buffer.from(bytes))).toBe(true);
}

describeWithFixtures('rows v0 with the table definition', () => {
  for (const name of ['ver_5_1_17.001', 'ver_5_1-telco.001', 'ver_5_1-wl2325_r.001']) {
    it(`${name}: the INSERT, UPDATE and DELETE of binlog_old_versions.test, exactly`, () => {
      const bytes = byName(name);
      const rows = oldRows(decodeBinlog(bytes, { tableDefinitions: T1 }));
      expect(rows.map((e) => [e.type, e.rows])).toEqual([
        ['PRE_GA_WRITE_ROWS_EVENT', [{ after: { a: 0, b: 'one' } }, { after: { a: 1, b: 'two' } }]],
        [
          'PRE_GA_UPDATE_ROWS_EVENT',
          [
            { before: { a: 0, b: 'one' }, after: { a: 1, b: 'one' } },
            { before: { a: 1, b: 'two' }, after: { a: 2, b: 'two' } },
          ],
        ],
        ['PRE_GA_DELETE_ROWS_EVENT', [{ before: { a: 2, b: 'two' } }]],
      ]);
      expect(rows.every((e) => e.rowImages === undefined && !toJsonLine(e).includes('rowImagesUndecoded'))).toBe(true);
      expectRoundTrips(bytes, T1);
    });
  }

  it(
    'ver_5_1-wl2325_r.001: framing alone knows its tables, ' + 'stored as TABLE_MAP under the code 16 (XID elsewhere)',
    () => {
      const bytes = byName('ver_5_1-wl2325_r.001');
      const events = decodeBinlog(bytes, { tableDefinitions: T1 });
      const maps = events.filter((e) => e.type === 'TABLE_MAP_EVENT') as (BinlogEvent & { tableId: number })[];
      expect(maps.length).toBeGreaterThan(0);
      const framer = new EventDecoder({ tableDefinitions: T1 });
      for (const e of events) framer.frame(bytes.subarray(e.pos, e.pos + e.header.eventSize), e.pos);
      for (const m of maps) expect(framer.format.tables.get(m.tableId)).toBeDefined();
    },
  );

  it('bug32407.001: two INSERTs of a = 1 into t1 (a int), also from a bare column list', () => {
    const bytes = byName('std_data__bug32407.001');
    for (const def of ['create table t1 (a int) engine= myisam', 'a int']) {
      const rows = oldRows(decodeBinlog(bytes, { tableDefinitions: { 'test.t1': def } }));
      expect(rows.map((e) => e.rows)).toEqual([[{ after: { a: 1 } }], [{ after: { a: 1 } }]]);
      expectRoundTrips(bytes, { 'test.t1': def });
    }
  });

  it('without a definition (or with one of another table) the images stay bytes', () => {
    for (const defs of [undefined, { 'test.t9': 'a int' }]) {
      const rows = oldRows(decodeBinlog(byName('ver_5_1_17.001'), { tableDefinitions: defs }));
      expect(rows.every((e) => e.rowImages instanceof Uint8Array && e.rows === undefined)).toBe(true);
    }
  });

  it('a definition the images do not fit is a typed error naming the event, never other values', () => {
    const bytes = byName('ver_5_1_17.001');
    const decode = (def: string) =>
      caught(InvalidValueError, () => decodeBinlog(bytes, { tableDefinitions: { 'test.t1': def } }));
    // NOT NULL b has no null bit: bit 2 would be unused, and so set; the record has it clear (b is not NULL).
    const notNull = decode('a int, b char(50) not null');
    expect(notNull).toMatchObject({ eventPos: 461, eventType: 20, schemaPath: 'OldRowsEvent.rows.after.nullBytes' });
    expect(notNull.message).toContain('null bit 2');
    expect(decode('a int, b char(2)').message).toContain('longer than');
    // A definition of other columns than the TABLE_MAP's is refused as the TABLE_MAP is read.
    const other = (def: string) =>
      caught(TableDefinitionError, () => decodeBinlog(bytes, { tableDefinitions: { 'test.t1': def } }));
    expect(other('a int')).toMatchObject({
      eventPos: 421,
      problem: 'table test.t1: the definition has 1 columns, the TABLE_MAP 2',
    });
    expect(other('a int, b varchar(50)').problem).toBe(
      'table test.t1, column b: the TABLE_MAP logs STRING, ' +
        'the definition says VARCHAR(50) (logged as VARCHAR or VARCHAR_COMPRESSED)',
    );
    expect(other('a bigint, b char(50)').problem).toBe(
      'table test.t1, column a: the TABLE_MAP logs LONG, the definition says BIGINT (logged as LONGLONG)',
    );
    expect(other('a int, b char(50), c text').problem).toContain('the definition has 3 columns');
  });

  it('encoding refuses a NULL in a NOT NULL column and null bytes that contradict the row', () => {
    const defs: TableDefinitions = { 'test.t1': 'a int, b char(50)' };
    const events = decodeBinlog(byName('ver_5_1_17.001'), { tableDefinitions: defs }) as (BinlogEvent & {
      rows?: { after?: Record<string, unknown>; nullBytes?: unknown }[];
    })[];
    const write = events.find((e) => e.type === 'PRE_GA_WRITE_ROWS_EVENT')!;
    write.rows![0]!.after!.a = null;
    const reread = oldRows(decodeBinlog(encodeBinlog(events, { tableDefinitions: defs }), { tableDefinitions: defs }));
    expect(reread[0]!.rows).toEqual([{ after: { a: null, b: 'one' } }, { after: { a: 1, b: 'two' } }]);
    const notNull = caught(EncodeError, () =>
      encodeBinlog(events, { tableDefinitions: { 'test.t1': 'a int not null, b char(50)' } }),
    );
    expect([notNull.schemaPath, notNull.problem]).toEqual([
      '$.rows[0].after.a',
      "column 'a' is NOT NULL in the definition",
    ]);
    write.rows![1]!.after!.b = 2;
    const value = caught(EncodeError, () => encodeBinlog(events, { tableDefinitions: defs }));
    expect([value.schemaPath, value.problem]).toEqual(['$.rows[1].after.b', 'expected text or bytes, found 2']);
    write.rows![1]!.after!.b = 'two';
    write.rows![0]!.nullBytes = { after: hex('f9') }; // says a is not NULL
    const bits = caught(EncodeError, () => encodeBinlog(events, { tableDefinitions: defs }));
    expect([bits.schemaPath, bits.problem]).toEqual(['$.rows[0].nullBytes.after', 'null bit 1 disagrees with the row']);
  });
});

describeWithFixtures('binlog dump and encode --table-def', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'binlog-v0-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const binlog = (args: string[]) => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'binlog'), ...args], {
      maxBuffer: 1 << 28,
    });
    return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  const source = fixtures().find((f) => f.name.endsWith('ver_5_1_17.001'))!.path;

  it('dump gives the rows, encode with the same definition (from a file here) gives the binlog back', () => {
    const dump = binlog(['dump', `--table-def=test.t1=${T1['test.t1']}`, source]);
    expect(dump.code).toBe(0);
    const lines = dump.stdout.split('\n').filter(Boolean);
    expect(JSON.parse(lines.find((l) => l.includes('PRE_GA_DELETE'))!).rows).toEqual([{ before: { a: 2, b: 'two' } }]);
    const jsonl = join(tmp, 'v0.jsonl');
    writeFileSync(jsonl, dump.stdout);
    const sql = join(tmp, 't1.sql');
    writeFileSync(sql, T1['test.t1'] as string);
    const out = join(tmp, 'v0.bin');
    expect(binlog(['encode', jsonl, '-o', out, '--table-def', `test.t1=@${sql}`]).code).toBe(0);
    expect(readFileSync(out).equals(readFileSync(source))).toBe(true);
    // Without the definition, the file's own CREATE TABLE t1 gives it (the schema history), before its rows.
    const plain = binlog(['dump', source]);
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    expect(JSON.parse(plain.stdout.split('\n').find((l) => l.includes('PRE_GA_DELETE'))!).rows).toEqual([
      { before: { a: 2, b: 'two' } },
    ]);
    const again = join(tmp, 'again.bin');
    expect(binlog(['encode', jsonl, '-o', again]).code).toBe(0);
    expect(readFileSync(again).equals(readFileSync(source))).toBe(true);
  });

  it(
    "a wrong definition is replaced by the file's own CREATE " + 'TABLE; one that cannot be described is a usage error',
    () => {
      // The definitions given are those at the file's start: its CREATE TABLE t1 comes after, and is what its rows read
      // with.
      const wrong = binlog(['dump', '--table-def', 'test.t1=a int, b char(50) not null', source]);
      expect([wrong.code, wrong.stderr]).toEqual([0, '']);
      expect(wrong.stdout).toContain('"rows":[{"before":{"a":2,"b":"two"}}]');
      expect(binlog(['dump', '--table-def', 'test.t1=a nosuch', source]).code).toBe(2);
      expect(binlog(['dump', '--table-def', 'no-equals-sign', source]).code).toBe(2);
      const defs = join(tmp, 'defs.json');
      writeFileSync(
        defs,
        JSON.stringify({
          'test.t1': {
            columns: [
              { name: 'a', type: 'int' },
              { name: 'b', type: 'char(50)' },
            ],
          },
        }),
      );
      expect(binlog(['dump', '--table-defs', defs, source]).stdout).toContain('"rows":[{"before":{"a":2,"b":"two"}}]');
    },
  );
});

// ---- hand-made images ---------------------------------------------------------------------------------

/**
 * A MyISAM table t2 (a int, b bit(3), c varchar(5) not null, d decimal(5,2) default 1.50,
 * e enum('x','y'), f datetime). Its VARCHAR packs the record, so there is no reserved bit; MyISAM keeps
 * BIT odd bits in the null bytes: a's null bit is bit 0, b's bit 1 and its three bits 2-4, then d 5,
 * e 6, f 7: one null byte.
 */
const T2_SQL =
  "CREATE TABLE t2 (a int, b bit(3), c varchar(5) NOT NULL, d decimal(5,2) DEFAULT 1.50, e enum('x','y'), " +
  'f datetime) ENGINE=MyISAM';
const T2: TableDefinitions = { 'test.t2': T2_SQL };

const le64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b.toString('hex');
};
/** (7, b'101', 'hi', 12.34, 'y', '2007-01-10 12:34:56'): b's bits 101 in bits 2-4 of the null byte. */
const ROW_VALUES = `14 07000000 05 026869 800c22 02 ${le64(20070110123456n)}`;
/** All nullable columns NULL, c '': each written as its default: d as 1.50, the others empty. */
const ROW_NULLS = `e3 00000000 00 00 800132 00 ${le64(0n)}`;

/** A 5.1.17 binlog (its FDE, STOP) with t2's TABLE_MAP and one WRITE event of these images. */
function t2Binlog(images: string, columnsPresent = Array(6).fill(true)): Uint8Array {
  const fixture = decodeBinlog(byName('ver_5_1_17.001'));
  const fde = fixture[0]!;
  const map = fixture.find((e) => e.type === 'TABLE_MAP_EVENT')!;
  const write = fixture.find((e) => e.type === 'PRE_GA_WRITE_ROWS_EVENT')!;
  const stop = fixture[fixture.length - 1]!;
  const columnTypes = ['LONG', 'BIT', 'VARCHAR', 'NEWDECIMAL', 'STRING', 'DATETIME'];
  const events = [
    fde,
    { ...map, tableId: 20, tableName: 't2', columnCount: 6, columnTypes },
    { ...write, tableId: 20, columnCount: 6, columnsPresent, columnsPresentSpare: 0b11, rowImages: hex(images) },
    stop,
  ] as BinlogEventInput[];
  return encodeBinlog(events);
}

describeWithFixtures("rows v0 hand-made images (on the 5.1.17 fixture's FDE)", () => {
  it('NULLs, a BIT in the null bytes, VARCHAR, DECIMAL, ENUM, DATETIME: values, and the written defaults kept', () => {
    const bytes = t2Binlog(`${ROW_VALUES} ${ROW_NULLS}`);
    const [write] = oldRows(decodeBinlog(bytes, { tableDefinitions: T2 }));
    expect(write!.rows).toEqual([
      { after: { a: 7, b: 5n, c: 'hi', d: '12.34', e: 'y', f: '2007-01-10 12:34:56' } },
      { after: { a: null, b: null, c: '', d: null, e: null, f: null }, nullValues: { after: { d: '1.50' } } },
    ]);
    expectRoundTrips(bytes, T2);
  });

  it('null bytes a row does not explain (a BIT odd bit that is not its value) are kept, and given back', () => {
    const bytes = t2Binlog(`04 07000000 05 026869 800c22 02 ${le64(20070110123456n)}`);
    const [write] = oldRows(decodeBinlog(bytes, { tableDefinitions: T2 }));
    expect(write!.rows).toEqual([
      {
        after: { a: 7, b: 5n, c: 'hi', d: '12.34', e: 'y', f: '2007-01-10 12:34:56' },
        nullBytes: { after: hex('04') },
      },
    ]);
    expectRoundTrips(bytes, T2);
  });

  it('a column absent from the image has no value; its null bit, set in the record, is kept in nullBytes', () => {
    const present = [true, true, true, true, true, false];
    const values = { a: 7, b: 5n, c: 'hi', d: '12.34', e: 'y' };
    for (const [nullByte, kept] of [
      ['14', undefined],
      ['94', { after: hex('94') }],
    ] as const) {
      const bytes = t2Binlog(`${nullByte} 07000000 05 026869 800c22 02`, present);
      const [write] = oldRows(decodeBinlog(bytes, { tableDefinitions: T2 }));
      expect(write!.rows).toEqual([kept ? { after: values, nullBytes: kept } : { after: values }]);
      expectRoundTrips(bytes, T2);
    }
  });

  it(
    'the engine and row format place the null bits: InnoDB ' +
      'keeps no BIT bits, ROW_FORMAT=FIXED keeps the reserved bit',
    () => {
      // InnoDB: no odd bits, so d, e, f are bits 2-4 and 5-7 are unused (set): the images do not fit.
      const innodb = T2_SQL.replace('MyISAM', 'InnoDB');
      caught(InvalidValueError, () => decodeBinlog(t2Binlog(ROW_VALUES), { tableDefinitions: { 'test.t2': innodb } }));
      // FIXED: the VARCHAR no longer packs the record; its reserved bit 0 would be a's, which is clear.
      caught(InvalidValueError, () =>
        decodeBinlog(t2Binlog(ROW_VALUES), { tableDefinitions: { 'test.t2': `${T2_SQL} ROW_FORMAT=FIXED` } }),
      );
      // packRecord says what the columns cannot (a table ALTERed from another layout).
      const given = { 'test.t2': { ...parseTableSql(`${T2_SQL} ROW_FORMAT=FIXED`, 'test.t2'), packRecord: true } };
      expect(oldRows(decodeBinlog(t2Binlog(ROW_VALUES), { tableDefinitions: given }))[0]!.rows).toHaveLength(1);
    },
  );

  it(
    'CREATE TABLE is read for columns, keys, engine, row ' + 'format and charset; what cannot be described is refused',
    () => {
      expect(
        parseTableSql(
          'CREATE TABLE IF NOT EXISTS `db`.`t` (`id` int NOT NULL AUTO_INCREMENT, ' +
            "s varchar(10) CHARACTER SET utf8 DEFAULT 'a,b' COMMENT 'x', PRIMARY KEY (`id`), " +
            'KEY k (s(3))) ENGINE=InnoDB ROW_FORMAT=FIXED DEFAULT CHARSET=latin1;',
          'db.t',
        ),
      ).toEqual({
        columns: [
          { name: 'id', type: 'int NOT NULL' },
          { name: 's', type: 'varchar(10) CHARACTER SET utf8' },
        ],
        primaryKey: ['id'],
        engine: 'InnoDB',
        rowFormat: 'FIXED',
        charset: 'latin1',
      });
      const refused = (defs: TableDefinitions) =>
        caught(TableDefinitionError, () => decodeBinlog(byName('ver_5_1_17.001'), { tableDefinitions: defs }));
      expect(refused({ 'test.t1': 'a integr' }).message).toContain("unknown SQL type 'integr'");
      expect(refused({ t1: 'a int' }).message).toContain("'schema.table'");
    },
  );

  it('images that end inside a value, or bytes after the last image, are a typed error', () => {
    for (const images of [ROW_VALUES.slice(0, -2), `${ROW_VALUES} 14 07`]) {
      const e = caught(BinlogError, () => decodeBinlog(t2Binlog(images), { tableDefinitions: T2 }));
      expect([e.kind, e.eventType]).toEqual(['truncated', 20]);
    }
  });

  it('a value its defined column cannot hold is refused: a BIT(3) of 255, DECIMAL(5,2) digits past 99', () => {
    const bit = caught(InvalidValueError, () =>
      decodeBinlog(t2Binlog(ROW_VALUES.replace(' 05 ', ' ff ')), { tableDefinitions: T2 }),
    );
    expect(bit.message).toContain('does not fit BIT(3)');
    expect(bit.schemaPath).toBe('OldRowsEvent.rows.b');
    // 0x64 = 100 in the fraction's one byte, where two digits go.
    caught(InvalidValueError, () =>
      decodeBinlog(t2Binlog(ROW_VALUES.replace(' 800c22 ', ' 800c64 ')), { tableDefinitions: T2 }),
    );
    // c varchar(5) packs as 1 length byte and at most 5 bytes: 'hello!' is 7 bytes.
    const long = caught(InvalidValueError, () =>
      decodeBinlog(t2Binlog(ROW_VALUES.replace(' 026869 ', ' 0668656c6c6f21 ')), { tableDefinitions: T2 }),
    );
    expect(long.message).toContain("7 bytes, longer than the definition's c holds");
    expect(
      decodeBinlog(t2Binlog(ROW_VALUES.replace(' 026869 ', ' 0568656c6c6f ')), { tableDefinitions: T2 }),
    ).toBeDefined();
  });

  it('every byte of the images changed: a typed error, or values that encode back to those very bytes', () => {
    const cases: [Uint8Array, TableDefinitions][] = [
      [t2Binlog(`${ROW_VALUES} ${ROW_NULLS}`), T2],
      [byName('ver_5_1_17.001'), T1],
    ];
    let decoded = 0;
    for (const [bytes, tableDefinitions] of cases) {
      for (const event of oldRows(decodeBinlog(bytes))) {
        const first = event.pos + 19 + 8 + 2; // the header, the post-header, the column count and bitmap
        for (let at = first; at < event.pos + event.header.eventSize; at++) {
          for (const v of new Set([0, 0xff, bytes[at]! ^ 1, bytes[at]! ^ 0x80])) {
            const bad = Uint8Array.from(bytes);
            bad[at] = v;
            let events: BinlogEvent[];
            try {
              events = decodeBinlog(bad, { tableDefinitions });
            } catch (e) {
              expect(e).toBeInstanceOf(BinlogError);
              continue;
            }
            decoded++;
            expect(
              Buffer.from(encodeBinlog(events, { tableDefinitions })).equals(Buffer.from(bad)),
              `byte ${at} = ${v}`,
            ).toBe(true);
          }
        }
      }
    }
    expect(decoded).toBeGreaterThan(100);
  });
});
