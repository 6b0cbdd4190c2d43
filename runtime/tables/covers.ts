/**
 * Which columns each TABLE_MAP optional metadata entry is about: its `covers:` in schemas/rows.yaml. An
 * entry's per-column values (a SIGNEDNESS bit, a COLUMN_CHARSET collation, ENUM_STR_VALUE's members) are
 * those of the columns it covers, in column order.
 */
import { TableMapEventOptionalMetadataCovers } from '../../generated/rows.js';
import type { Flavor } from '../core/tables.js';

/** The optional metadata entries that cover columns. */
export type CoveringEntry = keyof typeof TableMapEventOptionalMetadataCovers;

/** Whether `entry` covers a column of this real type in a table that a server of `flavor` wrote. */
export function covers(entry: CoveringEntry, realType: number, flavor: Flavor): boolean {
  const cover = TableMapEventOptionalMetadataCovers[entry];
  return cover === 'all' || cover[flavor].has(realType);
}

/** The columns `entry` covers, in column order. */
export function coveredColumns<C extends { realType: number }>(
  columns: readonly C[],
  entry: CoveringEntry,
  flavor: Flavor,
): readonly C[] {
  const cover = TableMapEventOptionalMetadataCovers[entry];
  return cover === 'all' ? columns : columns.filter((c) => cover[flavor].has(c.realType));
}
