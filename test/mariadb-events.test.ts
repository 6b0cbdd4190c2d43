/**
 * What a real MariaDB server writes, decoded and checked against what was executed and against the
 * server's own account of its binlog (SHOW BINLOG EVENTS): every event type of the control family.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventFlags } from '../generated/header.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

/** SHOW BINLOG EVENTS' names for our event types. */
const SERVER_NAMES: Record<string, string> = {
  FORMAT_DESCRIPTION_EVENT: 'Format_desc',
  GTID_LIST_EVENT: 'Gtid_list',
  BINLOG_CHECKPOINT_EVENT: 'Binlog_checkpoint',
  GTID_EVENT: 'Gtid',
  QUERY_EVENT: 'Query',
  ANNOTATE_ROWS_EVENT: 'Annotate_rows',
  TABLE_MAP_EVENT: 'Table_map',
  WRITE_ROWS_EVENT_V1: 'Write_rows_v1',
  UPDATE_ROWS_EVENT_V1: 'Update_rows_v1',
  DELETE_ROWS_EVENT_V1: 'Delete_rows_v1',
  XID_EVENT: 'Xid',
  INTVAR_EVENT: 'Intvar',
  RAND_EVENT: 'RAND',
  USER_VAR_EVENT: 'User var',
  ROTATE_EVENT: 'Rotate',
  STOP_EVENT: 'Stop',
};

type Of<T extends string> = Extract<BinlogEvent, { type: T }>;

describeWithServer('MariaDB control events', () => {
  let server: MariadbServer;
  let files: { path: string; bytes: Buffer }[];
  let shown: (string | null)[][][];
  let events: BinlogEvent[];
  let lastInsertId: string;
  let gtidPos: string;
  const annotated = "INSERT INTO evt.people (name) VALUES ('Grüße, 世界')";

  const of = <T extends string>(type: T) => events.filter((e): e is Of<T> => e.type === type);

  beforeAll(async () => {
    server = await startMariadb();
    await server.sql('CREATE DATABASE evt');
    await server.sql('CREATE TABLE evt.loose (x INT)');
    await server.sql(
      `CREATE TABLE people (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) CHARACTER SET utf8mb4);
       CREATE TABLE vars (s TEXT CHARACTER SET utf8mb4, r DOUBLE, i BIGINT, u BIGINT UNSIGNED, d DECIMAL(10,3), n INT);
       CREATE TABLE rnd (x DOUBLE);`,
      'evt',
    );
    await server.sql(annotated);
    lastInsertId = (
      await server.sql(
        `SET SESSION binlog_format = 'STATEMENT';
         INSERT INTO people (name) VALUES ('statement');
         INSERT INTO people (name) VALUES (LAST_INSERT_ID());
         SET @@rand_seed1 = 123456, @@rand_seed2 = 654321;
         INSERT INTO rnd VALUES (RAND());
         SET @s = 'héllo', @r = 1.5e0, @i = -42, @u = 18446744073709551615, @d = 12.345, @n = NULL;
         INSERT INTO vars VALUES (@s, @r, @i, @u, @d, @n);
         SELECT LAST_INSERT_ID();`,
        'evt',
      )
    ).trim();
    gtidPos = (await server.sql('SELECT @@gtid_binlog_pos')).trim();
    await server.flushLogs();
    const names = (await server.binlogFiles()).map((f) => f.replace(/^.*\//, ''));
    shown = await Promise.all(names.map((n) => server.query(`SHOW BINLOG EVENTS IN '${n}'`)));
    files = await server.stopAndReadBinlogs();
    events = files.flatMap((f) => decodeBinlog(f.bytes));
  }, 120_000);

  afterAll(() => server?.stop());

  it('decodes to the events the server lists, with the same positions, types, server ids and end positions', () => {
    const first = decodeBinlog(files[0]!.bytes);
    const rows = shown[0]!;
    expect(first.map((e) => [e.pos, SERVER_NAMES[e.type] ?? e.type, e.header.serverId, e.header.logPos])).toEqual(
      rows.map((r) => [Number(r[1]), r[2], Number(r[3]), Number(r[4])]),
    );
  });

  it('every file encodes back to identical bytes', () => {
    for (const f of files)
      expect(Buffer.compare(Buffer.from(encodeBinlog(decodeBinlog(f.bytes))), f.bytes), f.path).toBe(0);
  });

  it('QUERY keeps the statement text and its default schema', () => {
    const queries = of('QUERY_EVENT');
    // The server gives CREATE DATABASE the new database as its schema; a statement run without one has none.
    expect(queries.find((q) => q.query === 'CREATE DATABASE evt')?.schema).toBe('evt');
    expect(queries.find((q) => q.query === 'CREATE TABLE evt.loose (x INT)')?.schema).toBe('');
    const create = queries.find((q) => typeof q.query === 'string' && q.query.startsWith('CREATE TABLE vars'));
    expect(create?.schema).toBe('evt');
    expect(queries.find((q) => q.query === "INSERT INTO people (name) VALUES ('statement')")?.schema).toBe('evt');
    // The server's text for each QUERY: "use `db`; statement" when there is a default schema, unless the
    // event's flags say LOG_EVENT_SUPPRESS_USE_F (as for CREATE DATABASE).
    const rows = shown[0]!.filter((r) => r[2] === 'Query');
    const first = decodeBinlog(files[0]!.bytes).filter((e): e is Of<'QUERY_EVENT'> => e.type === 'QUERY_EVENT');
    const use = (q: Of<'QUERY_EVENT'>) => q.schema && !(q.header.flags! & EventFlags.LOG_EVENT_SUPPRESS_USE_F);
    expect(first.map((q) => (use(q) ? `use \`${q.schema}\`; ${q.query}` : q.query))).toEqual(rows.map((r) => r[5]));
  });

  it('QUERY status variables decode to named fields', () => {
    const q = of('QUERY_EVENT').find((e) => e.query === 'CREATE DATABASE evt')!;
    const statusVars = q.statusVars ?? [];
    const codes = statusVars.map((v) => v.code);
    expect(codes).toContain('Q_FLAGS2_CODE');
    expect(codes).toContain('Q_SQL_MODE_CODE');
    const charset = statusVars.find((v) => v.code === 'Q_CHARSET_CODE') as { characterSetClient: number } | undefined;
    expect(charset?.characterSetClient).toBe(45); // utf8mb4_general_ci: the client's --default-character-set
    expect(statusVars.every((v) => !('raw' in v))).toBe(true);
  });

  it('ANNOTATE_ROWS carries the row statement', () => {
    expect(of('ANNOTATE_ROWS_EVENT').map((e) => e.query)).toContain(annotated);
  });

  it('INTVAR carries INSERT_ID and LAST_INSERT_ID()', () => {
    const intvars = of('INTVAR_EVENT').map((e) => [e.kind, Number(e.value)]);
    expect(intvars).toContainEqual(['LAST_INSERT_ID_EVENT', Number(lastInsertId) - 1]);
    expect(intvars).toContainEqual(['INSERT_ID_EVENT', Number(lastInsertId)]);
  });

  it('RAND carries the seeds set before RAND()', () => {
    expect(of('RAND_EVENT').map((e) => [e.seed1, e.seed2])).toEqual([[123456n, 654321n]]);
  });

  it('USER_VAR carries each value type', () => {
    const vars = new Map(of('USER_VAR_EVENT').map((e) => [e.name, e]));
    expect(vars.get('s')).toMatchObject({ isNull: 0, valueType: 'STRING_RESULT', value: { string: 'héllo' } });
    expect(vars.get('r')).toMatchObject({ valueType: 'REAL_RESULT', value: { real: 1.5 } });
    expect(vars.get('i')).toMatchObject({ valueType: 'INT_RESULT', value: { int: -42n }, flags: 0 });
    // 2^64-1 is stored as the same 64 bits, with UNSIGNED_F.
    expect(vars.get('u')).toMatchObject({ valueType: 'INT_RESULT', value: { int: -1n }, flags: 1 });
    expect(vars.get('d')).toMatchObject({ valueType: 'DECIMAL_RESULT', value: { precision: 5, scale: 3 } });
    expect(vars.get('n')).toMatchObject({ isNull: 1 });
    expect(vars.get('n')?.value).toBeUndefined();
  });

  it('GTID sequence numbers count the transactions up to @@gtid_binlog_pos', () => {
    const seqs = of('GTID_EVENT').map((e) => Number(e.seqNo));
    const [domain, serverId, last] = gtidPos.split('-').map(Number);
    expect(seqs).toEqual(Array.from({ length: last! }, (_, i) => i + 1));
    expect(of('GTID_EVENT').every((e) => e.domainId === domain && e.header.serverId === serverId)).toBe(true);
  });

  it('XID matches the commit ids the server shows', () => {
    const first = decodeBinlog(files[0]!.bytes).filter((e): e is Of<'XID_EVENT'> => e.type === 'XID_EVENT');
    const shownXids = shown[0]!.filter((r) => r[2] === 'Xid').map((r) => /xid=(\d+)/.exec(r[5] ?? '')?.[1]);
    expect(first.map((e) => String(e.xid))).toEqual(shownXids);
  });

  it('ROTATE names the next file and position; BINLOG_CHECKPOINT names a file; GTID_LIST follows each FDE', () => {
    const [one, two] = files.map((f) => decodeBinlog(f.bytes));
    const rotate = one!.at(-1)!;
    expect(rotate.type).toBe('ROTATE_EVENT');
    expect(rotate).toMatchObject({ position: 4n, nextFile: files[1]!.path.replace(/^.*\//, '') });
    expect(one![1]!.type).toBe('GTID_LIST_EVENT');
    expect(two![1]).toMatchObject({
      type: 'GTID_LIST_EVENT',
      gtids: [{ domainId: 0, serverId: 1, seqNo: BigInt(gtidPos.split('-')[2]!) }],
    });
    const checkpoints = of('BINLOG_CHECKPOINT_EVENT').map((e) => e.checkpointFile);
    expect(checkpoints).toContain(files[0]!.path.replace(/^.*\//, ''));
  });

  it('a clean shutdown ends the last binlog with STOP', () => {
    expect(decodeBinlog(files.at(-1)!.bytes).at(-1)?.type).toBe('STOP_EVENT');
  });

  it('the FDE says CRC32 and every other event carries a checksum', () => {
    const fde = events[0] as Of<'FORMAT_DESCRIPTION_EVENT'>;
    expect(fde).toMatchObject({
      type: 'FORMAT_DESCRIPTION_EVENT',
      binlogVersion: 4,
      checksumAlg: 'BINLOG_CHECKSUM_ALG_CRC32',
    });
    expect(events.every((e) => typeof e.checksum === 'number')).toBe(true);
  });
});

describeWithServer('MariaDB with binlog_checksum=NONE', () => {
  it(
    'an FDE that declares no checksum: it still ends with ' + 'its CRC32, no other event has one, all round-trips',
    async () => {
      const server = await startMariadb({ checksum: 'NONE' });
      try {
        await server.sql('CREATE DATABASE n; CREATE TABLE n.t (a INT); INSERT INTO n.t VALUES (1)');
        await server.flushLogs();
        const [file] = await server.stopAndReadBinlogs();
        const events = decodeBinlog(file!.bytes);
        expect(events[0]).toMatchObject({ type: 'FORMAT_DESCRIPTION_EVENT', checksumAlg: 'BINLOG_CHECKSUM_ALG_OFF' });
        expect(typeof events[0]!.checksum).toBe('number');
        expect(events.slice(1).every((e) => e.checksum === undefined)).toBe(true);
        expect(events.some((e) => 'rows' in e)).toBe(true);
        expect(Buffer.compare(Buffer.from(encodeBinlog(events)), file!.bytes)).toBe(0);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
});
