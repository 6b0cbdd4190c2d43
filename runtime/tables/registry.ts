/**
 * The table-map context: what the TABLE_MAP events read so far say about each table id's columns, with
 * the optional metadata (signedness, charsets, names, ENUM and SET members) given to the columns each
 * entry covers (covers.ts). Row events are decoded and encoded against it.
 */
import { FRACTION_STEP, FRACTIONS_UNLOGGED_SINCE_MARIADB } from '../../generated/cells.js';
import { CellLayouts } from '../../generated/columns.js';
import { EventTypes } from '../../generated/events.js';
import { ColumnType, type TableMapEvent } from '../../generated/rows.js';
import { charsetOf, decodeText } from '../values/charsets.js';
import { sameBytes, type Text } from '../core/reader.js';
import { versionAtLeast } from '../core/schema-helpers.js';
import type { TableDefinition } from './definitions.js';
import type { SchemaHistory } from './history.js';
import { TableDefinitionError } from './table-types.js';
import { coveredColumns, type CoveringEntry } from './covers.js';
import { applyDefinition, placeholderName, unsized, withFraction } from './defined-columns.js';
import type { Column, Flavor, HintFn, TableInfo } from '../values/column.js';

const utf8 = new TextEncoder();

/**
 * The TABLE_MAP events (decoded objects) whose table's definition did not fit, when the registry defers
 * that refusal (deferMismatches): the reason, to be raised only if the event is kept.
 */
const mismatchOf = new WeakMap<object, DeferredMismatch>();

/**
 * A refusal kept until the filter has kept its event: it gives the caller's error, or, for a schema
 * history's definition, takes the definition out of the history (which says so) and gives none.
 */
type DeferredMismatch = () => TableDefinitionError | undefined;

/**
 * The refusal of the caller's definition that a TABLE_MAP event met while its registry deferred it, as a
 * new error placed at the event; undefined when the definition fit or no definition was given.
 */
export function definitionMismatch(event: { pos?: number }): TableDefinitionError | undefined {
  const m = mismatchOf.get(event)?.();
  if (!m) return undefined;
  const error = new TableDefinitionError(m.reason, m.table, m.column);
  return error.atEvent(event.pos ?? 0, EventTypes.TABLE_MAP_EVENT, 'TABLE_MAP_EVENT');
}

/**
 * Where the registry finds a table's definition: a fixed map of the caller's, or a schema history
 * (history.ts), whose definitions change as DDL passes and which takes back one a TABLE_MAP contradicts.
 */
export type DefinitionSource = ReadonlyMap<string, TableDefinition> | SchemaHistory;

export class TableRegistry {
  /**
   * Whether a definition that does not fit its TABLE_MAP is refused only when the event is kept (a reader
   * under filters: definitionMismatch) rather than at once. The table is then read without the definition.
   */
  deferMismatches = false;
  private readonly tables = new Map<number, TableInfo>();
  /** The refusal of each table id's definition, while the registry defers them. */
  private readonly mismatches = new Map<number, DeferredMismatch>();
  /**
   * A copy of each table id's last TABLE_MAP body: servers log the same one before every statement, and
   * that one again keeps its table, and so the row layouts and compiled readers cached on it.
   */
  private readonly bodies = new Map<number, Uint8Array>();
  private flavorOf: Flavor = 'mysql';
  private fractionsUnlogged = false;

  constructor(
    private readonly hints?: HintFn,
    private readonly definitions: DefinitionSource = new Map(),
  ) {}

  /** The history's generation the kept TABLE_MAP bodies were read under. */
  private generation = 0;

  get(tableId: number): TableInfo | undefined {
    return this.tables.get(tableId);
  }

  /** The caller's definition of the table a TABLE_MAP gave this id (see runtime/tables/definitions.ts). */
  definition(tableId: number): TableDefinition | undefined {
    return this.definitions.size ? this.definitions.get(this.name(tableId)) : undefined;
  }

  /** `schema.table` of a table id, for the dump (empty when no TABLE_MAP named it). */
  name(tableId: number): string {
    const t = this.tables.get(tableId);
    return t ? qualifiedName(t.schema, t.table) : '';
  }

  /** The flavor of server that wrote the tables: how their TABLE_MAPs are read. */
  get flavor(): Flavor {
    return this.flavorOf;
  }

  /**
   * An FDE: the flavor of the server that wrote what follows. The same TABLE_MAP bytes may read otherwise
   * under it (another flavor, other post-header lengths), so the bodies kept so far are forgotten.
   */
  newFormat(flavor: Flavor, serverVersion = ''): void {
    this.bodies.clear();
    this.flavorOf = flavor;
    this.fractionsUnlogged =
      flavor === 'mariadb' &&
      versionAtLeast(serverVersion, FRACTIONS_UNLOGGED_SINCE_MARIADB, FRACTIONS_UNLOGGED_SINCE_MARIADB);
  }

  /**
   * Whether the server may have logged MariaDB's own TIME(n), DATETIME(n), TIMESTAMP(n) under TIME, DATETIME
   * and TIMESTAMP, with no metadata to say n (MariaDB 5.3 and later; the FDE's version says).
   */
  get unloggedFractions(): boolean {
    return this.fractionsUnlogged;
  }

  /** The table of a TABLE_MAP, `body` its post-header and body as stored. */
  /** The next TABLE_MAP of this table id is read afresh, even with the same bytes: the hints changed. */
  forget(tableId: number): void {
    this.bodies.delete(tableId);
  }

  register(event: TableMapEvent, body?: Uint8Array): TableInfo {
    const info = this.registerBody(event.tableId, body, () => event);
    const mismatch = this.mismatches.get(event.tableId);
    if (mismatch) mismatchOf.set(event, mismatch);
    return info;
  }

  /**
   * The table of a TABLE_MAP of this table id whose body is `body`: the same bytes as its last keep its
   * table, and only other bytes are read (`read`), so that a repeated TABLE_MAP costs one comparison.
   */
  registerBody(tableId: number, body: Uint8Array | undefined, read: () => TableMapEvent): TableInfo {
    this.followHistory();
    const known = this.tables.get(tableId);
    const last = this.bodies.get(tableId);
    if (known && body && last && sameBytes(last, body)) return known;
    const event = read();
    const info = this.describe(event);
    this.tables.set(event.tableId, info);
    if (body) this.bodies.set(event.tableId, body.slice());
    else this.bodies.delete(event.tableId);
    return info;
  }

  /** A DDL changed the history since the bodies kept were read: the same bytes may now read otherwise. */
  private followHistory(): void {
    if (!('generation' in this.definitions) || this.definitions.generation === this.generation) return;
    this.generation = this.definitions.generation;
    this.bodies.clear();
  }

  /**
   * The table of a TABLE_MAP with its definition, checked. While the registry defers refusals (a reader
   * under filters), a definition the TABLE_MAP contradicts is refused only once the event is kept;
   * otherwise a schema history's leaves the history (which says so), and a fixed one's is the caller's
   * error. The table is then read without a definition.
   */
  private describe(event: TableMapEvent): TableInfo {
    this.mismatches.delete(event.tableId);
    const source = this.definitions;
    const qualified = qualifiedName(event.schemaName, event.tableName);
    const definition = source.size ? source.get(qualified) : undefined;
    try {
      return describeTable(event, this.flavorOf, this.hints, definition);
    } catch (e) {
      if (!definition || !(e instanceof TableDefinitionError)) throw e;
      // Under filters the refusal waits for the filter's word on the event, whatever gave the definition.
      if (this.deferMismatches) this.mismatches.set(event.tableId, deferred(source, qualified, e));
      else if ('contradicted' in source) {
        source.contradicted(qualified, e);
        this.generation = source.generation;
      } else throw e;
      return describeTable(event, this.flavorOf, this.hints, undefined);
    }
  }
}

/** The refusal of a definition as the filter settles it, once, when it keeps the TABLE_MAP. */
function deferred(source: DefinitionSource, qualified: string, e: TableDefinitionError): DeferredMismatch {
  let settled = false;
  return () => {
    if (!('contradicted' in source)) return e;
    if (!settled) source.contradicted(qualified, e);
    settled = true;
    return undefined;
  };
}

/** A hint's fraction digits, checked: 0 to 6. */
function hintedDigits(n: number, event: TableMapEvent, c: Column): number {
  if (Number.isInteger(n) && n >= 0 && n < FRACTION_STEP.length) return n;
  const problem = `a column hint gives ${n} fraction digits, not 0 to ${FRACTION_STEP.length - 1}`;
  throw new TableDefinitionError(problem, qualifiedName(event.schemaName, event.tableName), c.name);
}

/** `schema.table`, names that are not text read as latin1. */
function qualifiedName(schema: Text, table: Text): string {
  const text = (v: Text) => (typeof v === 'string' ? v : Buffer.from(v).toString('latin1'));
  return `${text(schema)}.${text(table)}`;
}

type Entry<C extends string> = Extract<TableMapEvent['optionalMetadata'][number], { code: C }>;

function entry<C extends string>(event: TableMapEvent, code: C): Entry<C> | undefined {
  return event.optionalMetadata.find((e) => e.code === code) as Entry<C> | undefined;
}

/**
 * The collation of each column a COLUMN_CHARSET style entry (one per covered column) or else a
 * DEFAULT_CHARSET style one (a default, and exceptions by index among its covered columns) covers.
 */
function giveCollations(
  event: TableMapEvent,
  columns: Column[],
  flavor: Flavor,
  perColumn: 'COLUMN_CHARSET' | 'ENUM_AND_SET_COLUMN_CHARSET',
  byDefault: 'DEFAULT_CHARSET' | 'ENUM_AND_SET_DEFAULT_CHARSET',
): void {
  const each = entry(event, perColumn);
  if (each) {
    coveredColumns(columns, perColumn, flavor).forEach((c, i) => (c.collation = each.collations[i]));
    return;
  }
  const some = entry(event, byDefault);
  if (!some) return;
  const covered = coveredColumns(columns, byDefault, flavor);
  for (const c of covered) c.collation = some.defaultCollation;
  for (const x of some.exceptions) {
    const c = covered[x.column];
    if (c) c.collation = x.collation;
  }
}

/** Each value of an entry given to the column it is for, in turn. */
function give<T>(
  values: readonly T[] | undefined,
  columns: readonly Column[],
  set: (c: Column, v: T | undefined) => void,
): void {
  if (values) columns.forEach((c, i) => set(c, values[i]));
}

/**
 * The columns of a TABLE_MAP: its types and metadata, what its optional metadata says of them, then what the
 * caller's definition of the table says that it does not (defined-columns.ts), then the caller's hints.
 */
function describeTable(
  event: TableMapEvent,
  flavor: Flavor,
  hints: HintFn | undefined,
  definition: TableDefinition | undefined,
): TableInfo {
  const columns: Column[] = event.columnTypes.map((t, index) => {
    const type = typeof t === 'number' ? t : ColumnType[t];
    const meta = (event.columnMetadata?.[index] ?? {}) as Record<string, unknown>;
    const realType =
      typeof meta.realType === 'string'
        ? ColumnType[meta.realType as keyof typeof ColumnType]
        : ((meta.realType as number | undefined) ?? type);
    return {
      index,
      name: placeholderName(index),
      type,
      realType,
      layout: CellLayouts[realType as keyof typeof CellLayouts] ?? { codec: 'unsupported' },
      nullable: event.nullable?.[index] ?? true,
      meta,
    };
  });
  const covered = (code: CoveringEntry) => coveredColumns(columns, code, flavor);
  give(entry(event, 'COLUMN_NAME')?.names, covered('COLUMN_NAME'), (c, name) => {
    if (typeof name === 'string') c.name = name;
  });
  give(entry(event, 'SIGNEDNESS')?.unsigned, covered('SIGNEDNESS'), (c, unsigned) => (c.unsigned = unsigned ?? false));
  giveCollations(event, columns, flavor, 'COLUMN_CHARSET', 'DEFAULT_CHARSET');
  giveCollations(event, columns, flavor, 'ENUM_AND_SET_COLUMN_CHARSET', 'ENUM_AND_SET_DEFAULT_CHARSET');
  give(entry(event, 'ENUM_STR_VALUE')?.enums, covered('ENUM_STR_VALUE'), (c, members) => (c.members = members?.names));
  give(entry(event, 'SET_STR_VALUE')?.sets, covered('SET_STR_VALUE'), (c, members) => (c.members = members?.names));

  for (const c of columns) {
    if (c.collation !== undefined) c.charset = charsetOf(c.collation);
    // Member names are in the column's charset; the schema read them as UTF-8 where they were valid.
    if (c.members && c.charset)
      c.members = c.members.map((m) => decodeText(typeof m === 'string' ? utf8.encode(m) : m, c.charset!));
  }
  if (definition)
    applyDefinition(
      columns,
      definition,
      qualifiedName(event.schemaName, event.tableName),
      event.columnMetadata !== undefined,
      flavor,
    );
  for (const c of columns) {
    const hint = hints?.({ schema: event.schemaName, table: event.tableName }, c);
    if (hint?.unsigned !== undefined && c.unsigned === undefined) c.unsigned = hint.unsigned;
    if (hint?.charset !== undefined && c.charset === undefined) c.charset = hint.charset;
    if (hint?.name !== undefined && c.name === `@${c.index + 1}`) c.name = hint.name;
    if (hint?.members !== undefined && c.members === undefined) c.members = hint.members;
    // Only MariaDB logs a fraction under the types without one.
    if (hint?.fractionDigits !== undefined && flavor === 'mariadb' && unsized(c))
      Object.assign(c, withFraction(c, hintedDigits(hint.fractionDigits, event, c)));
  }
  return { tableId: event.tableId, schema: event.schemaName, table: event.tableName, columns };
}
