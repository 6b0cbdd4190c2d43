/**
 * The SQL literal of each column type, the statements of each change and their undo, and the refusals:
 * a table without column names, an integer of unknown signedness, an image the undo lacks, a statement.
 */
import { describe, expect, it } from 'vitest';
import { EventTypes } from '../generated/events.js';
import { ColumnType, type RowsEvent } from '../generated/rows.js';
import type { RowChange } from '../runtime/core/values.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import type { Column } from '../runtime/values/column.js';
import { sqlLiteral } from '../tools/sql-literals.js';
import { invert, SqlContext, SqlError, toSql, undoSql } from '../tools/sql.js';
import { flashback } from '../tools/flashback.js';
import { caught } from './runtime/helpers.js';
import { eventHeader } from './support/events.js';

const col = (realType: number, extra: Partial<Column> = {}): Column => ({
  index: 0,
  name: 'c',
  type: realType,
  realType,
  layout: {} as Column['layout'],
  nullable: true,
  meta: {},
  ...extra,
});
const lit = (v: Parameters<typeof sqlLiteral>[0], c: Column, flavor: 'mysql' | 'mariadb' = 'mariadb') =>
  sqlLiteral(v, c, flavor, 't.c');

describe('sqlLiteral', () => {
  it('writes strings as their bytes in the column charset, plain ASCII as quoted text', () => {
    expect(lit('café', col(ColumnType.VARCHAR, { charset: 'latin1' }))).toBe("_latin1 X'636166E9'");
    expect(lit('中文', col(ColumnType.VARCHAR, { charset: 'gbk' }))).toBe("_gbk X'D6D0CEC4'");
    expect(lit('ｶ漢', col(ColumnType.STRING, { charset: 'sjis' }))).toBe("_sjis X'B68ABF'");
    expect(lit('😀', col(ColumnType.VARCHAR, { charset: 'utf8mb4' }))).toBe("_utf8mb4 X'F09F9880'");
    expect(lit('plain text', col(ColumnType.VARCHAR, { charset: 'utf8mb4' }))).toBe("_utf8mb4'plain text'");
    // A quote or a backslash reads otherwise under some sql_mode: bytes instead.
    expect(lit("it's", col(ColumnType.VARCHAR, { charset: 'latin1' }))).toBe("_latin1 X'69742773'");
    expect(lit('a\\b', col(ColumnType.VARCHAR, { charset: 'latin1' }))).toBe("_latin1 X'615C62'");
    expect(lit('a', col(ColumnType.VARCHAR, { charset: 'ucs2' }))).toBe("_ucs2 X'0061'");
  });

  it('writes binary strings and bytes without a charset as hex', () => {
    expect(lit(new Uint8Array([0, 0xff, 0x27]), col(ColumnType.BLOB, { charset: 'binary' }))).toBe("X'00FF27'");
    expect(lit(new Uint8Array([0x41]), col(ColumnType.VARCHAR))).toBe("X'41'");
  });

  it('refuses text the charset cannot hold', () => {
    expect(() => lit('漢', col(ColumnType.VARCHAR, { charset: 'latin1' }))).toThrow(SqlError);
  });

  it('writes numbers that read back to the same bits', () => {
    expect(lit(-128, col(ColumnType.TINY))).toBe('-128');
    expect(lit(18446744073709551615n, col(ColumnType.LONGLONG, { unsigned: true }))).toBe('18446744073709551615');
    expect(lit('-1.500000000000000000000000000000', col(ColumnType.NEWDECIMAL))).toBe(
      '-1.500000000000000000000000000000',
    );
    // FLOAT: the float32 itself as a double, so that it compares equal to the column's value.
    expect(lit(3.4e38, col(ColumnType.FLOAT))).toBe('3.3999999521443642e+38');
    expect(lit(0.1, col(ColumnType.FLOAT))).toBe('0.10000000149011612e0');
    expect(lit(0.1, col(ColumnType.DOUBLE))).toBe('0.1e0');
    expect(lit(-0, col(ColumnType.DOUBLE))).toBe('-0e0');
    expect(lit(5e-324, col(ColumnType.DOUBLE))).toBe('5e-324');
    expect(lit(2021, col(ColumnType.YEAR))).toBe('2021');
  });

  it('writes temporals with their fraction, BIT in binary, ENUM and SET as their text', () => {
    expect(lit('2020-01-02 03:04:05.123456', col(ColumnType.DATETIME2))).toBe("'2020-01-02 03:04:05.123456'");
    expect(lit('-838:59:59.000000', col(ColumnType.TIME2))).toBe("'-838:59:59.000000'");
    expect(lit('0000-00-00', col(ColumnType.NEWDATE))).toBe("'0000-00-00'");
    expect(lit(0xffffffffffffffffn, col(ColumnType.BIT))).toBe(`b'${'1'.repeat(64)}'`);
    expect(lit(10, col(ColumnType.BIT))).toBe("b'1010'");
    expect(lit('ü', col(ColumnType.ENUM, { charset: 'latin1' }))).toBe("_latin1 X'FC'");
    expect(lit(['a', 'c'], col(ColumnType.SET, { charset: 'latin1' }))).toBe("_latin1'a,c'");
    expect(lit([], col(ColumnType.SET, { charset: 'latin1' }))).toBe("_latin1''");
    expect(lit(2, col(ColumnType.ENUM))).toBe('2'); // an index, without member names
  });

  it('writes a VECTOR as STRING_TO_VECTOR of decimals that round to its float32s', () => {
    // MySQL's manual: STRING_TO_VECTOR("[1.05, -17.8, 32]") is 0x6666863F66668EC100000042.
    const stored = Buffer.from('6666863F66668EC100000042', 'hex');
    const floats = [0, 1, 2].map((i) => stored.readFloatLE(i * 4));
    const text = lit(floats, col(ColumnType.VECTOR), 'mysql');
    expect(text).toMatch(/^STRING_TO_VECTOR\('\[[-0-9.e,]+\]'\)$/);
    const back = Buffer.alloc(12);
    text
      .slice(19, -3)
      .split(',')
      .forEach((d, i) => back.writeFloatLE(Number(d), i * 4));
    expect(back).toEqual(stored);
  });

  it(
    'writes JSON as CAST(… AS JSON) for MySQL, keeping integer and double types; ' + 'refuses what no JSON text says',
    () => {
      const json = col(ColumnType.JSON);
      expect(lit({ json: { a: [1, { $uint: 2 }, { $double: 3 }, 'x'] } }, json, 'mysql')).toBe(
        `CAST(_utf8mb4'{"a":[1,2,3.0,"x"]}' AS JSON)`,
      );
      expect(() => lit({ json: { $decimal: '1.50', precision: 3, scale: 2 } }, json, 'mysql')).toThrow(
        /decimal scalar/,
      );
      expect(() => lit({ diff: [] }, json, 'mysql')).toThrow(/partial JSON update/);
    },
  );

  it('refuses an integer of unknown signedness, saying what resolves it', () => {
    expect(() => lit({ signed: -1, unsigned: 255 }, col(ColumnType.TINY))).toThrow(
      /unknown signedness \(-1 or 255\).*definition/,
    );
  });
});

const FDE: BinlogEvent = {
  type: 'FORMAT_DESCRIPTION_EVENT',
  pos: 4,
  header: eventHeader(EventTypes.FORMAT_DESCRIPTION_EVENT),
  binlogVersion: 4,
  serverVersion: '10.11.6-MariaDB',
  createTimestamp: 0,
  headerLength: 19,
  postHeaderLengths: [],
};
const map = (names?: string[]): BinlogEvent => ({
  type: 'TABLE_MAP_EVENT',
  pos: 100,
  header: eventHeader(EventTypes.TABLE_MAP_EVENT),
  tableId: 7,
  flags: 0,
  schemaName: 'd',
  tableName: 't',
  columnCount: 2,
  columnTypes: ['LONG', 'LONG'],
  columnMetadata: [{}, {}],
  nullable: [false, true],
  optionalMetadata: names
    ? [
        { code: 'COLUMN_NAME', names },
        { code: 'SIMPLE_PRIMARY_KEY', columns: [0] },
      ]
    : [],
});
type RowsType = 'WRITE_ROWS_EVENT' | 'UPDATE_ROWS_EVENT' | 'DELETE_ROWS_EVENT';
const rows = (type: RowsType, changes: RowChange[], fields: Partial<RowsEvent> = {}): BinlogEvent => ({
  type,
  pos: 200,
  file: 'binlog.000001',
  header: eventHeader(EventTypes[type]),
  tableId: 7,
  table: 'd.t',
  flags: 1,
  columnCount: 2,
  columnsPresent: [true, true],
  columnsPresentAfter: [true, true],
  rows: changes,
  ...fields,
});

function context(names?: string[], primaryKeyOnly = false): SqlContext {
  const c = new SqlContext({ primaryKeyOnly });
  toSql(FDE, c);
  toSql(map(names), c);
  return c;
}

describe('toSql and undoSql', () => {
  it('writes each change, NULL compared with IS NULL, and the undo last row first', () => {
    const c = context(['id', 'v']);
    expect(toSql(rows('WRITE_ROWS_EVENT', [{ after: { id: 1, v: null } }]), c)).toEqual([
      'INSERT INTO `d`.`t` (`id`, `v`) VALUES (1, NULL)',
    ]);
    expect(toSql(rows('UPDATE_ROWS_EVENT', [{ before: { id: 1, v: null }, after: { id: 1, v: 2 } }]), c)).toEqual([
      'UPDATE `d`.`t` SET `id`=1, `v`=2 WHERE `id`=1 AND `v` IS NULL LIMIT 1',
    ]);
    expect(undoSql(rows('DELETE_ROWS_EVENT', [{ before: { id: 1, v: 5 } }, { before: { id: 2, v: 6 } }]), c)).toEqual([
      'INSERT INTO `d`.`t` (`id`, `v`) VALUES (2, 6)',
      'INSERT INTO `d`.`t` (`id`, `v`) VALUES (1, 5)',
    ]);
    expect(undoSql(rows('UPDATE_ROWS_EVENT', [{ before: { id: 1, v: null }, after: { id: 1, v: 2 } }]), c)).toEqual([
      'UPDATE `d`.`t` SET `id`=1, `v`=NULL WHERE `id`=1 AND `v`=2 LIMIT 1',
    ]);
  });

  it('--primary-key-only: WHERE the key the TABLE_MAP names', () => {
    const c = context(['id', 'v'], true);
    expect(toSql(rows('DELETE_ROWS_EVENT', [{ before: { id: 1, v: 5 } }]), c)).toEqual([
      'DELETE FROM `d`.`t` WHERE `id`=1 LIMIT 1',
    ]);
  });

  it('refuses a table whose columns have no names, naming it', () => {
    expect(() => toSql(rows('WRITE_ROWS_EVENT', [{ after: { '@1': 1, '@2': 2 } }]), context())).toThrow(
      /table d\.t: its TABLE_MAP names no columns.*--schema-file/,
    );
  });

  it('prints a statement after its USE, and refuses to undo it', () => {
    const ddl: BinlogEvent = {
      type: 'QUERY_EVENT',
      pos: 300,
      header: eventHeader(EventTypes.QUERY_EVENT),
      threadId: 0,
      execTime: 0,
      schemaLength: 1,
      errorCode: 0,
      statusVars: [],
      schema: 'd',
      query: 'DROP TABLE t',
    };
    expect(toSql(ddl, context(['id', 'v']))).toEqual(['USE `d`', 'DROP TABLE t']);
    expect(() => undoSql(ddl, context(['id', 'v']))).toThrow(/DROP TABLE t.*cannot be undone by rows/);
    expect(() => flashback([FDE, ddl])).toThrow(/QUERY_EVENT at 300/);
  });
});

describe('invert', () => {
  it(
    'refuses the undo of a MINIMAL image: a deleted row without all its columns, ' + 'an update without the old values',
    () => {
      expect(() => invert('delete', { before: { id: 1 } }, ['id', 'v'], 'row 1')).toThrow(/lacks column v/);
      expect(() => invert('update', { before: { id: 1 }, after: { v: 2 } }, ['id', 'v'], 'row 1')).toThrow(
        /lacks column v/,
      );
    },
  );

  it('undoes an update in the row as the update left it', () => {
    expect(invert('update', { before: { id: 1, v: 1, w: 0 }, after: { v: 2 } }, ['id', 'v', 'w'], 'row 1')).toEqual({
      kind: 'update',
      before: { id: 1, v: 2, w: 0 },
      after: { v: 1 },
    });
  });
});

describe('flashback', () => {
  it('reverses the transactions, their rows events and rows, a MariaDB GTID becoming BEGIN', () => {
    const gtid = (seqNo: number): BinlogEvent => ({
      type: 'GTID_EVENT',
      pos: 50,
      header: eventHeader(EventTypes.GTID_EVENT),
      seqNo: BigInt(seqNo),
      domainId: 0,
      flags: 12,
    });
    const xid: BinlogEvent = { type: 'XID_EVENT', pos: 60, header: eventHeader(EventTypes.XID_EVENT), xid: 1n };
    const out = flashback([
      FDE,
      gtid(1),
      map(['id', 'v']),
      rows('WRITE_ROWS_EVENT', [{ after: { id: 1, v: 1 } }, { after: { id: 2, v: 2 } }]),
      xid,
      gtid(2),
      map(['id', 'v']),
      rows('UPDATE_ROWS_EVENT', [{ before: { id: 1, v: 1 }, after: { id: 1, v: 9 } }]),
      xid,
    ]);
    expect(out.map((e) => e.type)).toEqual([
      'FORMAT_DESCRIPTION_EVENT',
      'QUERY_EVENT',
      'TABLE_MAP_EVENT',
      'UPDATE_ROWS_EVENT',
      'XID_EVENT',
      'QUERY_EVENT',
      'TABLE_MAP_EVENT',
      'DELETE_ROWS_EVENT',
      'XID_EVENT',
    ]);
    expect((out[3] as { rows: unknown }).rows).toEqual([{ before: { id: 1, v: 9 }, after: { v: 1, id: 1 } }]);
    expect((out[7] as { rows: unknown }).rows).toEqual([{ before: { id: 2, v: 2 } }, { before: { id: 1, v: 1 } }]);
    expect((out[1] as { query: string }).query).toBe('BEGIN');
  });

  it('refuses a NOBLOB DELETE whose before image lacks a column, naming the event, the row and the column', () => {
    const noblob = rows('DELETE_ROWS_EVENT', [{ before: { id: 1, v: 5 } }, { before: { id: 2 } }], {
      columnsPresent: [true, false],
    });
    const e = caught(SqlError, () => flashback([FDE, map(['id', 'v']), noblob]));
    expect([e.problem, e.schemaPath]).toEqual([
      'the before image lacks column v, whose old value the undo must write: the binlog does not hold it ' +
        '(binlog_row_image=FULL logs it)',
      'DELETE_ROWS_EVENT at binlog.000001:200, row 2',
    ]);
  });

  it('refuses an event whose images were kept as bytes, with their reason, in SQL and in flashback', () => {
    const kept = rows('WRITE_ROWS_EVENT', [], {
      rows: undefined,
      rowImages: new Uint8Array([1]),
      rowImagesUndecoded: 'why',
    });
    const sentence =
      "its row images were kept as bytes (why): give the table's definition (--schema-file, --table-def, " +
      'tableDefinitions) to have its rows';
    for (const f of [() => toSql(kept, context(['id', 'v'])), () => flashback([FDE, map(['id', 'v']), kept])]) {
      expect([caught(SqlError, f).problem, caught(SqlError, f).schemaPath]).toEqual([
        sentence,
        'WRITE_ROWS_EVENT at binlog.000001:200',
      ]);
    }
  });
});
