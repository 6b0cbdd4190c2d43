/**
 * The `oldRowImages` section: the facts of the table and of each column that rows v0's null bytes
 * depend on, the bits those bytes give out (the record's own, then each column's) under conditions over
 * those facts, and the most bytes a column packs to. The record's bits read the table's facts only, the
 * longest form the column's; a column has its null bit once, a count of exactly one, and its packed
 * form's first byte at most once.
 */
import { calls, contextNames, ExprError, identifiers, parseExpr, type Expr } from '../expr.js';
import type { SchemaFile, YamlPath } from '../load.js';
import { type Origin, type Pass, resolveSection } from './pass.js';
import type { RawOldFact, RawOldRowImages } from './raw.js';
import type { IrOldFact, IrOldRowImages } from './types.js';

export function resolveOldRowImages(pass: Pass, files: SchemaFile[]): void {
  resolveSection(pass, files, 'oldRowImages', 'old row image layout', (o, raw, module) =>
    resolve(pass, o, raw, module),
  );
}

function resolve(pass: Pass, o: Origin, raw: RawOldRowImages, module: string): IrOldRowImages {
  const table = facts(raw.table);
  const column = facts(raw.column);
  for (const f of column)
    if (raw.table[f.name])
      pass.fail(o, ['column', f.name], `'${f.name}' is a fact of the table too: one name, one fact`);
  const tableNames = new Set(table.map((f) => f.name));
  const allNames = new Set([...tableNames, ...column.map((f) => f.name)]);
  const ofTable = (src: string | number | boolean, where: YamlPath) =>
    expr(pass, o, src, where, tableNames, "the record's bits read the table's facts");
  const ofColumn = (src: string | number | boolean, where: YamlPath) =>
    expr(pass, o, src, where, allNames, 'not a fact of the table or the column');
  const { nullBytes: nb } = raw;
  const record = nb.record.map((b, i) => ({
    name: b.name,
    cond: ofTable(b.if, ['nullBytes', 'record', i, 'if']),
    count: ofTable(b.count, ['nullBytes', 'record', i, 'count']),
  }));
  const columns = nb.columns.map((b, i) => ({
    holds: b.holds,
    cond: ofColumn(b.if, ['nullBytes', 'columns', i, 'if']),
    count: ofColumn(b.count, ['nullBytes', 'columns', i, 'count']),
  }));
  checkColumnBits(pass, o, nb.columns);
  const columnNames = new Set(column.map((f) => f.name));
  const ofLongest = (src: string | number | boolean, where: YamlPath) =>
    expr(pass, o, src, where, columnNames, "the longest form reads the column's facts");
  const longest = {
    cond: ofLongest(raw.longest.if, ['longest', 'if']),
    bytes: ofLongest(raw.longest.bytes, ['longest', 'bytes']),
  };
  return {
    module,
    doc: raw.doc,
    table,
    column,
    msb: nb.order === 'msb',
    spareSet: nb.spare === 'set',
    record,
    columns,
    longest,
  };
}

function facts(raw: Record<string, RawOldFact>): IrOldFact[] {
  return Object.entries(raw).map(([name, f]) => ({ name, type: f.type, optional: f.optional ?? false, doc: f.doc }));
}

/** A column's null bit is one bit, given once (the runtime places NULLs by it); its first byte's bits at most once. */
function checkColumnBits(pass: Pass, o: Origin, raw: RawOldRowImages['nullBytes']['columns']): void {
  const nulls = raw.filter((b) => b.holds === 'isNull').length;
  if (nulls !== 1)
    pass.fail(
      o,
      ['nullBytes', 'columns'],
      `a column's null bit is given ${nulls ? `${nulls} times` : 'nowhere'}: once, in column order`,
    );
  if (raw.filter((b) => b.holds === 'firstPackedByte').length > 1)
    pass.fail(o, ['nullBytes', 'columns'], 'a column has the bits of its first packed byte more than once');
  raw.forEach((b, i) => {
    if (b.holds === 'isNull' && b.count !== 1)
      pass.fail(o, ['nullBytes', 'columns', i, 'count'], 'a null bit is one bit: count 1');
  });
}

/** The expression at `where`, reading only the facts `names` holds, with no calls and no context. */
function expr(
  pass: Pass,
  o: Origin,
  src: string | number | boolean,
  where: YamlPath,
  names: Set<string>,
  whose: string,
): Expr {
  try {
    const e = parseExpr(src);
    for (const id of identifiers(e)) if (!names.has(id)) pass.fail(o, where, `unknown name '${id}': ${whose}`);
    if (calls(e).length || contextNames(e).length) pass.fail(o, where, 'the layout reads facts only: no calls, no ctx');
    return e;
  } catch (err) {
    if (!(err instanceof ExprError)) throw err;
    pass.fail(o, where, `bad expression: ${err.message}`);
    return { kind: 'num', value: 0 };
  }
}
