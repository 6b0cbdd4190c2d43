/**
 * SQL of the rows of a table whose TABLE_MAP names no columns (binlog_row_metadata=NO_LOG or MINIMAL, MariaDB's
 * default) when no definition names them: statements that need no names. A write is an INSERT of its
 * values in column order; what needs a row found (an UPDATE, a DELETE) or a value no literal can say
 * (an integer whose signedness the binlog leaves out) is MariaDB's BINLOG statement, the base64 of the
 * row event and its TABLE_MAP as mariadb-binlog prints them, which the server applies as a replica does.
 * A BINLOG statement of the FORMAT_DESCRIPTION comes before the first one, as the server requires. Each
 * event's statements say in a comment which form they are.
 */
import { RowsFlags } from '../generated/rows.js';
import { EventEncoder, type BinlogEvent, type BinlogEventInput } from '../runtime/events/event-codec.js';
import type { TableKnowledge } from '../runtime/events/format-state.js';
import type { Row, RowChange } from '../runtime/core/values.js';
import type { TableInfo } from '../runtime/values/column.js';
import { anew, reversed } from './flashback.js';
import { SqlError, sqlLiteral } from './sql-literals.js';
import { rowKind } from '../protocol/row-kinds.js';
import { eventName, type SqlContext } from './sql.js';

const ident = (name: string) => `\`${name.replace(/`/g, '``')}\``;
const textName = (t: unknown) => (typeof t === 'string' ? t : Buffer.from(t as Uint8Array).toString('latin1'));

/** An event's bytes as the text of a BINLOG statement: base64 in lines of 76 characters, as the server writes it. */
function base64Lines(bytes: Uint8Array): string {
  return (
    Buffer.from(bytes)
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join('\n');
}

/** The start of the comment before the statements of a table without names, which says what form they take. */
const unnamedComment = (name: string) => `-- ${name} names no columns (binlog_row_metadata=FULL does)`;

const binlogStatement = (events: string[]) => `BINLOG '\n${events.join('\n')}\n'`;

/** The statements of unnamed tables' rows, the events that say how to write them taken in as they pass. */
export class UnnamedRows {
  private readonly encoder: EventEncoder;
  /** The base64 of the last FORMAT_DESCRIPTION, and whether a BINLOG statement of it was given since. */
  private format: string | undefined;
  private formatGiven = false;
  /** Each table id's last TABLE_MAP, encoded again when a BINLOG statement of its rows needs its bytes. */
  private readonly maps = new Map<number, BinlogEvent>();
  /** Whether any BINLOG statement of rows was written. */
  usedBinlog = false;

  constructor(knowledge: TableKnowledge) {
    this.encoder = new EventEncoder(knowledge);
  }

  /** Takes in a FORMAT_DESCRIPTION (encoded again, as every BINLOG statement needs it first) or a TABLE_MAP. */
  observe(e: BinlogEvent): void {
    if (e.type === 'FORMAT_DESCRIPTION_EVENT') {
      this.format = base64Lines(this.encoder.encode(anew(e), e.pos));
      this.formatGiven = false;
      this.maps.clear();
    } else if (e.type === 'TABLE_MAP_EVENT') {
      this.maps.set((e as { tableId: number }).tableId, e);
    }
  }

  /** The BINLOG statement of the last FORMAT_DESCRIPTION, which the first BINLOG statement of rows needs before it. */
  formatStatement(): string {
    if (this.format === undefined) {
      const problem = 'no FORMAT_DESCRIPTION_EVENT came before, which a BINLOG statement needs first';
      throw new SqlError(problem, 'the first event');
    }
    return binlogStatement([this.format]);
  }

  /** The statements that make a row event's changes. */
  forward(e: BinlogEvent, table: TableInfo, context: SqlContext): string[] {
    const rows = (e as { rows?: RowChange[] }).rows;
    if (rowKind(e.type) === 'write' && rows) {
      const inserts = this.inserts(
        rows.map((r) => r.after ?? {}),
        table,
        context,
        eventName(e),
      );
      if (inserts) return inserts;
    }
    return this.binlog(anew(e), table, e, true);
  }

  /**
   * The statements that undo a row event's changes: those of the reversed event (flashback.ts). The undo
   * script is written last change first: it gives the FORMAT_DESCRIPTION's statement first (formatStatement).
   */
  undo(e: BinlogEvent, table: TableInfo, context: SqlContext): string[] {
    const undo = reversed(e as Parameters<typeof reversed>[0], context) as BinlogEventInput & { rows: RowChange[] };
    if (rowKind(undo.type) === 'write') {
      const inserts = this.inserts(
        undo.rows.map((r) => r.after ?? {}),
        table,
        context,
        eventName(e),
      );
      if (inserts) return inserts;
    }
    return this.binlog(undo, table, e, false);
  }

  /**
   * INSERTs of rows in column order, the first after a comment that says so; undefined when some row lacks a
   * column (a MINIMAL image) or holds a value no literal says exactly (SqlError), which the BINLOG form then writes.
   */
  private inserts(images: Row[], table: TableInfo, context: SqlContext, where: string): string[] | undefined {
    const name = `${ident(textName(table.schema))}.${ident(textName(table.table))}`;
    const out: string[] = [];
    for (const image of images) {
      if (!table.columns.every((c) => c.name in image)) return undefined;
      try {
        const values = table.columns.map((c) => sqlLiteral(image[c.name]!, c, context.flavor, `${where}, ${c.name}`));
        out.push(`INSERT INTO ${name} VALUES (${values.join(', ')})`);
      } catch (e) {
        if (e instanceof SqlError) return undefined;
        throw e;
      }
    }
    out[0] = `${unnamedComment(name)}: positional INSERT, values in column order\n${out[0]}`;
    return out;
  }

  /**
   * A row event, made to end its statement, and its TABLE_MAP as a BINLOG statement after a comment that
   * says so; `withFormat`: the FORMAT_DESCRIPTION's statement before it, unless given since the last one.
   */
  private binlog(rows: BinlogEventInput, table: TableInfo, source: BinlogEvent, withFormat: boolean): string[] {
    const map = this.maps.get(table.tableId);
    if (map === undefined) {
      throw new SqlError(`table id ${table.tableId} has no TABLE_MAP before it`, eventName(source));
    }
    const mapBytes = this.encoder.encode(anew(map), map.pos);
    const flags = (rows as { flags: number }).flags | RowsFlags.STMT_END_F;
    const bytes = this.encoder.encode({ ...rows, flags } as BinlogEventInput, source.pos);
    const name = `${ident(textName(table.schema))}.${ident(textName(table.table))}`;
    const comment = `${unnamedComment(name)}: BINLOG statement of the ${rows.type} and its TABLE_MAP`;
    const statements = [`${comment}\n${binlogStatement([base64Lines(mapBytes), base64Lines(bytes)])}`];
    this.usedBinlog = true;
    if (withFormat && !this.formatGiven) statements.unshift(this.formatStatement());
    this.formatGiven ||= withFormat;
    return statements;
  }
}
