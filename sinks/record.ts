/**
 * Row changes as Debezium-shaped change records, one message each, on `PREFIX.<db>.<table>`; DDL (and
 * any statement other than BEGIN, COMMIT, XA… and SAVEPOINT) on `PREFIX._ddl` when asked for. Values are
 * the dump's JSON (runtime/core/dump-json.ts). docs/stream.md describes the record.
 *
 * A message's id is `<server id>/<GTID>/<n>`, or `<server id>/<file>:<pos>/<n>` for a transaction
 * without a GTID (file:pos: the checkpoint it starts at), n counting the transaction's messages from 0:
 * the same change read again, after a restart from any checkpoint, has the same id and the same body.
 *
 * With partitions (N), a row change goes to `PREFIX.<db>.<table>.<P>`, P being a hash of its primary key's
 * values modulo N (the after image's key, the before image's for a delete), so that N consumers can share a
 * table: the changes of one key stay in commit order on one subject, those of a table no longer do. A
 * table whose TABLE_MAP names no primary key (binlog_row_metadata=FULL gives it) has all its changes on
 * partition 0, in commit order.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import { gtidOf } from '../protocol/gtid-sets.js';
import { rowKind } from '../protocol/row-kinds.js';
import { toJsonBytes, toJsonLine } from '../runtime/core/dump-json.js';
import { JsonBytes } from '../runtime/core/dump-json-bytes.js';
import type { TableMapEventOptionalMetadataEntry } from '../generated/rows.js';
import type { RowChange } from '../runtime/core/values.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { JsonRows } from '../runtime/rows/json-rows.js';
import { DUMP_ROWS, type DumpRowsOption } from '../runtime/rows/row-tables.js';
import { isStatement, textOf } from '../runtime/io/transactions.js';
import type { SinkMessage } from './sink.js';

/** Says where a change comes from. */
export interface ChangeSource {
  server_id: number;
  file: string;
  /** This is the offset of the rows (or QUERY) event in `file`. */
  pos: number;
  /** This is the transaction's GTID, or null when it has none. */
  gtid: string | null;
  db: string;
  table: string | null;
  /** This is the row's index in its rows event. */
  row: number;
}

export interface ChangeRecord {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  op: 'c' | 'u' | 'd';
  /** It is the event's timestamp in milliseconds, the server's, so that a resend is the same message. */
  ts_ms: number;
  source: ChangeSource;
}

export interface DdlRecord {
  databaseName: string;
  ddl: string;
  ts_ms: number;
  source: ChangeSource;
}

const OPS = { write: 'c', update: 'u', delete: 'd' } as const;

/** The DDL statements go to this subject, after the prefix. */
export const DDL_SUBJECT = '_ddl';

/** A table as its TABLE_MAP gives it: its names, and its primary key's columns by name (empty when none is given). */
interface MappedTable {
  db: string;
  table: string;
  key: string[];
}

/** Turns the events a stream hands out into messages, following its TABLE_MAPs and transactions. */
export class ChangeMessages {
  private readonly tables = new Map<number, MappedTable>();
  private transaction: { key: string; serverId: number; gtid: string | null; n: number } | undefined;

  constructor(
    private readonly prefix: string,
    private readonly ddl: boolean,
    /** Row changes spread over this many subjects per table by their primary key; undefined: one subject per table. */
    private readonly partitions?: number,
  ) {}

  /**
   * How the dump is to give rows events' rows: as the dump's JsonRows, written to records from their bytes
   * with no row object made, unless partitions need the key's values.
   */
  rowsOption(): Partial<DumpRowsOption> {
    return this.partitions === undefined ? { [DUMP_ROWS]: true } : {};
  }

  /** The messages of `e`, which comes after `checkpoint` (the transaction's start, for its first event). */
  of(e: BinlogEvent, checkpoint: Checkpoint): SinkMessage[] {
    if (e.notInFile) return [];
    const gtid = gtidOf(e);
    this.transaction ??= {
      key: `${checkpoint.file}:${checkpoint.position}`,
      serverId: e.header.serverId,
      gtid: null,
      n: 0,
    };
    if (gtid !== undefined) Object.assign(this.transaction, { key: gtid, gtid, serverId: e.header.serverId });
    if (e.type === 'TABLE_MAP_EVENT') {
      this.tables.set(e.tableId, {
        db: String(textOf(e.schemaName)),
        table: String(textOf(e.tableName)),
        key: keyColumns(e.optionalMetadata),
      });
      return [];
    }
    const kind = rowKind(e.type);
    if (kind && 'tableId' in e) return this.rows(e, OPS[kind]);
    if (this.ddl && e.type === 'QUERY_EVENT' && isStatement(e)) return [this.statement(e)];
    return [];
  }

  /** Says that the transaction ended: the next event begins another. */
  ended(): void {
    this.transaction = undefined;
  }

  private rows(
    e: BinlogEvent & { tableId: number; rows?: readonly RowChange[] },
    op: ChangeRecord['op'],
  ): SinkMessage[] {
    const table = this.tables.get(e.tableId);
    if (!table) throw new Error(`the rows event at ${e.file}:${e.pos} has no TABLE_MAP before it`);
    // A rows event whose images could not be split into rows has none, and so no messages. Under
    // rowsOption's DUMP_ROWS the reader gives JsonRows where its events' type says RowChange[].
    const rows: readonly RowChange[] | JsonRows = e.rows ?? [];
    const subject = `${this.prefix}.${token(table.db)}.${token(table.table)}`;
    const shared = { op, ts_ms: e.header.timestamp * 1000, source: this.source(e, table.db, table.table, 0) };
    if (rows instanceof JsonRows) {
      if (this.partitions !== undefined) throw new Error('partitions need the rows decoded, not as JsonRows');
      return renderedBodies(rows, shared).map((body) => this.message(subject, body));
    }
    const bodies = changeBodies(rows, shared);
    return rows.map((r, row) => {
      const partition = this.partitions === undefined ? '' : `.${partitionOf(table.key, r, this.partitions)}`;
      return this.message(subject + partition, bodies[row]!);
    });
  }

  private statement(e: Extract<BinlogEvent, { type: 'QUERY_EVENT' }>): SinkMessage {
    const db = textOf(e.schema) ?? '';
    const record: DdlRecord = {
      databaseName: db,
      ddl: textOf(e.query) ?? '',
      ts_ms: e.header.timestamp * 1000,
      source: this.source(e, db, null, 0),
    };
    return this.message(`${this.prefix}.${DDL_SUBJECT}`, toJsonBytes(record));
  }

  private source(e: BinlogEvent, db: string, table: string | null, row: number): ChangeSource {
    const t = this.transaction!;
    return { server_id: t.serverId, file: e.file ?? '', pos: e.pos, gtid: t.gtid, db, table, row };
  }

  private message(subject: string, body: Uint8Array): SinkMessage {
    const t = this.transaction!;
    return { subject, id: `${t.serverId}/${t.key}/${t.n++}`, body };
  }
}

/** What the records of one rows event share: all but their images and their row index. */
export type SharedParts = Pick<ChangeRecord, 'op' | 'ts_ms' | 'source'>;

const BEFORE = Buffer.from('{"before":');
const AFTER = Buffer.from(',"after":');
const COMMA = 0x2c;
const CLOSE = Buffer.from('}}');
const KEPT_BYTES = 1 << 20;
const bodies = new JsonBytes(1 << 15);

/**
 * The records of one rows event as JSON bodies, each the same bytes as toJsonBytes of the whole record.
 * The parts they share are written once, and every body is a view of one buffer, so that a row costs
 * its images and its row index only.
 */
export function changeBodies(rows: readonly RowChange[], shared: SharedParts): Buffer[] {
  const tail = sharedTail(shared);
  const ends: number[] = [];
  bodies.pos = 0;
  for (let row = 0; row < rows.length; row++) {
    const r = rows[row]!;
    bodies.raw(BEFORE);
    bodies.value(r.before ?? null);
    bodies.raw(AFTER);
    bodies.value(r.after ?? null);
    bodies.byte(COMMA);
    bodies.raw(tail);
    bodies.value(row);
    bodies.raw(CLOSE);
    ends.push(bodies.pos);
  }
  return viewsOfBodies(ends);
}

/** The bodies written in `bodies`, ending at `ends`, as views of one copy of them. */
function viewsOfBodies(ends: number[]): Buffer[] {
  // The copy is the event's own: the writer is used again at once, and the client reads the bodies later.
  const all = Buffer.from(bodies.buf.subarray(0, bodies.pos));
  // One event of large rows does not keep a large buffer for the rest of the stream.
  if (bodies.buf.length > KEPT_BYTES) bodies.take();
  return ends.map((end, row) => all.subarray(row === 0 ? 0 : ends[row - 1], end));
}

const rendered = new JsonBytes(1 << 15);
const RECORD_OPEN = { c: Buffer.from('{"before":null,'), u: Buffer.from('{'), d: Buffer.from('{') };
const RECORD_AFTER = { c: Buffer.alloc(0), u: Buffer.alloc(0), d: Buffer.from(',"after":null') };
const NULL_SPARE = Buffer.from('"nullSpare":{');

/**
 * The records of a rows event as changeBodies gives them, from the dump's JSON of its changes: each change
 * `{"before":…,"after":…}` (an UPDATE's; a WRITE's has no before member, a DELETE's no after member) is
 * the record's first members, completed with the missing image as null and the shared parts. Images that
 * do not read give no records, as the eager decode gives no rows for them.
 */
export function renderedBodies(rows: JsonRows, shared: SharedParts): Buffer[] {
  const ends: number[] = [];
  rendered.pos = 0;
  const text = rows.render(rendered, ends).rows;
  if (text === undefined) return [];
  const tail = sharedTail(shared);
  const changes = rendered.buf;
  const bodyEnds: number[] = [];
  bodies.pos = 0;
  for (let row = 0, start = text.start + 1; row < ends.length; start = ends[row++]! + 1) {
    bodies.raw(RECORD_OPEN[shared.op]);
    bodies.raw(changes.subarray(membersStart(changes, start + 1), ends[row]! - 1));
    bodies.raw(RECORD_AFTER[shared.op]);
    bodies.byte(COMMA);
    bodies.raw(tail);
    bodies.value(row);
    bodies.raw(CLOSE);
    bodyEnds.push(bodies.pos);
  }
  if (rendered.buf.length > KEPT_BYTES) rendered.take();
  return viewsOfBodies(bodyEnds);
}

/**
 * Where a change's members start after its brace, past a `nullSpare` member: the dump keeps the unused
 * bits of a null bitmap there, which the records, as the eager decode's changes give them, leave out.
 */
function membersStart(changes: Buffer, at: number): number {
  // Nearly every change begins with "before" or "after": the byte after the quote tells, with no compare made.
  if (changes[at + 1] !== NULL_SPARE[1] || !changes.subarray(at, at + NULL_SPARE.length).equals(NULL_SPARE)) return at;
  // The member is an object of numbers, so its first closing brace ends it; a comma follows.
  return changes.indexOf(0x7d, at + NULL_SPARE.length) + 2;
}

/**
 * The JSON of the shared parts as every record has them after its images: `"op":…,"source":{…,"row":`.
 * It is toJsonLine's text of the parts with row 0, less the first brace and the last `0}}`, which each
 * record writes with its own row index.
 */
function sharedTail(shared: SharedParts): Buffer {
  const json = toJsonLine({ ...shared, source: { ...shared.source, row: 0 } });
  return Buffer.from(json.slice(1, -3));
}

/** Reads the primary key's column names from the TABLE_MAP's metadata (a column without a name is `@N`, 1-based). */
function keyColumns(metadata: TableMapEventOptionalMetadataEntry[] | undefined): string[] {
  const entries = (metadata ?? []) as { code: unknown; columns?: (number | { column: number })[]; names?: unknown[] }[];
  const names = entries.find((m) => m.code === 'COLUMN_NAME')?.names;
  const key = entries.find((m) => m.code === 'SIMPLE_PRIMARY_KEY' || m.code === 'PRIMARY_KEY_WITH_PREFIX');
  const columns = key?.columns ?? [];
  return columns.map((c) => (typeof c === 'number' ? c : c.column)).map((i) => textOf(names?.[i]) ?? `@${i + 1}`);
}

/** Gives a row change's partition: FNV-1a of its key values' JSON modulo `partitions`, 0 when the table has no key. */
export function partitionOf(key: string[], change: RowChange, partitions: number): number {
  return imagePartition(key, change.after ?? change.before, partitions);
}

/** Gives the partition of a row image as partitionOf does: a snapshot's row goes where its later changes go. */
export function imagePartition(key: string[], image: Record<string, unknown> | undefined, partitions: number): number {
  if (key.length === 0 || !image) return 0;
  const text = toJsonLine(key.map((k) => image[k]));
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) % partitions;
}

/**
 * A name as one token of a NATS subject: '.', '*', '>', '%', white space and control characters are
 * %XX (their UTF-8 bytes), everything else as it is.
 */
export function token(name: string): string {
  return name.replace(/[%.*>\s\p{Cc}]/gu, (c) =>
    [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
