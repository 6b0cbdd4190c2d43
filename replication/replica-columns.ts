/**
 * Column hints read from the server itself: for a TABLE_MAP without names (binlog_row_metadata NO_LOG or
 * MINIMAL), information_schema.COLUMNS over a second connection gives each column's name, whether an
 * integer is UNSIGNED (COLUMN_TYPE), its charset, its ENUM or SET members, and a TIME, DATETIME or
 * TIMESTAMP's fraction digits (which MariaDB's own fractional forms leave unlogged).
 *
 * What it cannot know: COLUMNS describes the table as it is now, not as it was when the event was
 * written. Reading from a position before an ALTER TABLE that is not yet passed, a table's columns may
 * have other names or types than its rows; only a column count that differs from the TABLE_MAP's is
 * noticed (no hints are given then). A DDL statement passing in the stream makes every table read again
 * at its next TABLE_MAP, which is right once the dump has caught up with the server.
 */
import type { Text } from '../runtime/core/reader.js';
import type { ColumnHints, HintFn } from '../runtime/values/column.js';
import type { TableDefinitionInput } from '../runtime/tables/definitions.js';
import { Wire, type ConnectOptions } from './wire.js';

/** A statement that may change a table's columns (QUERY events of DDL). */
const DDL = /^\s*(?:\/\*.*?\*\/\s*)*(?:ALTER|CREATE|DROP|RENAME|TRUNCATE)\b/is;

export class InformationSchemaColumns {
  private wire: Wire | undefined;
  /** 'schema.table' → each column's hints, in order; [] for a table COLUMNS does not list. */
  private readonly tables = new Map<string, ColumnHints[]>();
  /** Tables to read again at their next TABLE_MAP (a DDL passed since they were read). */
  private readonly stale = new Set<string>();

  constructor(private readonly options: ConnectOptions) {}

  /** The hints, for the tables read so far. */
  readonly hint: HintFn = (table, column) => this.tables.get(key(table.schema, table.table))?.[column.index];

  /**
   * Reads the table's columns unless they are known and no DDL has passed since; true when it did (a
   * TABLE_MAP decoded before is to be read again). `count` is the TABLE_MAP's: other than COLUMNS's, no hints.
   */
  async load(schema: Text, table: Text, count: number): Promise<boolean> {
    const k = key(schema, table);
    if (this.tables.has(k) && !this.stale.has(k)) return false;
    const columns = await this.read(text(schema), text(table));
    this.tables.set(k, columns.length === count ? columns : []);
    this.stale.delete(k);
    return true;
  }

  /**
   * The table as COLUMNS describes it now, as a definition (each column's COLUMN_TYPE, character set,
   * collation and nullability) for the schema history to check against the TABLE_MAP; undefined when
   * COLUMNS does not list it.
   */
  async definition(schema: Text, table: Text): Promise<TableDefinitionInput | undefined> {
    const sql = (w: Wire) => `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, CHARACTER_SET_NAME AS charset,
      COLLATION_NAME AS collation, IS_NULLABLE AS nullable FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ${w.escape(text(schema))} AND TABLE_NAME = ${w.escape(text(table))} ORDER BY \
ORDINAL_POSITION`;
    const rows = await this.query(sql);
    if (rows.length === 0) return undefined;
    const columns = rows.map((r) => {
      const charset = typeof r.charset === 'string' ? ` CHARACTER SET ${r.charset} COLLATE ${String(r.collation)}` : '';
      return { name: String(r.name), type: `${String(r.type)}${charset}${r.nullable === 'NO' ? ' NOT NULL' : ''}` };
    });
    return { columns };
  }

  /** A QUERY event's statement: DDL makes every table known be read again when next mapped. */
  passed(query: Text): void {
    if (DDL.test(text(query))) for (const k of this.tables.keys()) this.stale.add(k);
  }

  close(): void {
    this.wire?.close();
    this.wire = undefined;
  }

  private async read(schema: string, table: string): Promise<ColumnHints[]> {
    const sql = (
      w: Wire,
    ) => `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, CHARACTER_SET_NAME AS charset FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ${w.escape(schema)} AND TABLE_NAME = ${w.escape(table)} ORDER BY ORDINAL_POSITION`;
    return (await this.query(sql)).map(hintsOf);
  }

  private async query(sql: (w: Wire) => string): Promise<Record<string, unknown>[]> {
    try {
      this.wire ??= await Wire.open(this.options);
      return await this.wire.query(sql(this.wire));
    } catch {
      // The connection may have gone with the dump's (a restart), so the query is tried once more on a new one.
      this.close();
      this.wire = await Wire.open(this.options);
      return await this.wire.query(sql(this.wire));
    }
  }
}

function hintsOf(row: Record<string, unknown>): ColumnHints {
  const type = String(row.type);
  const hints: ColumnHints = { name: String(row.name) };
  if (/\bunsigned\b/i.test(type)) hints.unsigned = true;
  else if (/^(?:tiny|small|medium|big)?int\b|^(?:decimal|float|double)\b/i.test(type)) hints.unsigned = false;
  // MySQL 5.7 and MariaDB before 10.6 name utf8mb3 utf8.
  if (typeof row.charset === 'string') hints.charset = row.charset === 'utf8' ? 'utf8mb3' : row.charset;
  const members = /^(?:enum|set)\((.*)\)$/is.exec(type)?.[1];
  if (members !== undefined) hints.members = quoted(members);
  // MariaDB marks its own forms `datetime(4) /* mariadb-5.3 */`.
  const temporal = /^(?:time|datetime|timestamp)(?:\((\d)\))?(?:\s*\/\*[^*]*\*\/)?$/i.exec(type);
  if (temporal) hints.fractionDigits = Number(temporal[1] ?? 0);
  return hints;
}

/** The members of an ENUM or SET's COLUMN_TYPE: 'a','b''c' (quotes doubled inside). */
function quoted(list: string): string[] {
  return [...list.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));
}

const text = (v: Text) => (typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));
const key = (schema: Text, table: Text) => `${text(schema)}.${text(table)}`;
