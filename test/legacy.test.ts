/**
 * The rest of the catalogue: the LOAD DATA family, SLAVE, Group Replication's TRANSACTION_CONTEXT and
 * VIEW_CHANGE, MariaDB 12.3's PARTIAL_ROW_DATA, and binlog format v1 (MySQL 3.23). Real files hold only
 * some of the LOAD events; the others are written here from JSON, checked byte for byte against the
 * layouts the servers' sources give, and read back by `mariadb-binlog` where it knows them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinlogWriter, type EventInput } from '../builder/index.js';
import { eventFromJson, eventTypeName, type BinlogEvent } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import {
  binlogWith,
  CLAUSES,
  GROUP_EVENTS,
  LOAD_EVENTS,
  legacyBinlogs,
  text,
  UUID,
  v1Binlog,
  v1Header,
  V1_LINES,
} from './support/legacy.js';
import { describeWithServer, findMariadb, replay, startMariadb, type MariadbServer } from './support/mariadb.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const lineCount = (b: Uint8Array) => b.reduce((n, x) => n + (x === 0x0a ? 1 : 0), 0);

/** decode → encode and dump → JSON → encode both give the bytes back. */
function expectRoundTrip(bytes: Uint8Array): BinlogEvent[] {
  const events = decodeBinlog(bytes);
  expect(hex(encodeBinlog(events))).toBe(hex(bytes));
  const back = encodeBinlog(events.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `line ${i + 1}`)));
  expect(hex(back)).toBe(hex(bytes));
  return events;
}

/** The body (after the 19-byte header) of the one event of `type` in `bytes`. */
function bodyOf(bytes: Uint8Array, type: string): string {
  const e = decodeBinlog(bytes).find((x) => x.type === type)!;
  return hex(bytes.subarray(e.pos + 19, e.pos + e.header.eventSize));
}

const le32 = (n: number) => hex(Uint8Array.from([n, n >> 8, n >> 16, n >>> 24]));

describeWithFixtures('LOAD DATA events of real binlogs', () => {
  const read = (suffix: string) => decodeBinlog(readFileSync(fixtures().find((f) => f.name.endsWith(suffix))!.path));
  // binlog_old_versions.result: after replaying each file, `SELECT COUNT(*) FROM t3` gives 17920 rows.
  const ROWS = 17920;

  it('MySQL 4.1: CREATE_FILE + APPEND_BLOCK + EXEC_LOAD carry the 17920 lines of t3', () => {
    const events = read('binlog_old_version_4_1.000001');
    const create = events.find((e) => e.type === 'CREATE_FILE_EVENT')!;
    expect(create).toMatchObject({
      tableName: 't3',
      schema: 'test',
      fieldNames: [{ name: 'a' }],
      createFileName: 'big_file.dat',
    });
    const blocks = events.filter((e) => e.type === 'APPEND_BLOCK_EVENT');
    expect(blocks.map((b) => b.fileId)).toEqual([create.fileId]);
    expect(lineCount(create.data as Uint8Array) + lineCount(blocks[0]!.data as Uint8Array)).toBe(ROWS);
    expect(events.find((e) => e.type === 'EXEC_LOAD_EVENT')).toMatchObject({ fileId: create.fileId });
  });

  for (const file of [
    'ver_5_1_17.001',
    'ver_5_1-telco.001',
    'ver_5_1-wl2325_s.001',
    'ver_5_1_23.001',
    'ver_trunk_row_v2.001',
  ]) {
    it(`${file}: BEGIN_LOAD_QUERY + APPEND_BLOCK carry t3's lines; EXECUTE_LOAD_QUERY names the file`, () => {
      const events = read(file);
      const begin = events.find((e) => e.type === 'BEGIN_LOAD_QUERY_EVENT')!;
      const blocks = events.filter((e) => e.type === 'APPEND_BLOCK_EVENT').filter((e) => e.fileId === begin.fileId);
      expect(lineCount(begin.data) + blocks.reduce((n, b) => n + lineCount(b.data), 0)).toBe(ROWS);
      const exec = events.find((e) => e.type === 'EXECUTE_LOAD_QUERY_EVENT')!;
      expect(exec).toMatchObject({ fileId: begin.fileId, schema: 'test', duplicates: 'LOAD_DUP_ERROR' });
      const query = exec.query as string;
      expect(query).toMatch(/^LOAD DATA INFILE 'big_file\.dat' INTO TABLE `?t3`?/);
      // The span a replica replaces with its own copy's name.
      expect(query.slice(exec.fileNameStart as number, exec.fileNameEnd as number)).toBe(" INFILE 'big_file.dat' INTO");
    });
  }
});

describe('LOAD DATA events no real file here holds, written from JSON', () => {
  const bytes = binlogWith(LOAD_EVENTS);

  it('lay out as sql/log_event.cc reads them', () => {
    // Post-header: thread 5, exec 0, skip 1, table length 1, db length 4, 2 fields; old clauses (7 bytes);
    // field lengths; names; table; db; the file name to the end.
    expect(bodyOf(bytes, 'LOAD_EVENT')).toBe(
      '05000000' +
        '00000000' +
        '01000000' +
        '01' +
        '04' +
        '02000000' +
        '2c220a005c0808' +
        '0101' +
        '61006200' +
        '7400' +
        '7465737400' +
        hex(text('/tmp/old.txt')),
    );
    // CREATE_FILE: the LOAD post-header, the file id, the length-prefixed clauses, no fields, the
    // NUL-terminated file name, then the block.
    expect(bodyOf(bytes, 'CREATE_FILE_EVENT')).toBe(
      '05000000' +
        '00000000' +
        '00000000' +
        '02' +
        '03' +
        '00000000' +
        '07000000' +
        '012c' +
        '0122' +
        '010a' +
        '013e' +
        '015c' +
        '06' +
        '743300' +
        '64623200' +
        hex(text('/tmp/cf.txt')) +
        '00' +
        hex(text('1,"x"\n')),
    );
    expect(bodyOf(bytes, 'DELETE_FILE_EVENT')).toBe('08000000');
  });

  it('decode to what was written and round-trip byte for byte', () => {
    const events = expectRoundTrip(bytes).slice(3);
    expect(events.map((e) => e.type)).toEqual(LOAD_EVENTS.map((e) => e.type));
    expect(events[1]).toMatchObject({
      clauses: CLAUSES,
      fieldNames: [{ name: 'id' }],
      fieldCount: 1,
      tableName: 't2',
      fileName: '/tmp/new.txt',
    });
    expect(events[2]).toMatchObject({ fileId: 7, createFileName: '/tmp/cf.txt', data: text('1,"x"\n') });
  });

  it('a field count, name length or field length that does not fit is a typed error, before any allocation', () => {
    const at = decodeBinlog(bytes).find((e) => e.type === 'NEW_LOAD_EVENT')!.pos;
    const forged = (offset: number, value: number, width: 1 | 4) => {
      const b = Uint8Array.from(bytes);
      const dv = new DataView(b.buffer);
      if (width === 4) dv.setUint32(at + 19 + offset, value, true);
      else dv.setUint8(at + 19 + offset, value);
      return b;
    };
    // The field count (post-header offset 14), the table name's length (12), the field's length (after
    // the 18-byte post-header and the 11 bytes of clauses) shorter than its name.
    const cases = [
      [forged(14, 0xffffffff, 4), 'length', 'LoadEvent.fieldLengths'],
      [forged(12, 0xff, 1), 'length', 'LoadEvent.tableName'],
      [forged(29, 1, 1), 'invalid-value', 'LoadField.terminator'],
    ] as const;
    for (const [b, kind, schemaPath] of cases) {
      expect(() => decodeBinlog(b)).toThrow(expect.objectContaining({ kind, schemaPath, eventPos: at, eventType: 12 }));
    }
  });

  it('a field length that is not its name’s is refused on encoding', () => {
    const load = { ...LOAD_EVENTS[1]!, fieldLengths: [3] } as EventInput;
    expect(() => binlogWith([load])).toThrow(expect.objectContaining({ kind: 'encode' }));
  });
});

describeWithServer('mariadb-binlog reads the LOAD DATA events written here', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'binlog-legacy-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('and prints the statements they stand for, and rebuilds the file of CREATE_FILE + APPEND_BLOCK', () => {
    const file = join(dir, 'load.bin');
    writeFileSync(file, binlogWith(LOAD_EVENTS));
    const r = spawnSync(findMariadb()!.binlogTool, [`--local-load=${dir}`, file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // The statement form of mysqlbinlog.result: LOAD DATA ... INFILE ... INTO TABLE ... FIELDS ... LINES ... (cols).
    const out = r.stdout;
    expect(out).toContain(
      "LOAD DATA INFILE '/tmp/old.txt' IGNORE INTO TABLE `t` FIELDS TERMINATED BY ',' ENCLOSED BY '\"' ESCAPED " +
        "BY '\\\\' LINES TERMINATED BY '\\n' STARTING BY '' IGNORE 1 LINES (`a`,`b`)",
    );
    expect(out).toContain(
      "LOAD DATA INFILE '/tmp/new.txt' REPLACE INTO TABLE `t2` FIELDS TERMINATED BY ',' OPTIONALLY  ENCLOSED " +
        "BY '\"' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' STARTING BY '>' (`id`)",
    );
    expect(out).toContain('#Append_block: file_id: 7  block_len: 6');
    expect(out).toContain('#Exec_load: file_id=7');
    expect(out).toContain('#Delete_file: file_id=8');
    expect(out).toContain(`LOAD DATA LOCAL INFILE '${dir}/cf.txt-7-0' REPLACE INTO TABLE \`t3\``);
    expect(readFileSync(join(dir, 'cf.txt-7-0'), 'utf8')).toBe('1,"x"\n2,"y"\n');
    // EXECUTE_LOAD_QUERY: the file name span replaced by the local copy of BEGIN_LOAD_QUERY's block.
    expect(out).toContain(`LOAD DATA LOCAL INFILE '${dir}/SQL_LOAD_MB-9-0' INTO TABLE t4`);
    expect(readFileSync(join(dir, 'SQL_LOAD_MB-9-0'), 'utf8')).toBe('3,"z"\n');
  });
});

describeWithServer('a real MariaDB 10.11 logging LOAD DATA as a statement', () => {
  let server: MariadbServer;
  let file: string;
  let content: Buffer;
  let bytes: Buffer;
  let shown: (string | null)[][];
  let rows: string;

  beforeAll(async () => {
    server = await startMariadb();
    // Past the server's 128 KiB blocks, so that APPEND_BLOCK events follow the BEGIN_LOAD_QUERY.
    content = Buffer.from('header\n' + Array.from({ length: 20000 }, (_, i) => `${i},"v${i}"\n`).join(''));
    file = join(server.datadir, '..', 'load.csv');
    writeFileSync(file, content);
    await server.sql('CREATE DATABASE ld; CREATE TABLE ld.t (a INT PRIMARY KEY, b VARCHAR(20))');
    await server.sql(
      `SET SESSION binlog_format = 'STATEMENT';
       LOAD DATA INFILE '${file}' REPLACE INTO TABLE t FIELDS TERMINATED BY ',' ` +
        `OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES (a, b)`,
      'ld',
    );
    rows = (await server.query('SELECT COUNT(*) FROM ld.t'))[0]![0]!;
    const binlog = (await server.query('SHOW MASTER STATUS'))[0]![0]!;
    shown = (await server.query(`SHOW BINLOG EVENTS IN '${binlog}'`)).filter((r) => /load|block/i.test(r[2]!));
    bytes = (await server.stopAndReadBinlogs())[0]!.bytes;
  }, 120_000);
  afterAll(() => server?.stop());

  it('writes BEGIN_LOAD_QUERY, APPEND_BLOCK and EXECUTE_LOAD_QUERY, as SHOW BINLOG EVENTS lists them', () => {
    const events = expectRoundTrip(bytes).filter((e) => /LOAD|BLOCK/.test(e.type));
    expect(shown.map((r) => r[2])).toEqual(['Begin_load_query', 'Append_block', 'Append_block', 'Execute_load_query']);
    expect(events.map((e) => e.type)).toEqual([
      'BEGIN_LOAD_QUERY_EVENT',
      'APPEND_BLOCK_EVENT',
      'APPEND_BLOCK_EVENT',
      'EXECUTE_LOAD_QUERY_EVENT',
    ]);
    expect(events.map((e) => e.pos)).toEqual(shown.map((r) => Number(r[1])));
    // The server's account of each block: ";file_id=N;block_len=N".
    const blocks = events
      .slice(0, 3)
      .filter((e) => e.type === 'BEGIN_LOAD_QUERY_EVENT' || e.type === 'APPEND_BLOCK_EVENT');
    for (const [i, e] of blocks.entries()) expect(`;file_id=${e.fileId};block_len=${e.data.length}`).toBe(shown[i]![5]);
  });

  it('whose blocks are the file, and whose statement names it where the offsets say', () => {
    const events = decodeBinlog(bytes);
    const blocks = events.filter((e) => e.type === 'BEGIN_LOAD_QUERY_EVENT' || e.type === 'APPEND_BLOCK_EVENT');
    expect(Buffer.concat(blocks.map((b) => b.data as Uint8Array)).equals(content)).toBe(true);
    const exec = events.find((e) => e.type === 'EXECUTE_LOAD_QUERY_EVENT')!;
    expect(`use \`${exec.schema}\`; ${exec.query} ;file_id=${exec.fileId}`).toBe(shown[3]![5]);
    expect(exec).toMatchObject({ fileId: blocks[0]!.fileId, duplicates: 'LOAD_DUP_REPLACE' });
    expect((exec.query as string).slice(exec.fileNameStart as number, exec.fileNameEnd as number)).toBe(
      ` INFILE '${file}' REPLACE INTO`,
    );
    expect(rows).toBe('20000');
  });
});

describeWithServer('LOAD DATA events written here, replayed into a real MariaDB 10.11', () => {
  let server: MariadbServer;
  let dir: string;
  beforeAll(async () => {
    server = await startMariadb();
    dir = mkdtempSync(join(tmpdir(), 'binlog-legacy-'));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'through mariadb-binlog | mariadb: the rows of CREATE_FILE + ' +
      'APPEND_BLOCK + EXEC_LOAD and of BEGIN_LOAD_QUERY + EXECUTE_LOAD_QUERY',
    async () => {
      const clauses = {
        fieldTerminator: ',',
        enclosedBy: '"',
        lineTerminator: '\n',
        lineStart: '',
        escapedBy: '\\',
        optFlags: 0x2,
      };
      const query = "LOAD DATA INFILE '/tmp/q.txt' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '\"'";
      const w = new BinlogWriter({ timestamp: 1_700_000_000, checksum: 'NONE' });
      w.createDatabase('ld').query('CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))', { schema: 'ld' });
      const events = [
        {
          type: 'CREATE_FILE_EVENT',
          threadId: 5,
          execTime: 0,
          skipLines: 0,
          fileId: 7,
          clauses,
          fieldLengths: [],
          fieldNames: [],
          tableName: 't',
          schema: 'ld',
          createFileName: '/tmp/cf.txt',
          data: text('1,"x"\n'),
        },
        { type: 'APPEND_BLOCK_EVENT', fileId: 7, data: text('2,"y"\n') },
        { type: 'EXEC_LOAD_EVENT', fileId: 7 },
        { type: 'BEGIN_LOAD_QUERY_EVENT', fileId: 9, data: text('3,"z"\n') },
        {
          type: 'EXECUTE_LOAD_QUERY_EVENT',
          threadId: 5,
          execTime: 0,
          errorCode: 0,
          statusVars: [],
          schema: 'ld',
          query,
          fileId: 9,
          fileNameStart: query.indexOf(' INFILE'),
          fileNameEnd: query.indexOf(' TABLE'),
          duplicates: 'LOAD_DUP_ERROR',
        },
      ] as EventInput[];
      for (const e of events) w.event(e);
      const file = join(dir, 'replay.bin');
      writeFileSync(file, w.toBytes());
      const bin = findMariadb()!;
      const r = await replay(bin.binlogTool, bin.client, file, server.socket, {
        dump: [`--local-load=${dir}`],
        client: ['--local-infile=1'],
      });
      expect(r).toEqual({ dump: 0, client: 0, stderr: '' });
      expect(await server.query('SELECT a, b FROM ld.t ORDER BY a')).toEqual([
        ['1', 'x'],
        ['2', 'y'],
        ['3', 'z'],
      ]);
    },
  );
});

describe('SLAVE, TRANSACTION_CONTEXT, VIEW_CHANGE and PARTIAL_ROW_DATA, written from JSON', () => {
  const bytes = binlogWith(GROUP_EVENTS);
  const sid = Uint8Array.from(Buffer.from(UUID.replace(/-/g, ''), 'hex'));

  it('lay out as the servers read them', () => {
    // Slave_log_event: position 8, port 2, host NUL-terminated, the master's log name to the end.
    expect(bodyOf(bytes, 'SLAVE_EVENT')).toBe(
      '0400000000000000' + 'ea0c' + hex(text('master')) + '00' + hex(text('master-bin.001')),
    );
    // Transaction_context_event: uuid length, thread, gtid_specified, snapshot length, set counts; then
    // the uuid, the Gtid_set (1 sid, its uuid, 1 interval [1, 6)), each hash with a 2-byte length.
    const gtidSet = '0100000000000000' + hex(sid) + '0100000000000000' + '0100000000000000' + '0600000000000000';
    expect(bodyOf(bytes, 'TRANSACTION_CONTEXT_EVENT')).toBe(
      '24' +
        '09000000' +
        '00' +
        le32(gtidSet.length / 2) +
        '02000000' +
        '00000000' +
        hex(text(UUID)) +
        gtidSet +
        '0300' +
        hex(text('123')) +
        '0300' +
        hex(text('456')),
    );
    // View_change_event: the view id in 40 bytes, seq_number, the entry count; key u16 + key, value u32 + value.
    const viewId = hex(text('1421867646:1')).padEnd(80, '0');
    expect(bodyOf(bytes, 'VIEW_CHANGE_EVENT')).toBe(
      viewId + '2a00000000000000' + '01000000' + '0200' + hex(text('k1')) + '01000000' + '76',
    );
    // MariaDB's PARTIAL_ROW_DATA_EVENT page: total fragments, sequence number, flags, the original size
    // when FL_ORIG_EVENT_SIZE, the chunk.
    const partial = decodeBinlog(bytes).filter((e) => e.type === 'PARTIAL_ROW_DATA_EVENT');
    const body = (e: BinlogEvent) => hex(bytes.subarray(e.pos + 19, e.pos + e.header.eventSize));
    expect(partial.map(body)).toEqual([
      '03000000' + '01000000' + '01' + '204e000000000000' + 'aabb',
      '03000000' + '02000000' + '00' + 'cc',
    ]);
  });

  it('decode to what was written and round-trip byte for byte', () => {
    const decoded = expectRoundTrip(bytes).slice(3);
    expect(decoded[0]).toMatchObject({
      masterPosition: 4n,
      masterPort: 3306,
      masterHost: 'master',
      masterLog: 'master-bin.001',
    });
    expect(decoded[1]).toMatchObject({
      serverUuid: UUID,
      writeSetCount: 2,
      readSetCount: 0,
      writeSet: [{ hash: '123' }, { hash: '456' }],
    });
    expect(decoded[2]).toMatchObject({ viewId: '1421867646:1', seqNumber: 42n, certInfo: [{ key: 'k1' }] });
    expect(Reflect.get(decoded[4]!, 'originalSize')).toBeUndefined();
  });

  it('a set or map count past the event is a typed error', () => {
    const cases = [
      ['TRANSACTION_CONTEXT_EVENT', 10, 'TransactionContextEvent.writeSet'],
      ['VIEW_CHANGE_EVENT', 48, 'ViewChangeEvent.certInfo'],
    ] as const;
    for (const [type, offset, schemaPath] of cases) {
      const e = decodeBinlog(bytes).find((x) => x.type === type)!;
      const b = Uint8Array.from(bytes);
      new DataView(b.buffer).setUint32(e.pos + 19 + offset, 0x7fffffff, true);
      expect(() => decodeBinlog(b), type).toThrow(
        expect.objectContaining({ kind: 'length', schemaPath, eventPos: e.pos }),
      );
    }
  });
});

describe('binlog format v1 (MySQL 3.23)', () => {
  const bytes = v1Binlog();
  const lines = V1_LINES;

  it(
    'has 13-byte headers without log_pos and flags; START is 69 ' +
      'bytes, QUERY has no status variables, ROTATE no position',
    () => {
      const events = expectRoundTrip(bytes);
      expect(events.map((e) => e.header.eventSize)).toEqual([
        13 + 56,
        13 + 11 + 'test'.length + 1 + 'CREATE TABLE t (a INT)'.length,
        13 + 18 + 7 + 1 + 2 + 2 + 5 + '/tmp/old.txt'.length,
        13 + 'master-bin.002'.length,
      ]);
      for (const e of events) expect([e.header.logPos, e.header.flags]).toEqual([undefined, undefined]);
      // The event length is at offset 9 and the body at 13 in every event.
      expect(hex(bytes.subarray(4 + 9, 4 + 15))).toBe('450000000100');
      expect(Reflect.get(events[3]!, 'position')).toBeUndefined();
      expect(events[2]).toMatchObject({ type: 'LOAD_EVENT', tableName: 't', fileName: '/tmp/old.txt' });
    },
  );

  it('a STOP event has no body: 13 bytes, shorter than any v3 or v4 header', () => {
    const stop = encodeBinlog(
      [...lines.slice(0, 1), { header: v1Header(3), type: 'STOP_EVENT' }].map((l) => eventFromJson(l)),
    );
    expect(stop.length).toBe(4 + 69 + 13);
    expect(expectRoundTrip(stop)[1]).toMatchObject({ type: 'STOP_EVENT', header: { eventSize: 13 } });
  });

  it('an event_size below the 13-byte header is a framing error naming the event', () => {
    const b = Uint8Array.from(bytes);
    new DataView(b.buffer).setUint32(73 + 9, 12, true);
    expect(() => decodeBinlog(b)).toThrow(
      expect.objectContaining({ kind: 'length', eventPos: 73, schemaPath: 'EventHeader.eventSize' }),
    );
  });

  it('a v3 file (START of 75 bytes) keeps its 19-byte headers', () => {
    const v3Lines = [
      { ...lines[0], binlogVersion: 3, serverVersion: '4.0.27-log' },
      { ...lines[3], position: 4 },
    ];
    const v3 = encodeBinlog(v3Lines.map((l) => eventFromJson({ ...l, header: { ...l.header, flags: 0 } })));
    const events = expectRoundTrip(v3);
    expect(events.map((e) => e.header.eventSize)).toEqual([75, 19 + 8 + 'master-bin.002'.length]);
  });
});

describe('the catalogue names every code the servers define', () => {
  // MySQL 5.0-9.x binlog_event.h: 0 to 42; Percona 5.7: 159; MariaDB 10-12 log_event.h: 160 to 172.
  const defined = [...Array.from({ length: 43 }, (_, i) => i), 159, ...Array.from({ length: 13 }, (_, i) => 160 + i)];
  it.each(defined)('code %i', (code) => expect(eventTypeName(code)).not.toMatch(/^UNKNOWN_\d+$/));
  it('with the servers’ names at the ends of each range, and Aurora’s 100', () => {
    expect([36, 37, 42, 159, 172, 100].map(eventTypeName)).toEqual([
      'TRANSACTION_CONTEXT_EVENT',
      'VIEW_CHANGE_EVENT',
      'GTID_TAGGED_LOG_EVENT',
      'START_5_7_ENCRYPTION_EVENT',
      'PARTIAL_ROW_DATA_EVENT',
      'AURORA_PADDING_EVENT',
    ]);
    expect(eventTypeName(48)).toBe('UNKNOWN_48');
  });
});

describe('the binlogs of these events, cut anywhere', () => {
  it('give every complete event, then a typed error naming where the input ends', () => {
    for (const bytes of legacyBinlogs()) {
      const whole = decodeBinlog(bytes);
      for (let cut = 0; cut < bytes.length; cut++) {
        let error: unknown;
        try {
          decodeBinlog(bytes.subarray(0, cut));
        } catch (e) {
          error = e;
        }
        const complete = cut === 4 || whole.some((e) => e.pos + e.header.eventSize === cut);
        if (complete) expect(error, `cut at ${cut}`).toBeUndefined();
        else expect(error, `cut at ${cut}`).toMatchObject({ kind: cut < 4 ? 'bad-magic' : 'truncated' });
      }
    }
  });
});
