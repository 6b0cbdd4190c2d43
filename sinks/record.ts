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
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { TableMapEventOptionalMetadataEntry } from '../generated/rows.js';
import type { RowChange } from '../runtime/core/values.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
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
    // A rows event whose images could not be split into rows has none, and so no messages.
    const rows = e.rows ?? [];
    const subject = `${this.prefix}.${token(table.db)}.${token(table.table)}`;
    return rows.map((r, row) => {
      const record: ChangeRecord = {
        before: r.before ?? null,
        after: r.after ?? null,
        op,
        ts_ms: e.header.timestamp * 1000,
        source: this.source(e, table.db, table.table, row),
      };
      const partition = this.partitions === undefined ? '' : `.${partitionOf(table.key, record, this.partitions)}`;
      return this.message(subject + partition, record, changeJson(record));
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
    return this.message(`${this.prefix}.${DDL_SUBJECT}`, record);
  }

  private source(e: BinlogEvent, db: string, table: string | null, row: number): ChangeSource {
    const t = this.transaction!;
    return { server_id: t.serverId, file: e.file ?? '', pos: e.pos, gtid: t.gtid, db, table, row };
  }

  private message(subject: string, record: ChangeRecord | DdlRecord, json = toJsonLine(record)): SinkMessage {
    const t = this.transaction!;
    return { subject, id: `${t.serverId}/${t.key}/${t.n++}`, body: Buffer.from(json) };
  }
}

/**
 * A change record's JSON, the same as toJsonLine's: the images whose values are all plain (strings, numbers
 * other than -0, booleans, null) through JSON.stringify alone, which is several times faster than with the
 * replacer that the others need, called back for every key.
 */
export function changeJson(r: ChangeRecord): string {
  const images = `"before":${imageJson(r.before)},"after":${imageJson(r.after)}`;
  return `{${images},"op":"${r.op}","ts_ms":${r.ts_ms},"source":${JSON.stringify(r.source)}}`;
}

function imageJson(image: Record<string, unknown> | null): string {
  if (image === null) return 'null';
  for (const k in image) {
    const v = image[k];
    if ((typeof v === 'object' && v !== null) || typeof v === 'bigint' || Object.is(v, -0)) return toJsonLine(image);
  }
  return JSON.stringify(image);
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
export function partitionOf(key: string[], record: ChangeRecord, partitions: number): number {
  const image = record.after ?? record.before;
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
