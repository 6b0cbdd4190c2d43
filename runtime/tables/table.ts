/**
 * A table described from its SQL definition: its columns as TABLE_MAP logs them (runtime/tables/sqltypes.ts)
 * and its primary key, checked as MariaDB checks CREATE TABLE. Reading rows v0 needs it (the caller's
 * definitions, runtime/tables/definitions.ts); the builder writes it (builder/).
 */
import { describeColumn, resolveCharset } from './sqltypes.js';
import { type BuiltColumn, type TableDef, TableDefinitionError } from './table-types.js';

/** The engines whose tables take no part in transactions: their changes commit with QUERY 'COMMIT', not XID. */
const NON_TRANSACTIONAL_ENGINES = new Set([
  'myisam',
  'aria',
  'memory',
  'heap',
  'csv',
  'archive',
  'merge',
  'mrg_myisam',
  'blackhole',
]);

/** A table described: its columns resolved. */
export class Table {
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly BuiltColumn[];
  /** Primary key columns, by index, in key order. */
  readonly primaryKey: readonly number[];
  readonly engine: string;
  readonly transactional: boolean;
  /** `schema.name`. */
  readonly qualified: string;
  private readonly byName: Map<string, BuiltColumn>;

  constructor(def: TableDef) {
    this.schema = def.schema;
    this.name = def.name;
    this.qualified = `${def.schema}.${def.name}`;
    this.engine = def.engine ?? 'InnoDB';
    this.transactional = !NON_TRANSACTIONAL_ENGINES.has(this.engine.toLowerCase());
    const fail = (problem: string, column?: string): never => {
      throw new TableDefinitionError(problem, this.qualified, column);
    };
    if (!def.columns?.length) fail('a table needs at least one column');
    const pk =
      def.primaryKey === undefined ? [] : typeof def.primaryKey === 'string' ? [def.primaryKey] : def.primaryKey;
    const tableCharset = resolveCharset(def.charset, def.collation, (p) => fail(p));
    const seen = new Set<string>();
    this.columns = def.columns.map((c, index) => {
      const key = c.name.toLowerCase();
      if (seen.has(key)) fail('is defined twice', c.name);
      seen.add(key);
      return describeColumn(
        c,
        index,
        pk.some((k) => k.toLowerCase() === key),
        tableCharset,
        (p) => fail(p, c.name),
      );
    });
    this.byName = new Map(this.columns.map((c) => [c.name, c]));
    this.primaryKey = pk.map((k) => {
      const c = this.columns.find((x) => x.name.toLowerCase() === k.toLowerCase());
      if (!c) return fail(`the primary key names '${k}', which is not a column`);
      if (c.kind === 'blob' || c.kind === 'geometry')
        fail(`a ${c.sqlType} column cannot be a whole primary key part`, c.name);
      return c.index;
    });
    if (new Set(this.primaryKey).size !== this.primaryKey.length) fail('the primary key names a column twice');
  }

  column(name: string): BuiltColumn | undefined {
    return this.byName.get(name);
  }
}

/** Describes a table (throws TableDefinitionError for what MariaDB would refuse). */
export function describeTable(def: TableDef): Table {
  return new Table(def);
}
