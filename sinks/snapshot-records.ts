/**
 * A consistent snapshot's rows as Debezium's read records (`op: "r"`), one message each, on the subject
 * the row's later changes go to (record.ts). docs/stream.md describes the record.
 *
 * A message's id is `snapshot/<file>:<pos>/<db>.<table>/<key>`: the snapshot's point, the table and the
 * row's primary key values (the row's place in the table's ordered pass for a table without one), so that
 * the rows sent again within one snapshot (after the broker was lost) are dropped by the broker as
 * duplicates. A snapshot taken again after a restart may stand at another point: its rows are new messages.
 */
import { toJsonBytes, toJsonLine } from '../runtime/core/dump-json.js';
import { rowJson, type SnapshotPoint, type SnapshotRow, type SnapshotTable } from '../protocol/snapshot-rows.js';
import { imagePartition, token } from './record.js';
import type { SinkMessage } from './sink.js';

/** Where a read record comes from: the snapshot's point and the table. */
export interface SnapshotSource {
  snapshot: true;
  file: string;
  pos: number;
  /** It is the GTID state at the point, or null when the server gave none. */
  gtid: string | null;
  db: string;
  table: string;
  /** It is the row's place in the table's snapshot, from 0. */
  row: number;
}

export interface ReadRecord {
  before: null;
  after: Record<string, unknown>;
  op: 'r';
  /** It is when the snapshot started, in milliseconds: the same for every row, so that a resend is the same message. */
  ts_ms: number;
  source: SnapshotSource;
}

/** Turns a snapshot's pages of rows into messages, counting each table's rows for `source.row`. */
export class SnapshotMessages {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly prefix: string,
    private readonly point: SnapshotPoint,
    private readonly startedAt: number,
    /** Rows spread over this many subjects per table by their primary key, as their changes are. */
    private readonly partitions?: number,
  ) {}

  /** The messages of one page of `table`'s rows. */
  of(table: SnapshotTable, rows: SnapshotRow[]): SinkMessage[] {
    const subject = `${this.prefix}.${token(table.schema)}.${token(table.name)}`;
    const first = this.counts.get(table.qualified) ?? 0;
    this.counts.set(table.qualified, first + rows.length);
    return rows.map((cells, i) => {
      const after = rowJson(table.columns, cells);
      const row = first + i;
      const record: ReadRecord = {
        before: null,
        after,
        op: 'r',
        ts_ms: this.startedAt,
        source: { snapshot: true, ...this.where(), db: table.schema, table: table.name, row },
      };
      const partition = this.partitions === undefined ? '' : `.${imagePartition(table.key, after, this.partitions)}`;
      const key = table.key.length ? toJsonLine(table.key.map((k) => after[k])) : String(row);
      const id = `snapshot/${this.point.file}:${this.point.position}/${table.qualified}/${key}`;
      return { subject: subject + partition, id, body: toJsonBytes(record) };
    });
  }

  private where(): Pick<SnapshotSource, 'file' | 'pos' | 'gtid'> {
    return { file: this.point.file, pos: this.point.position, gtid: this.point.gtid || null };
  }
}
