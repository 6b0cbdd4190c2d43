/**
 * The `rows` field kind, whose values are read and written through `ctx.tables` (the rows layer's view
 * of the table map): the one place that emits it, for every artifact.
 */
import { compileExpr } from '../expr.js';
import type { IrType } from '../ir/types.js';
import type { Module } from './module.js';
import { q } from './print.js';

type Rows = Extract<IrType, { kind: 'rows' }>;

export function rowsType(m: Module, t: Rows, input: boolean): string {
  if (t.layout === 'v0') return `${m.rtType('OldRowChange')}[]`;
  return `${m.rtType(input ? 'RowChangeInput' : 'RowChange')}[]`;
}

/**
 * An expression reading the row images from `reader`, through `ctx.tables`; `name` maps the struct's names.
 * v1/v2 rows read as a split: `{rows, inferred?}`, or `{undecoded, bytes}` (splitRowsInto binds them).
 */
export function decodeRows(t: Rows, reader: string, name: (id: string) => string, path: string): string {
  const layout = rowLayout(t, (field) => field, compileExpr(t.images, name), path);
  return `ctx.tables.${t.layout === 'v0' ? 'decodeOldRows' : 'splitRows'}(${reader}, ${layout})`;
}

/**
 * The rows' RowLayout (runtime/core/tables.ts) as an object literal, made once per event: `field` gives
 * the expression of each field the layout takes (a decoder's local, or an encoder's `v.` member).
 */
function rowLayout(t: Rows, field: (name: string) => string, images: string, path: string): string {
  const member = (key: string, value: string) => (key === value ? key : `${key}: ${value}`);
  const after = t.layout !== 'v0' && t.columnsAfter ? [member('columnsAfter', field(t.columnsAfter))] : [];
  const table = [member('tableId', field(t.table)), member('columns', field(t.columns))];
  const members = [...table, ...after, member('images', images)];
  return `{ ${[...members, `path: ${q(path)}`].join(', ')} }`;
}

/** Binds the rows of a split (`split`, a local holding decodeRows' value), or the bytes and reason kept instead. */
export function splitRowsInto(
  t: Rows,
  field: string,
  split: string,
  bind: (local: string, value: string) => void,
): void {
  bind(field, `${split}.rows`);
  bind(`${t.undecoded}Undecoded`, `${split}.undecoded`);
  bind(t.undecoded!, `${split}.bytes`);
  if (t.inferred) bind(t.inferred, `${split}.inferred`);
}

/** A statement writing the row images `value` to `writer`, through `ctx.tables` (or the bytes kept instead of them). */
export function encodeRows(
  m: Module,
  t: Rows,
  writer: string,
  value: string,
  name: (id: string) => string,
  path: string,
): string {
  if (t.undecoded) {
    const rows = encodeRows(
      m,
      { ...t, undecoded: undefined },
      writer,
      `${m.rt('required')}(${value}, ${q(path)})`,
      name,
      path,
    );
    return `if (v.${t.undecoded} !== undefined) ${writer}.bytes(v.${t.undecoded}); else ${rows}`;
  }
  const layout = rowLayout(t, (field) => `v.${field}`, compileExpr(t.images, name), path);
  if (t.layout === 'v0') return `ctx.tables.encodeOldRows(${writer}, ${value}, ${layout});`;
  const inferred = t.inferred ? [`v.${t.inferred}`] : [];
  return `ctx.tables.encodeRows(${[writer, value, layout, ...inferred].join(', ')});`;
}

/** An expression converting the JSON `j` at path `p` to row images. */
export function rowsFromJson(m: Module, t: Rows, j: string, p: string): string {
  return `${m.rt(t.layout === 'v0' ? 'oldRowsFromJson' : 'rowsFromJson')}(${j}, ${p})`;
}
