/**
 * Row changes from the dump's JSON, as the generated fromJson converters of row events read them: the
 * values are checked against their columns when they are encoded, not here.
 */
import { jArray, jBits, jBytes, jCell, jNum, jObject } from './dump-json.js';
import type { CellValue, OldRowChange, Row, RowChangeInput } from './values.js';

/** Row changes from their JSON form in the dump. */
export function rowsFromJson(j: unknown, path: string): RowChangeInput[] {
  return jArray(j, path).map((c, i) => {
    const at = `${path}[${i}]`;
    const o = jObject(c, at);
    const change: RowChangeInput = {};
    for (const image of ['before', 'after'] as const) {
      if (o[image] === undefined) continue;
      const row: Row = {};
      for (const [name, v] of Object.entries(jObject(o[image], `${at}.${image}`)))
        row[name] = jCell(v, `${at}.${image}.${name}`) as CellValue;
      change[image] = row;
    }
    if (o.jsonOptions !== undefined) change.jsonOptions = jNum(o.jsonOptions, `${at}.jsonOptions`);
    if (o.partialJson !== undefined) change.partialJson = jBits(o.partialJson, `${at}.partialJson`);
    if (o.nullSpare !== undefined) {
      const spare = jObject(o.nullSpare, `${at}.nullSpare`);
      change.nullSpare = {};
      for (const image of ['before', 'after'] as const) {
        if (spare[image] !== undefined) change.nullSpare[image] = jNum(spare[image], `${at}.nullSpare.${image}`);
      }
    }
    return change;
  });
}

/** v0 row changes from their JSON form in the dump. */
export function oldRowsFromJson(j: unknown, path: string): OldRowChange[] {
  const changes: OldRowChange[] = rowsFromJson(j, path);
  changes.forEach((change, i) => {
    const o = jObject((j as unknown[])[i], `${path}[${i}]`);
    for (const image of ['before', 'after'] as const) {
      const values = o.nullValues === undefined ? undefined : jObject(o.nullValues, `${path}[${i}].nullValues`)[image];
      if (values !== undefined) {
        const row: Row = {};
        for (const [name, v] of Object.entries(jObject(values, `${path}[${i}].nullValues.${image}`)))
          row[name] = jCell(v, `${path}[${i}].nullValues.${image}.${name}`) as CellValue;
        (change.nullValues ??= {})[image] = row;
      }
      const bytes = o.nullBytes === undefined ? undefined : jObject(o.nullBytes, `${path}[${i}].nullBytes`)[image];
      if (bytes !== undefined) (change.nullBytes ??= {})[image] = jBytes(bytes, `${path}[${i}].nullBytes.${image}`);
    }
  });
  return changes;
}
