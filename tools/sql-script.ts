/**
 * A binlog as an SQL script for the mariadb or mysql client: each transaction between BEGIN; and COMMIT;
 * after a `-- file:pos, time, GTID` comment, its row changes as statements (sql.ts), its DDL after its
 * USE. As flashback: the statements that undo the changes, the transactions last to first.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { Transactions } from '../runtime/io/transactions.js';
import { ScriptSession, SCRIPT_HEADER, terminated } from './sql-session.js';
import { rowKind, SqlContext, toSql, undoSql, type SqlOptions } from './sql.js';

export { SCRIPT_HEADER };

export interface SqlScriptOptions extends SqlOptions {
  /** The undo: every change inverted, statements and transactions in reverse order. */
  flashback?: boolean;
  /** Leave statements (DDL, statement-format changes) out. */
  rowsOnly?: boolean;
}

const FRAME = new Set(['BEGIN', 'COMMIT', 'ROLLBACK']);

/** Where a transaction begins, for its comment: file and position, time (UTC), GTID. */
function comment(e: BinlogEvent): string {
  const time = new Date(e.header.timestamp * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
  const gtid = gtidOf(e);
  return `-- ${e.file ? `${e.file}:` : 'pos '}${e.pos}, ${time}${gtid ? `, GTID ${gtid}` : ''}`;
}

function gtidOf(e: BinlogEvent): string | undefined {
  if (e.type === 'GTID_EVENT') return `${e.domainId}-${e.header.serverId}-${e.seqNo}`;
  if (e.type === 'GTID_LOG_EVENT') {
    const h = Buffer.from(e.sid).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}:${e.gno}`;
  }
  return undefined;
}

/** One transaction's statements and its comment, as it is printed. */
interface Group {
  comment: string;
  statements: string[];
}

export class SqlScript {
  private readonly context: SqlContext;
  private readonly session = new ScriptSession();
  private readonly transactions = new Transactions();
  private readonly undone: Group[] = [];
  private group: Group | undefined;
  private started = false;

  constructor(private readonly options: SqlScriptOptions = {}) {
    this.context = new SqlContext(options);
  }

  /** The text to write after this event (in a flashback, nothing until the end). */
  push(event: BinlogEvent): string {
    const head = this.started ? '' : SCRIPT_HEADER;
    this.started = true;
    const at = this.transactions.step(event);
    let out = '';
    if (at.begins) out += this.close();
    if (!at.outside) this.group ??= { comment: comment(event), statements: [] };
    // A flashback's events are undone last to first: each one's statements go before those of the earlier.
    const statements = this.options.flashback ? undoSql(event, this.context) : this.forward(event);
    if (this.options.flashback) this.group?.statements.unshift(...statements);
    else this.group?.statements.push(...statements);
    if (at.ends) out += this.close();
    return head + out;
  }

  /** The input is over: what is still held (a flashback's whole script). */
  end(): string {
    const head = this.started ? '' : SCRIPT_HEADER;
    this.started = true;
    let out = head + this.close();
    if (this.options.flashback) for (const g of this.undone.reverse()) out += `${g.comment}\nBEGIN;\n${g.statements.map(terminated).join('')}COMMIT;\n`;
    return out;
  }

  private forward(event: BinlogEvent): string[] {
    const statements = toSql(event, this.context);
    if (rowKind(event.type)) return [...this.session.forRows(), ...statements];
    if (event.type !== 'QUERY_EVENT' || statements.every((s) => FRAME.has(s))) return statements;
    return this.options.rowsOnly ? [] : [...this.session.forStatement(event), ...statements];
  }

  /** Ends the open transaction: printed now, or (flashback) kept, its undo statements last to first. */
  private close(): string {
    const g = this.group;
    this.group = undefined;
    if (!g || g.statements.length === 0) return '';
    if (this.options.flashback) {
      this.undone.push(g);
      return '';
    }
    return `${g.comment}\n${g.statements.map(terminated).join('')}`;
  }
}
