/**
 * Byte sizes of IR types, and the bound they give a counted array: a forged element count must fail on
 * the bytes left, before anything is allocated.
 */
import type { Expr } from '../expr.js';
import type { Origin, Pass } from './pass.js';
import type { Ir, IrStruct, IrType } from './types.js';

/** The fewest bytes a value of `t` can take: what a forged element count is checked against. */
export function minSize(ir: Ir, t: IrType): number {
  switch (t.kind) {
    case 'int':
    case 'float':
      return t.width;
    case 'packed':
    case 'uint':
      return 1;
    case 'text':
    case 'bytes':
      return t.span.kind === 'prefix' ? minSize(ir, t.span.prefix) : t.span.kind === 'nul' ? 1 : 0;
    case 'struct':
      return ir.structs.get(t.name)!.fields.reduce((sum, f) => sum + (f.cond || f.repeat ? 0 : minSize(ir, f.type)), 0);
    default:
      return 0;
  }
}

/** Byte size of a value that needs no length from the input, or undefined. */
export function fixedSize(t: IrType): number | undefined {
  if (t.kind === 'int') return t.width;
  if (t.kind === 'float') return t.width;
  return undefined;
}

/**
 * An element of a counted array must take at least a byte, so that a forged count fails on the bytes
 * left. Run once every struct exists, since sizes are reckoned across references.
 */
export function checkElements(pass: Pass, s: IrStruct, o: Origin): void {
  s.fields.forEach((f, i) => {
    // A count already bounded by an earlier array of non-empty elements (e.g. one per column) is safe.
    const bounded = (c: Expr) =>
      s.fields.slice(0, i).some((e) => e.repeat?.kind === 'count' && e.repeat.count.source === c.source && minSize(pass.ir, e.type) > 0);
    if (f.repeat?.kind === 'count' && bounded(f.repeat.count)) return;
    if (f.repeat && minSize(pass.ir, f.type) === 0) {
      pass.fail(o, ['fields', i, 'repeat'], `an element of '${f.name}' can take no bytes, so its count cannot be bounded`);
    }
  });
}
