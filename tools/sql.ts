/**
 * Row events as SQL (binlog2sql's output, read exactly): a write as INSERT, an update as UPDATE … WHERE
 * <the row's before image> LIMIT 1, a delete as DELETE … WHERE … LIMIT 1, and their undo: each change
 * inverted (undoSql). Columns are named by the TABLE_MAP's names (binlog_row_metadata=FULL) or the
 * caller's definitions; here a table without names is refused, never written with guessed names (a script,
 * sql-script.ts, writes its rows in forms that need none: sql-binlog.ts).
 */
import { GtidFlags } from '../generated/mariadb.js';
import type { TableMapEvent } from '../generated/rows.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import type { TableKnowledge } from '../runtime/events/format-state.js';
import type { Row, RowChange } from '../runtime/core/values.js';
import { keywordOf, textOf } from '../runtime/io/transactions.js';
import { resolveTableDefinitions, type TableDefinition } from '../runtime/tables/definitions.js';
import { TableRegistry, type DefinitionSource } from '../runtime/tables/registry.js';
import { placeholderName } from '../runtime/tables/defined-columns.js';
import type { Column, Flavor, TableInfo } from '../runtime/values/column.js';
import { rowKind, type RowKind } from '../protocol/row-kinds.js';
import { SqlError, sqlLiteral } from './sql-literals.js';

export { SqlError };

export interface SqlOptions extends TableKnowledge {
  /** WHERE clauses of the primary key's columns alone, for the tables whose key is known. */
  primaryKeyOnly?: boolean;
}

/**
 * What turning events into SQL needs of those before: the tables of the TABLE_MAPs read so far (with
 * the caller's definitions and hints, as the decoder has them) and the flavor of server.
 */
export class SqlContext {
  readonly tables: TableRegistry;
  readonly primaryKeyOnly: boolean;
  private readonly keys = new Map<number, number[]>();

  constructor(options: SqlOptions = {}) {
    // A schema history is the reader's own: its definitions are those at the point the reader has reached.
    const definitions: DefinitionSource = options.schemaHistory ?? resolveTableDefinitions(options.tableDefinitions);
    this.tables = new TableRegistry(options.columnHints, definitions);
    this.primaryKeyOnly = options.primaryKeyOnly ?? false;
  }

  get flavor(): Flavor {
    return this.tables.flavor;
  }

  /** Takes in what an event says of those after it: the server's flavor, a table's columns. */
  observe(event: BinlogEvent): void {
    if (event.type === 'FORMAT_DESCRIPTION_EVENT') {
      const version = textOf(event.serverVersion) ?? '';
      this.tables.newFormat(/mariadb/i.test(version) ? 'mariadb' : 'mysql');
    } else if (event.type === 'TABLE_MAP_EVENT') {
      this.tables.register(event);
      this.keys.set(event.tableId, primaryKeyOf(event, this.tables.definition(event.tableId)));
    }
  }

  /** The primary key's column indexes of a table id: the TABLE_MAP's, else its definition's (empty when unknown). */
  primaryKey(tableId: number): readonly number[] {
    return this.keys.get(tableId) ?? [];
  }
}

function primaryKeyOf(map: TableMapEvent, definition: TableDefinition | undefined): number[] {
  for (const e of map.optionalMetadata) {
    if (e.code === 'SIMPLE_PRIMARY_KEY') return e.columns.map(Number);
    if (e.code === 'PRIMARY_KEY_WITH_PREFIX') return e.columns.map((k) => Number(k.column));
  }
  return [...(definition?.table.primaryKey ?? [])];
}

/** `event at FILE:POS`, as errors name an event. */
export function eventName(e: BinlogEvent): string {
  return `${e.type} at ${e.file ? `${e.file}:` : ''}${e.pos}`;
}

const ident = (name: string) => `\`${name.replace(/`/g, '``')}\``;
const textName = (t: unknown) => textOf(t) ?? Buffer.from(t as Uint8Array).toString('latin1');

/**
 * The refusal of a row event whose images were not split into rows: rows v0 without the table's definition,
 * or images kept as bytes (rowImagesUndecoded says why: MariaDB's own fractional temporals whose digits
 * could not be inferred, a value that does not read).
 */
export function notDecoded(event: BinlogEvent): SqlError {
  const kept = (event as { rowImagesUndecoded?: string }).rowImagesUndecoded;
  const why = kept ? `its row images were kept as bytes (${kept})` : 'its row images are not decoded';
  return new SqlError(
    `${why}: give the table's definition (--schema-file, --table-def, tableDefinitions) to have its rows`,
    eventName(event),
  );
}

/** Whether a table's columns go without names: its TABLE_MAP gives none and no definition does. */
export function unnamed(table: TableInfo | undefined): table is TableInfo {
  return table !== undefined && table.columns.some((c) => c.name === placeholderName(c.index));
}

/** A row event's table, checked to have names for its columns. */
function namedTable(event: BinlogEvent & { tableId: number }, context: SqlContext): TableInfo {
  const table = context.tables.get(event.tableId);
  if (!table) throw new SqlError(`table id ${event.tableId} has no TABLE_MAP before it`, eventName(event));
  if (unnamed(table)) {
    const qualified = `${textName(table.schema)}.${textName(table.table)}`;
    throw new SqlError(
      `table ${qualified}: its TABLE_MAP names no columns (binlog_row_metadata=FULL does); give its definition ` +
        `(--schema-file, tableDefinitions) to write SQL of its rows`,
      eventName(event),
    );
  }
  return table;
}

/** The SQL statements (without `;`) of a row event, `undo` the statements that revert it, in the order to run them. */
function rowStatements(event: BinlogEvent, context: SqlContext, undo: boolean): string[] {
  const kind = rowKind(event.type);
  const rows = (event as { rows?: RowChange[] }).rows;
  if (!kind) return [];
  if (!rows) throw notDecoded(event);
  const table = namedTable(event as BinlogEvent & { tableId: number }, context);
  const writer = new StatementWriter(table, context, eventName(event));
  const names = table.columns.map((c) => c.name);
  const out = rows.map((change, i) =>
    writer.change(undo ? invert(kind, change, names, `${eventName(event)}, row ${i + 1}`) : { kind, ...change }),
  );
  return undo ? out.reverse() : out;
}

/** The change of the statements: what a row change is, or what undoes it. */
interface Change {
  kind: RowKind;
  before?: Row;
  after?: Row;
}

/**
 * The change that undoes one: a write's row deleted, a deleted row written back, an update's columns set
 * back to their before values in the row as the update left it. The undo needs the before image to hold
 * every column it writes back: all of a deleted row's (`columns`, the table's), those an update set.
 * MINIMAL and NOBLOB images may not: refused, as the old values are not in the binlog.
 */
export function invert(kind: RowKind, change: RowChange, columns: readonly string[], where: string): Change {
  if (kind === 'write') return { kind: 'delete', before: change.after };
  const before = change.before ?? {};
  const after = change.after ?? {};
  const missing = (kind === 'delete' ? columns : Object.keys(after)).filter((c) => !(c in before));
  if (missing.length)
    throw new SqlError(
      `the before image lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, ` +
        `whose old value the undo must write: the binlog does not hold it (binlog_row_image=FULL logs it)`,
      where,
    );
  if (kind === 'delete') return { kind: 'write', after: before };
  return {
    kind: 'update',
    before: { ...before, ...after },
    after: Object.fromEntries(Object.keys(after).map((c) => [c, before[c]!])),
  };
}

class StatementWriter {
  private readonly name: string;
  private readonly byName: Map<string, Column>;
  private readonly key: string[];

  constructor(
    private readonly table: TableInfo,
    private readonly context: SqlContext,
    private readonly where: string,
  ) {
    this.name = `${ident(textName(table.schema))}.${ident(textName(table.table))}`;
    this.byName = new Map(table.columns.map((c) => [c.name, c]));
    const pk = context.primaryKeyOnly ? context.primaryKey(table.tableId) : [];
    this.key = pk.map((i) => table.columns[i]!.name);
  }

  change(c: Change): string {
    if (c.kind === 'write') {
      const cols = Object.keys(c.after ?? {});
      return (
        `INSERT INTO ${this.name} (${cols.map(ident).join(', ')}) VALUES ` +
        `(${cols.map((n) => this.literal(n, c.after!)).join(', ')})`
      );
    }
    if (c.kind === 'delete') return `DELETE FROM ${this.name} WHERE ${this.condition(c.before ?? {})} LIMIT 1`;
    const sets = Object.keys(c.after ?? {}).map((n) => `${ident(n)}=${this.literal(n, c.after!)}`);
    return `UPDATE ${this.name} SET ${sets.join(', ')} WHERE ${this.condition(c.before ?? {})} LIMIT 1`;
  }

  /** The row an image names: its key's columns when asked for and all present, else every column it holds. */
  private condition(image: Row): string {
    const cols = this.key.length && this.key.every((k) => k in image) ? this.key : Object.keys(image);
    if (cols.length === 0) throw new SqlError('an image holds no columns to find its row by', this.where);
    return cols
      .map((n) => (image[n] === null ? `${ident(n)} IS NULL` : `${ident(n)}=${this.literal(n, image)}`))
      .join(' AND ');
  }

  private literal(name: string, image: Row): string {
    const column = this.byName.get(name);
    if (!column) throw new SqlError(`column ${name} is not in the table's TABLE_MAP`, this.where);
    return sqlLiteral(
      image[name]!,
      column,
      this.context.flavor,
      `${this.where}, ${textName(this.table.table)}.${name}`,
    );
  }
}

const DATABASE_DDL = /^\s*(CREATE|DROP)\s+(DATABASE|SCHEMA)\b/i;

/**
 * The SQL statements of one event, without `;`, in order: a row event's changes; BEGIN and COMMIT of a
 * transaction's frame (a MariaDB GTID that is not standalone stands for BEGIN, an XID for COMMIT); a
 * statement (DDL) after the USE of its database. Every event is also taken into the context.
 */
export function toSql(event: BinlogEvent, context: SqlContext): string[] {
  context.observe(event);
  if (rowKind(event.type)) return rowStatements(event, context, false);
  if (event.type === 'XID_EVENT') return ['COMMIT'];
  if (event.type === 'GTID_EVENT' && ((event as { flags?: number }).flags! & GtidFlags.FL_STANDALONE) === 0)
    return ['BEGIN'];
  if (event.type !== 'QUERY_EVENT') return [];
  const k = keywordOf(event);
  if (k && (k.keyword === 'BEGIN' || k.keyword === 'COMMIT' || k.keyword === 'ROLLBACK')) return [k.keyword];
  const schema = textName((event as { schema: unknown }).schema);
  const query = textName((event as { query: unknown }).query);
  // A CREATE or DROP DATABASE logs the database it makes or removes as its schema: no USE can enter it.
  const use = schema && !DATABASE_DDL.test(query);
  return [...(use ? [`USE ${ident(schema)}`] : []), query];
}

/**
 * The statements that undo a row event's changes, in the order to run them (its rows last to first).
 * Statements (DDL, statement-format changes) cannot be undone by rows, and are refused.
 */
export function undoSql(event: BinlogEvent, context: SqlContext): string[] {
  context.observe(event);
  if (rowKind(event.type)) return rowStatements(event, context, true);
  if (event.type === 'QUERY_EVENT' && !keywordOf(event))
    throw new SqlError(
      `a statement (${textName((event as { query: unknown }).query).slice(0, 60)}) cannot be undone by rows`,
      eventName(event),
    );
  return [];
}
