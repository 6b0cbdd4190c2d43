/**
 * Binlogs holding the events no real fixture here has: the LOAD DATA family, SLAVE, TRANSACTION_CONTEXT,
 * VIEW_CHANGE, PARTIAL_ROW_DATA, and a binlog v1 (MySQL 3.23) file. The tests check them and the fuzzer
 * mutates them.
 */
import { BinlogWriter, type EventInput } from '../../builder/index.js';
import { eventFromJson } from '../../runtime/events/event-codec.js';
import { encodeBinlog } from '../../runtime/io/stream.js';

export const text = (s: string) => new TextEncoder().encode(s);

/**
 * A MariaDB 10.11 binlog holding `events`, without checksums (the servers that wrote them had none); some
 * are MySQL's (TRANSACTION_CONTEXT, VIEW_CHANGE), which a MariaDB server never writes.
 */
export function binlogWith(events: EventInput[]): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000, checksum: 'NONE', foreignEvents: true });
  for (const e of events) w.event(e);
  return w.toBytes();
}

/** The FIELDS/LINES clauses, new form: OPT_ENCLOSED_FLAG | REPLACE_FLAG. */
export const CLAUSES = {
  fieldTerminator: ',',
  enclosedBy: '"',
  lineTerminator: '\n',
  lineStart: '>',
  escapedBy: '\\',
  optFlags: 0x2 | 0x4,
};

/** The statement of the EXECUTE_LOAD_QUERY; a replica replaces its span " INFILE '…' INTO" with its own copy's name. */
export const LOAD_QUERY = "LOAD DATA INFILE '/tmp/q.txt' INTO TABLE t4";

export const LOAD_EVENTS = [
  {
    type: 'LOAD_EVENT',
    threadId: 5,
    execTime: 0,
    skipLines: 1,
    fieldLengths: [1, 1],
    fieldNames: [{ name: 'a' }, { name: 'b' }],
    tableName: 't',
    schema: 'test',
    fileName: '/tmp/old.txt',
    // One character per clause; emptyFlags LINE_START_EMPTY; optFlags IGNORE_FLAG.
    oldClauses: {
      fieldTerminator: 0x2c,
      enclosedBy: 0x22,
      lineTerminator: 0x0a,
      lineStart: 0,
      escapedBy: 0x5c,
      optFlags: 0x8,
      emptyFlags: 0x8,
    },
  },
  {
    type: 'NEW_LOAD_EVENT',
    threadId: 5,
    execTime: 0,
    skipLines: 0,
    clauses: CLAUSES,
    fieldLengths: [2],
    fieldNames: [{ name: 'id' }],
    tableName: 't2',
    schema: 'db2',
    fileName: '/tmp/new.txt',
  },
  {
    type: 'CREATE_FILE_EVENT',
    threadId: 5,
    execTime: 0,
    skipLines: 0,
    fileId: 7,
    clauses: CLAUSES,
    fieldLengths: [],
    fieldNames: [],
    tableName: 't3',
    schema: 'db2',
    createFileName: '/tmp/cf.txt',
    data: text('1,"x"\n'),
  },
  { type: 'APPEND_BLOCK_EVENT', fileId: 7, data: text('2,"y"\n') },
  { type: 'EXEC_LOAD_EVENT', fileId: 7 },
  { type: 'DELETE_FILE_EVENT', fileId: 8 },
  { type: 'BEGIN_LOAD_QUERY_EVENT', fileId: 9, data: text('3,"z"\n') },
  {
    type: 'EXECUTE_LOAD_QUERY_EVENT',
    threadId: 5,
    execTime: 0,
    errorCode: 0,
    statusVars: [],
    schema: 'db2',
    query: LOAD_QUERY,
    fileId: 9,
    fileNameStart: LOAD_QUERY.indexOf(' INFILE'),
    fileNameEnd: LOAD_QUERY.indexOf(' TABLE'),
    duplicates: 'LOAD_DUP_ERROR',
  },
] as EventInput[];

export const UUID = '3e11fa47-71ca-11e1-9e33-c80aa9429562';

export const GROUP_EVENTS = [
  { type: 'SLAVE_EVENT', masterPosition: 4n, masterPort: 3306, masterHost: 'master', masterLog: 'master-bin.001' },
  {
    type: 'TRANSACTION_CONTEXT_EVENT',
    threadId: 9,
    gtidSpecified: 0,
    serverUuid: UUID,
    snapshotVersion: {
      countLow: 1,
      countHigh: 0,
      format: 0,
      sids: [
        { uuid: Uint8Array.from(Buffer.from(UUID.replace(/-/g, ''), 'hex')), intervals: [{ start: 1n, end: 6n }] },
      ],
    },
    writeSet: [{ hash: '123' }, { hash: '456' }],
    readSet: [],
  },
  { type: 'VIEW_CHANGE_EVENT', viewId: '1421867646:1', seqNumber: 42n, certInfo: [{ key: 'k1', value: text('v') }] },
  {
    type: 'PARTIAL_ROW_DATA_EVENT',
    totalFragments: 3,
    sequenceNumber: 1,
    flags: 1,
    originalSize: 20000n,
    chunk: Uint8Array.of(0xaa, 0xbb),
  },
  { type: 'PARTIAL_ROW_DATA_EVENT', totalFragments: 3, sequenceNumber: 2, flags: 0, chunk: Uint8Array.of(0xcc) },
] as EventInput[];

/** A v1 header: no logPos, no flags. */
export const v1Header = (typeCode: number) => ({ timestamp: 1_000_000_000, typeCode, serverId: 1 });

export const V1_LINES = [
  {
    header: v1Header(1),
    type: 'START_EVENT_V3',
    binlogVersion: 1,
    serverVersion: '3.23.58-log',
    createTimestamp: 1_000_000_000,
  },
  {
    header: v1Header(2),
    type: 'QUERY_EVENT',
    threadId: 5,
    execTime: 0,
    errorCode: 0,
    schema: 'test',
    query: 'CREATE TABLE t (a INT)',
  },
  { header: v1Header(6), ...LOAD_EVENTS[0], skipLines: 0, fieldLengths: [1], fieldNames: [{ name: 'a' }] },
  { header: v1Header(4), type: 'ROTATE_EVENT', nextFile: 'master-bin.002' },
];

export function v1Binlog(): Uint8Array {
  return encodeBinlog(V1_LINES.map((l, i) => eventFromJson(l, `line ${i + 1}`)));
}

/** All three, for the fuzzer. */
export function legacyBinlogs(): Uint8Array[] {
  return [binlogWith(LOAD_EVENTS), binlogWith(GROUP_EVENTS), v1Binlog()];
}
