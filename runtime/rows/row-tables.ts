/**
 * The generated row-event codecs' view of the tables (`ctx.tables`, runtime/core/tables.ts): row images
 * v1/v2 and v0, each read and written against the table registry, the rows given in one of three forms.
 */
import type { Reader } from '../core/reader.js';
import type { EagerRows, RowLayout, RowsGiven, RowsSplit, RowTables } from '../core/tables.js';
import type { OldRowChange, RowChange, RowChangeInput } from '../core/values.js';
import type { Writer } from '../core/writer.js';
import type { TableRegistry } from '../tables/registry.js';
import type { TableInfo } from '../values/column.js';
import { RowImages } from '../../generated/rows.js';
import { type Digits, encodeWithDigits, FractionInference, hasUnsized } from './fractions.js';
import { encodeRows, orBytes, splitRows } from './images.js';
import { type LazyRowChange, splitLazyRows, viewsOf } from './lazy.js';
import { decodeOldRows, encodeOldRows } from './v0.js';
import { JsonRows } from './json-rows.js';

/** How rows events' rows are given (DecodeOptions `rows`): decoded into row objects, or lazy views. */
export type RowForm = 'eager' | 'lazy';

/**
 * The dump's own form of rows, which no public option names: a rows event's images kept as JsonRows
 * (json-rows.ts), to be written as JSON from their bytes. Options holding this key ask for it.
 */
export const DUMP_ROWS: unique symbol = Symbol('rows as the dump writes them');

/** Decode options that ask for the dump's rows (binlog dump's). */
export interface DumpRowsOption {
  readonly [DUMP_ROWS]: true;
}

/** What the rows options may say: a public form, or (the dump) its own. */
export type RowsOptions = { rows?: RowForm } | ({ rows?: RowForm } & DumpRowsOption);

/** Lazy rows: each image a LazyRow view (lazy.ts), whose cells are decoded when read. */
export interface LazyRows extends RowsGiven {
  rows: LazyRowChange[];
  oldRows: LazyRowChange<OldRowChange>[];
}

/** The dump's rows: JsonRows where one pass writes them, else the eager decode's. */
export interface DumpRows extends RowsGiven {
  rows: JsonRows | RowChange[];
  oldRows: OldRowChange[];
}

/** One form of rows: how a rows event's images become its rows, and how rows decoded at once are given. */
interface RowsForm<G extends RowsGiven> {
  /** The rows of images that split with the layout; where they do not, why, and their bytes. */
  split(r: Reader, tables: TableRegistry, t: TableInfo | undefined, layout: RowLayout): RowsSplit<G['rows']>;
  /** Rows that were decoded at once (fraction digits inferred), in this form. */
  decoded(changes: RowChange[], t: TableInfo): G['rows'];
  /** Rows v0, which are always decoded at once, in this form. */
  oldRows(changes: OldRowChange[], t: TableInfo): G['oldRows'];
}

const EAGER: RowsForm<EagerRows> = {
  split: (r, tables, _t, layout) => splitRows(r, tables, layout),
  decoded: (changes) => changes,
  oldRows: (changes) => changes,
};

/** Under `lazy` the rows are views, which the generated codecs pass on as they are. */
const LAZY: RowsForm<LazyRows> = {
  split(r, tables, _t, layout) {
    const split = orBytes(r, () => splitLazyRows(r, tables, layout));
    return split.rows ? { rows: split.rows } : split;
  },
  decoded: (changes, t) => changes.map((c) => viewsOf(c, t)),
  oldRows: (changes, t) => changes.map((c) => viewsOf(c, t)),
};

/** The dump keeps the images of a known table as JsonRows where one pass can write them. */
const DUMP: RowsForm<DumpRows> = {
  split: (r, tables, t, layout) => {
    const rows = t && JsonRows.over(r, t, layout);
    return rows ? { rows } : splitRows(r, tables, layout);
  },
  decoded: (changes) => changes,
  oldRows: (changes) => changes,
};

export class RegistryRowTables<G extends RowsGiven = EagerRows> implements RowTables<G> {
  private readonly fractions = new FractionInference();

  constructor(
    private readonly registry: TableRegistry,
    private readonly form: RowsForm<G>,
  ) {}

  name(tableId: number): string {
    return this.registry.name(tableId);
  }

  hasDefinition(tableId: number): boolean {
    return this.registry.definition(tableId) !== undefined;
  }

  /**
   * The rows, with the fraction digits inferred where the table may hold MariaDB's own fractional
   * temporals and no definition says them. MySQL's partial JSON updates are never MariaDB's.
   */
  splitRows(r: Reader, layout: RowLayout): RowsSplit<G['rows']> {
    const { tableId } = layout;
    const t = this.registry.get(tableId);
    const infers = t && this.registry.unloggedFractions && !(layout.images & RowImages.JSON_DIFFS) && hasUnsized(t);
    if (!infers || this.hasDefinition(tableId)) return this.form.split(r, this.registry, t, layout);
    // The inference reads every value: its rows are decoded, then given in the form asked for.
    const split = this.fractions.split(r, t, this.registry.name(tableId), layout);
    return split.rows ? { rows: this.form.decoded(split.rows, t), inferred: split.inferred } : split;
  }

  encodeRows(w: Writer, rows: RowChangeInput[], layout: RowLayout, digits?: Readonly<Digits>): void {
    const t = this.registry.get(layout.tableId);
    if (digits && t) encodeWithDigits(w, rows, t, digits, layout);
    else encodeRows(w, rows, this.registry, layout);
  }

  decodeOldRows(r: Reader, layout: RowLayout): G['oldRows'] {
    const rows = decodeOldRows(r, this.registry, layout);
    // decodeOldRows found the table, or threw.
    return this.form.oldRows(rows, this.registry.get(layout.tableId)!);
  }

  encodeOldRows(w: Writer, rows: OldRowChange[], layout: RowLayout): void {
    encodeOldRows(w, rows, this.registry, layout);
  }
}

/** The form the options ask for. */
function formOf(options: RowsOptions): RowsForm<RowsGiven> {
  if (DUMP_ROWS in options) return DUMP;
  return options.rows === 'lazy' ? LAZY : EAGER;
}

/**
 * The row tables of a stream whose options are `options`, as the generated codecs' context holds them.
 * Those codecs are typed with the eager form's rows; under the other forms the events hold that form's
 * rows, which the readers' types say (LazyBinlogEvent) or the dump's writer knows (JsonRows). The context
 * takes them as eager row tables: this is the one place where the form's own type is set aside.
 */
export function rowTables(registry: TableRegistry, options: RowsOptions): RowTables {
  return new RegistryRowTables(registry, formOf(options)) as unknown as RowTables;
}
