/**
 * A binlog as an SQL script for the mariadb or mysql client: each transaction between BEGIN; and COMMIT;
 * after a `-- file:pos, time, GTID` comment, its row changes as statements (sql.ts), its DDL after its
 * USE. As flashback: the statements that undo the changes, the transactions last to first.
 */
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { Transactions } from '../runtime/io/transactions.js';
import { ScriptSession, SCRIPT_HEADER, terminated } from './sql-session.js';
import { gtidOf } from '../protocol/gtid-sets.js';
import { rowKind } from '../protocol/row-kinds.js';
import { SqlContext, toSql, undoSql, unnamed, type SqlOptions } from './sql.js';
import { UnnamedRows } from './sql-binlog.js';
import type { TableInfo } from '../runtime/values/column.js';

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

/** One transaction's statements and its comment, as it is printed. */
interface Group {
  comment: string;
  statements: string[];
}

export class SqlScript {
  private readonly context: SqlContext;
  /** The rows of tables whose columns have no names, in forms that need none. */
  private readonly unnamedRows: UnnamedRows;
  private readonly session = new ScriptSession();
  private readonly transactions = new Transactions();
  private readonly undone: Group[] = [];
  private group: Group | undefined;
  private started = false;

  constructor(private readonly options: SqlScriptOptions = {}) {
    this.context = new SqlContext(options);
    this.unnamedRows = new UnnamedRows(options);
  }

  /** The session's SET statements the script begins with, the first time it is asked ('' after). */
  header(): string {
    const head = this.started ? '' : SCRIPT_HEADER;
    this.started = true;
    return head;
  }

  /** The text to write after this event (in a flashback, nothing until the end). */
  push(event: BinlogEvent): string {
    const head = this.header();
    const at = this.transactions.step(event);
    let out = '';
    if (at.begins) out += this.close();
    if (!at.outside) this.group ??= { comment: comment(event), statements: [] };
    this.unnamedRows.observe(event);
    // A flashback's events are undone last to first: each one's statements go before those of the earlier.
    const statements = this.options.flashback ? this.undo(event) : this.forward(event);
    if (this.options.flashback) this.group?.statements.unshift(...statements);
    else this.group?.statements.push(...statements);
    if (at.ends) out += this.close();
    return head + out;
  }

  /** The input is over: what is still held (a flashback's whole script). */
  end(): string {
    let out = this.header() + this.close();
    // The undo's BINLOG statements come after the last change's: the FORMAT_DESCRIPTION's goes before them all.
    if (this.options.flashback && this.unnamedRows.usedBinlog) out += terminated(this.unnamedRows.formatStatement());
    if (this.options.flashback)
      for (const g of this.undone.reverse())
        out += `${g.comment}\nBEGIN;\n${g.statements.map(terminated).join('')}COMMIT;\n`;
    return out;
  }

  /** The table of a row event whose columns have no names (undefined for other events and tables). */
  private unnamedTable(event: BinlogEvent): TableInfo | undefined {
    if (!rowKind(event.type)) return undefined;
    const table = this.context.tables.get((event as { tableId: number }).tableId);
    return unnamed(table) ? table : undefined;
  }

  private undo(event: BinlogEvent): string[] {
    const table = this.unnamedTable(event);
    return table ? this.unnamedRows.undo(event, table, this.context) : undoSql(event, this.context);
  }

  private forward(event: BinlogEvent): string[] {
    const table = this.unnamedTable(event);
    const statements = table ? this.unnamedRows.forward(event, table, this.context) : toSql(event, this.context);
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
