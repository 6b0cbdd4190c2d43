/**
 * Row changes as Debezium-shaped change records, one message each, on `PREFIX.<db>.<table>`; DDL (and
 * any statement other than BEGIN, COMMIT, XA… and SAVEPOINT) on `PREFIX._ddl` when asked for. Values are
 * the dump's JSON (runtime/core/dump-json.ts). docs/stream.md describes the record.
 *
 * A message's id is `<server id>/<GTID>/<n>`, or `<server id>/<file>:<pos>/<n>` for a transaction
 * without a GTID (file:pos: the checkpoint it starts at), n counting the transaction's messages from 0:
 * the same change read again, after a restart from any checkpoint, has the same id and the same body.
 */
import type { Checkpoint } from '../protocol/checkpoint.js';
import { gtidOf } from '../protocol/gtid-sets.js';
import { rowKind } from '../protocol/row-kinds.js';
import { toJsonBytes } from '../runtime/core/dump-json.js';
import type { RowChange } from '../runtime/core/values.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { isStatement, textOf } from '../runtime/io/transactions.js';
import type { SinkMessage } from './sink.js';

/** Where a change comes from. */
export interface ChangeSource {
  server_id: number;
  file: string;
  /** The offset of the rows (or QUERY) event in `file`. */
  pos: number;
  /** The transaction's GTID, null without one. */
  gtid: string | null;
  db: string;
  table: string | null;
  /** The row's index in its rows event. */
  row: number;
}

export interface ChangeRecord {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  op: 'c' | 'u' | 'd';
  /** The event's timestamp, in milliseconds (the server's, so that a resend is the same message). */
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

/** The subject of the DDL statements, after the prefix. */
export const DDL_SUBJECT = '_ddl';

/** Turns the events a stream hands out into messages, following its TABLE_MAPs and transactions. */
export class ChangeMessages {
  private readonly tables = new Map<number, { db: string; table: string }>();
  private transaction: { key: string; serverId: number; gtid: string | null; n: number } | undefined;

  constructor(
    private readonly prefix: string,
    private readonly ddl: boolean,
  ) {}

  /** The messages of `e`, which comes after `checkpoint` (the transaction's start, for its first event). */
  of(e: BinlogEvent, checkpoint: Checkpoint): SinkMessage[] {
    if (e.notInFile) return [];
    const gtid = gtidOf(e);
    this.transaction ??= { key: `${checkpoint.file}:${checkpoint.position}`, serverId: e.header.serverId, gtid: null, n: 0 };
    if (gtid !== undefined) Object.assign(this.transaction, { key: gtid, gtid, serverId: e.header.serverId });
    if (e.type === 'TABLE_MAP_EVENT') {
      this.tables.set(e.tableId, { db: String(textOf(e.schemaName)), table: String(textOf(e.tableName)) });
      return [];
    }
    const kind = rowKind(e.type);
    if (kind && 'tableId' in e) return this.rows(e, OPS[kind]);
    if (this.ddl && e.type === 'QUERY_EVENT' && isStatement(e)) return [this.statement(e)];
    return [];
  }

  /** The transaction ended: the next event begins another. */
  ended(): void {
    this.transaction = undefined;
  }

  private rows(e: BinlogEvent & { tableId: number; rows?: readonly RowChange[] }, op: ChangeRecord['op']): SinkMessage[] {
    const table = this.tables.get(e.tableId);
    if (!table) throw new Error(`the rows event at ${e.file}:${e.pos} has no TABLE_MAP before it`);
    // A rows event whose images could not be split into rows has none, and so no messages.
    const rows = e.rows ?? [];
    const subject = `${this.prefix}.${token(table.db)}.${token(table.table)}`;
    return rows.map((r, row) => {
      const record: ChangeRecord = { before: r.before ?? null, after: r.after ?? null, op, ts_ms: e.header.timestamp * 1000, source: this.source(e, table.db, table.table, row) };
      return this.message(subject, record);
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

  private message(subject: string, record: ChangeRecord | DdlRecord): SinkMessage {
    const t = this.transaction!;
    return { subject, id: `${t.serverId}/${t.key}/${t.n++}`, body: toJsonBytes(record) };
  }
}

/**
 * A name as one token of a NATS subject: '.', '*', '>', '%', white space and control characters are
 * %XX (their UTF-8 bytes), everything else as it is.
 */
export function token(name: string): string {
  return name.replace(/[%.*>\s\p{Cc}]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}
