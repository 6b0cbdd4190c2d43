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
  if (t.layout === 'v0') return `ctx.tables.decodeOldRows(${[reader, t.table, t.columns, compileExpr(t.images, name), q(path)].join(', ')})`;
  return `ctx.tables.splitRows(${[reader, t.table, t.columns, t.columnsAfter ?? 'undefined', compileExpr(t.images, name), q(path)].join(', ')})`;
}

/** Binds the rows of a split (`split`, a local holding decodeRows' value), or the bytes and reason kept instead. */
export function splitRowsInto(t: Rows, field: string, split: string, bind: (local: string, value: string) => void): void {
  bind(field, `${split}.rows`);
  bind(`${t.undecoded}Undecoded`, `${split}.undecoded`);
  bind(t.undecoded!, `${split}.bytes`);
  if (t.inferred) bind(t.inferred, `${split}.inferred`);
}

/** A statement writing the row images `value` to `writer`, through `ctx.tables` (or the bytes kept instead of them). */
export function encodeRows(m: Module, t: Rows, writer: string, value: string, name: (id: string) => string, path: string): string {
  if (t.undecoded) {
    const rows = encodeRows(m, { ...t, undecoded: undefined }, writer, `${m.rt('required')}(${value}, ${q(path)})`, name, path);
    return `if (v.${t.undecoded} !== undefined) ${writer}.bytes(v.${t.undecoded}); else ${rows}`;
  }
  if (t.layout === 'v0') return `ctx.tables.encodeOldRows(${[writer, value, `v.${t.table}`, `v.${t.columns}`, compileExpr(t.images, name), q(path)].join(', ')});`;
  const inferred = t.inferred ? [`v.${t.inferred}`] : [];
  return `ctx.tables.encodeRows(${[writer, value, `v.${t.table}`, `v.${t.columns}`, t.columnsAfter ? `v.${t.columnsAfter}` : 'undefined', compileExpr(t.images, name), q(path), ...inferred].join(', ')});`;
}

/** An expression converting the JSON `j` at path `p` to row images. */
export function rowsFromJson(m: Module, t: Rows, j: string, p: string): string {
  return `${m.rt(t.layout === 'v0' ? 'oldRowsFromJson' : 'rowsFromJson')}(${j}, ${p})`;
}
