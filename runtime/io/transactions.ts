/**
 * Where each event stands to the transactions of a binlog, as both servers write them: what begins one,
 * what ends it. The filters (filter.ts) select whole transactions with it.
 *
 * A transaction begins with a GTID (MariaDB's GTID_EVENT; MySQL's GTID, anonymous GTID or tagged GTID),
 * or, without one (older servers), with a BEGIN or XA START statement, or with the first event of a
 * statement that no transaction holds. It ends:
 * - once it has begun (BEGIN, XA START, or a MariaDB GTID without FL_STANDALONE, which stands for the
 *   BEGIN), at its XID, its COMMIT or ROLLBACK statement, or its XA_PREPARE (XA END comes before it);
 * - otherwise (a MariaDB GTID with FL_STANDALONE, a MySQL GTID before anything but BEGIN, no GTID at all),
 *   after its one statement: a QUERY other than those keywords (DDL, XA COMMIT, XA ROLLBACK, a statement
 *   on tables that take no part in transactions), a LOAD, a TRANSACTION_PAYLOAD (which holds a whole
 *   transaction), an INCIDENT, or the rows event that ends a statement (STMT_END_F);
 * - cut short, at the next transaction's beginning or at an event of the log itself (`transaction:
 *   outside` in schemas/events.yaml: FORMAT_DESCRIPTION, ROTATE, GTID_LIST, …), which stands alone.
 */
import { EventTransactions } from '../../generated/events.js';
import { GtidFlags } from '../../generated/mariadb.js';
import { RowsFlags } from '../../generated/rows.js';
import type { BinlogEvent } from '../events/event-codec.js';
import { ENCRYPTED } from '../events/event-codec.js';
import { bytesToText } from '../core/reader.js';

/** Whether the event's body is a statement whose text says its place (the catalogue's `transaction: query`). */
const isQuery = (e: BinlogEvent) => EventTransactions[e.type] === 'query';

/**
 * The statements servers write around the others of a transaction, as MySQL's and MariaDB's readers tell
 * them (Query_log_event::is_trans_keyword): BEGIN, COMMIT and ROLLBACK whole, the others as the start of
 * the statement, in any case.
 */
export type Keyword =
  'BEGIN' | 'COMMIT' | 'ROLLBACK' | 'XA START' | 'XA END' | 'XA COMMIT' | 'XA ROLLBACK' | 'SAVEPOINT' | 'ROLLBACK TO';

const WHOLE = new Set(['BEGIN', 'COMMIT', 'ROLLBACK']);
const LEADING = /^(XA\s+(?:START|END|COMMIT|ROLLBACK)|SAVEPOINT|ROLLBACK\s+TO)\s+(.*)$/is;

const KEYWORD_ROLES: Record<Keyword, Role> = {
  BEGIN: 'begin',
  'XA START': 'begin',
  COMMIT: 'commit',
  ROLLBACK: 'commit',
  // In a transaction of its own, after the XA_PREPARE that ended the XA transaction's.
  'XA COMMIT': 'statement',
  'XA ROLLBACK': 'statement',
  'XA END': 'part',
  SAVEPOINT: 'part',
  'ROLLBACK TO': 'part',
};

/** A QUERY's statement when it is one of those keywords, and what follows it (an XA transaction's id). */
export function keywordOf(e: BinlogEvent): { keyword: Keyword; rest: string } | undefined {
  if (!isQuery(e) || !('query' in e)) return undefined;
  const q = textOf(e.query) ?? '';
  if (WHOLE.has(q)) return { keyword: q as Keyword, rest: '' };
  const m = LEADING.exec(q);
  return m ? { keyword: m[1]!.toUpperCase().replace(/\s+/g, ' ') as Keyword, rest: m[2]!.trim() } : undefined;
}

/** A name or statement as a string (undefined when it is not text, or its bytes are not UTF-8). */
export function textOf(t: unknown): string | undefined {
  const v = t instanceof Uint8Array ? bytesToText(t) : t;
  return typeof v === 'string' ? v : undefined;
}

/** Whether the event is a statement (not a keyword): what ends a transaction that did not begin. */
export function isStatement(e: BinlogEvent): boolean {
  if (isQuery(e)) return 'query' in e && keywordOf(e) === undefined;
  return EventTransactions[e.type] === 'statement';
}

export type Role = 'outside' | 'gtid' | 'begin' | 'commit' | 'statement' | 'part';

export function roleOf(e: BinlogEvent): Role {
  const role = EventTransactions[e.type];
  if (role === 'outside' || e.type === ENCRYPTED) return 'outside';
  if (role === 'starts' || role === 'begins') return 'gtid';
  if (role === 'ends') return 'commit';
  if (role === 'statement') return 'statement';
  const k = keywordOf(e);
  if (k) return KEYWORD_ROLES[k.keyword];
  if (isStatement(e)) return 'statement';
  if (role === 'rows' && 'flags' in e && ((e.flags as number) & RowsFlags.STMT_END_F) !== 0) return 'statement';
  return 'part';
}

/** Where one event stands: whether it begins a transaction (ending the one open) and whether it ends its own. */
export interface Boundary {
  begins: boolean;
  ends: boolean;
  /** An event of the log itself, in no transaction. */
  outside: boolean;
}

/** Follows the transactions of a stream of events (the events of a payload are its own stream). */
export class Transactions {
  private open = false;
  /** Begun by BEGIN, XA START or a MariaDB GTID that is not standalone: only a commit ends it. */
  private begun = false;

  step(e: BinlogEvent): Boundary {
    const role = roleOf(e);
    if (role === 'outside') {
      this.open = false;
      return { begins: true, ends: true, outside: true };
    }
    if (role === 'gtid') {
      this.open = true;
      // A MariaDB GTID stands for BEGIN unless it is standalone; a MySQL GTID is followed by its BEGIN.
      this.begun = e.type === 'GTID_EVENT' && 'flags' in e && ((e.flags as number) & GtidFlags.FL_STANDALONE) === 0;
      return { begins: true, ends: false, outside: false };
    }
    const begins = !this.open;
    if (begins) ((this.open = true), (this.begun = false));
    if (role === 'begin') this.begun = true;
    const ends = role === 'commit' || (role === 'statement' && !this.begun);
    if (ends) this.open = false;
    return { begins, ends, outside: false };
  }
}
