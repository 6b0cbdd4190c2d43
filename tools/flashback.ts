/**
 * Undo binlogs (MyFlash's approach): the events that revert a binlog's row changes, for `mariadb-binlog
 * UNDO.bin | mariadb` or `mysqlbinlog UNDO.bin | mysql` to apply. Each rows event is reversed (a WRITE
 * becomes a DELETE of its row, a DELETE a WRITE, an UPDATE's images swap) and the transactions come last
 * to first, each its TABLE_MAPs, its rows events last to first, then its commit.
 *
 * GTIDs are left out: a replayed undo is a new transaction on the server it is applied to, which gives
 * it a GTID of its own. Replaying the originals' (mariadb-binlog prints `SET gtid_seq_no=N` for a MariaDB
 * GTID) would log a GTID that is already in the server's history, which gtid_strict_mode refuses and
 * replicas take for applied. A MariaDB transaction, whose GTID stands for its BEGIN, begins with a
 * BEGIN statement instead, as before MariaDB 10.0; a MySQL one keeps its own BEGIN.
 *
 * Refused, naming the event (SqlError): statements (DDL, statement-format changes and what comes before
 * them: INTVAR, RAND, USER_VAR), XA transactions, compressed TRANSACTION_PAYLOADs, partial JSON updates,
 * and images without the columns the undo must write (binlog_row_image=MINIMAL or NOBLOB).
 */
import { EventFlags } from '../generated/header.js';
import { RowsFlags } from '../generated/rows.js';
import type { BinlogEvent, BinlogEventInput } from '../runtime/events/event-codec.js';
import type { RowChange } from '../runtime/core/values.js';
import { keywordOf, Transactions } from '../runtime/io/transactions.js';
import { rowKind } from '../protocol/row-kinds.js';
import { eventName, invert, notDecoded, SqlContext, SqlError } from './sql.js';
import type { TableKnowledge } from '../runtime/events/format-state.js';

type Rows = BinlogEvent & {
  tableId: number;
  flags: number;
  rows?: RowChange[];
  columnsPresent: boolean[];
  columnsPresentAfter?: boolean[];
};

/** The events of the log itself that an undo binlog leaves out: only the first FORMAT_DESCRIPTION is its own. */
const LEFT_OUT = new Set([
  'ANNOTATE_ROWS_EVENT',
  'ROWS_QUERY_LOG_EVENT',
  'GTID_LOG_EVENT',
  'ANONYMOUS_GTID_LOG_EVENT',
  'GTID_TAGGED_LOG_EVENT',
]);

/** An event as the encoder takes it anew: its place, size and checksum derived again. */
export function anew(e: BinlogEvent): BinlogEventInput {
  const { pos: _pos, file: _file, checksum: _checksum, header, ...body } = e as BinlogEvent & { checksum?: number };
  return {
    ...body,
    header: { timestamp: header.timestamp, serverId: header.serverId, flags: header.flags },
  } as BinlogEventInput;
}

/**
 * The FORMAT_DESCRIPTION of an undo binlog, which is written whole: without the in-use flag that a file the
 * server was still writing carries (the undo of such a file covers the changes written so far).
 */
function closed(fde: BinlogEventInput): BinlogEventInput {
  return { ...fde, header: { ...fde.header, flags: (fde.header.flags ?? 0) & ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F } };
}

/** The BEGIN a MariaDB GTID stands for, as a statement. */
function begin(gtid: BinlogEvent): BinlogEventInput {
  return {
    type: 'QUERY_EVENT',
    header: { timestamp: gtid.header.timestamp, serverId: gtid.header.serverId, flags: 0 },
    threadId: 0,
    execTime: 0,
    errorCode: 0,
    statusVars: [],
    schema: '',
    query: 'BEGIN',
  };
}

const REVERSED_TYPE: Record<string, string> = { WRITE: 'DELETE', DELETE: 'WRITE', UPDATE: 'UPDATE' };

/** One transaction's undo, as it is gathered. */
class Undo {
  readonly maps = new Map<number, BinlogEventInput>();
  readonly rows: BinlogEventInput[] = [];
  frame: BinlogEventInput | undefined;
  commit: BinlogEventInput | undefined;

  events(): BinlogEventInput[] {
    if (this.rows.length === 0) return [];
    const rows = this.rows.map(
      (r, i) =>
        ({
          ...r,
          flags:
            i === this.rows.length - 1
              ? (r as Rows).flags | RowsFlags.STMT_END_F
              : (r as Rows).flags & ~RowsFlags.STMT_END_F,
        }) as BinlogEventInput,
    );
    return [...(this.frame ? [this.frame] : []), ...this.maps.values(), ...rows, ...(this.commit ? [this.commit] : [])];
  }
}

/** The rows event that reverts one: its type reversed, each row inverted, its rows last to first. */
export function reversed(e: Rows, context: SqlContext): BinlogEventInput {
  const kind = rowKind(e.type)!;
  if (e.type === 'PARTIAL_UPDATE_ROWS_EVENT')
    throw new SqlError(
      'a partial JSON update (binlog_row_value_options=PARTIAL_JSON) holds no old values to set back',
      eventName(e),
    );
  if (!e.rows) throw notDecoded(e);
  const table = context.tables.get(e.tableId);
  if (!table) throw new SqlError(`table id ${e.tableId} has no TABLE_MAP before it`, eventName(e));
  const names = table.columns.map((c) => c.name);
  const rows = e.rows.map((change, i) => {
    const c = invert(kind, change, names, `${eventName(e)}, row ${i + 1}`);
    return c.kind === 'write'
      ? { after: c.after }
      : c.kind === 'delete'
        ? { before: c.before }
        : { before: c.before, after: c.after };
  });
  const type = e.type.replace(/(WRITE|DELETE|UPDATE)/, (k) => REVERSED_TYPE[k]!);
  const out = { ...anew(e), type, rows: rows.reverse() } as BinlogEventInput & Partial<Rows>;
  if (kind === 'update') {
    // The before image is the row as the update left it: the columns of either image.
    out.columnsPresent = e.columnsPresent.map((p, i) => p || e.columnsPresentAfter![i]!);
    out.columnsPresentAfter = e.columnsPresentAfter;
  }
  return out;
}

/**
 * The undo of the events' row changes, ready for the encoder (BinlogEncoder, encodeBinlog): the first
 * FORMAT_DESCRIPTION, then each transaction's undo, the last transaction first. The events are read in
 * full before the first undo event is given (an undo begins with the last change).
 */
export function flashback(events: Iterable<BinlogEvent>, knowledge: TableKnowledge = {}): BinlogEventInput[] {
  const context = new SqlContext(knowledge);
  const transactions = new Transactions();
  const undone: Undo[] = [];
  let format: BinlogEventInput | undefined;
  let undo = new Undo();
  for (const e of events) {
    context.observe(e);
    const at = transactions.step(e);
    if (at.begins) (undone.push(undo), (undo = new Undo()));
    if (at.outside) {
      if (e.type === 'FORMAT_DESCRIPTION_EVENT') format ??= closed(anew(e));
      continue;
    }
    take(e, undo, context);
  }
  undone.push(undo);
  if (!format)
    throw new SqlError(
      'the events hold no FORMAT_DESCRIPTION_EVENT, which says how to write the undo',
      'the first event',
    );
  return [format, ...undone.reverse().flatMap((u) => u.events())];
}

/** One event of a transaction into its undo: its frame, its TABLE_MAPs, its rows events reversed, or a refusal. */
function take(e: BinlogEvent, undo: Undo, context: SqlContext): void {
  if (LEFT_OUT.has(e.type)) return;
  if (e.type === 'TABLE_MAP_EVENT') undo.maps.set((e as Rows).tableId, anew(e));
  else if (rowKind(e.type)) undo.rows.unshift(reversed(e as Rows, context));
  else if (e.type === 'GTID_EVENT') undo.frame = begin(e);
  else if (e.type === 'XID_EVENT') undo.commit = anew(e);
  else {
    const k = keywordOf(e)?.keyword;
    if (k === 'BEGIN') undo.frame = anew(e);
    else if (k === 'COMMIT') undo.commit = anew(e);
    else
      throw new SqlError(
        e.type === 'QUERY_EVENT'
          ? `a statement (${String((e as { query: unknown }).query).slice(0, 60)}) cannot be undone by rows`
          : 'this event cannot be undone by rows',
        eventName(e),
      );
  }
}
