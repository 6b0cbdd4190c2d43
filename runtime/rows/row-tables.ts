/**
 * The generated row-event codecs' view of the tables (`ctx.tables`, runtime/core/tables.ts): row images
 * v1/v2 and v0, each read and written against the table registry.
 */
import type { Reader } from '../core/reader.js';
import type { RowsSplit, RowTables } from '../core/tables.js';
import type { OldRowChange, RowChange, RowChangeInput } from '../core/values.js';
import type { Writer } from '../core/writer.js';
import type { TableRegistry } from '../tables/registry.js';
import { RowImages } from '../../generated/rows.js';
import { type Digits, encodeWithDigits, FractionInference, hasUnsized } from './fractions.js';
import { encodeRows, orBytes, splitRows } from './images.js';
import { splitLazyRows, viewsOf } from './lazy.js';
import { decodeOldRows, encodeOldRows } from './v0.js';
import { JsonRows } from './json-rows.js';

/** How rows events' rows are given (DecodeOptions `rows`): decoded, lazy views, or the dump's JsonRows. */
export type RowForm = 'eager' | 'lazy' | 'json';

/**
 * Under `lazy` (ReadOptions `rows: 'lazy'`) the rows are LazyRow views (lazy.ts), which the generated
 * codecs pass on as they are: the readers' types say what the events then hold (LazyBinlogEvent). Under
 * `json` (the dump's) they are JsonRows (json-rows.ts), kept to be written as JSON from their bytes.
 */
export class RegistryRowTables implements RowTables {
  private readonly fractions = new FractionInference();

  constructor(
    private readonly registry: TableRegistry,
    private readonly form: RowForm = 'eager',
  ) {}

  name(tableId: number): string {
    return this.registry.name(tableId);
  }

  hasDefinition(tableId: number): boolean {
    return this.registry.definition(tableId) !== undefined;
  }

  /** The rows, with the fraction digits inferred where the table may hold MariaDB's own fractional temporals and no definition says them. */
  splitRows(r: Reader, tableId: number, columns: boolean[], columnsAfter: boolean[] | undefined, images: number, path: string): RowsSplit {
    const t = this.registry.get(tableId);
    // MySQL's partial JSON updates are never MariaDB's.
    if (t && this.registry.unloggedFractions && !(images & RowImages.JSON_DIFFS) && hasUnsized(t) && !this.hasDefinition(tableId)) {
      // The inference reads every value: its rows are decoded, then given as views.
      const split = this.fractions.split(r, t, this.registry.name(tableId), columns, columnsAfter, images, path);
      return this.form === 'lazy' && split.rows ? { ...split, rows: split.rows.map((c) => viewsOf(c, t)) as unknown as RowChange[] } : split;
    }
    const json = this.form === 'json' && t ? JsonRows.over(r, t, columns, columnsAfter, images, path) : undefined;
    if (json) return { rows: json as unknown as RowChange[] };
    if (this.form !== 'lazy') return splitRows(r, this.registry, tableId, columns, columnsAfter, images, path);
    const split = orBytes(r, () => splitLazyRows(r, this.registry, tableId, columns, columnsAfter, images, path));
    return split.rows ? { rows: split.rows as unknown as RowChange[] } : split;
  }

  encodeRows(w: Writer, rows: RowChangeInput[], tableId: number, columns: boolean[], columnsAfter: boolean[] | undefined, images: number, path: string, digits?: Readonly<Digits>): void {
    const t = this.registry.get(tableId);
    if (digits && t) encodeWithDigits(w, rows, t, digits, columns, columnsAfter, images, path);
    else encodeRows(w, rows, this.registry, tableId, columns, columnsAfter, images, path);
  }

  decodeOldRows(r: Reader, tableId: number, columns: boolean[], images: number, path: string): OldRowChange[] {
    const rows = decodeOldRows(r, this.registry, tableId, columns, images, path);
    if (this.form !== 'lazy') return rows;
    const t = this.registry.get(tableId)!;
    return rows.map((change) => viewsOf(change, t)) as unknown as OldRowChange[];
  }

  encodeOldRows(w: Writer, rows: OldRowChange[], tableId: number, columns: boolean[], images: number, path: string): void {
    encodeOldRows(w, rows, this.registry, tableId, columns, images, path);
  }
}
