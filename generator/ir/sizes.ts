/**
 * Byte sizes of IR types, and the bound they give a counted array: a forged element count must fail on
 * the bytes left, before anything is allocated; and the length of an event's post-header.
 */
import { evaluateExpr, type Expr } from '../expr.js';
import { constantOf } from './expressions.js';
import type { Origin, Pass } from './pass.js';
import type { Ir, IrField, IrStruct, IrType } from './types.js';

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
      s.fields
        .slice(0, i)
        .some((e) => e.repeat?.kind === 'count' && e.repeat.count.source === c.source && minSize(pass.ir, e.type) > 0);
    if (f.repeat?.kind === 'count' && bounded(f.repeat.count)) return;
    if (f.repeat && minSize(pass.ir, f.type) === 0) {
      pass.fail(
        o,
        ['fields', i, 'repeat'],
        `an element of '${f.name}' can take no bytes, so its count cannot be bounded`,
      );
    }
  });
}

/** The longest post-header a FORMAT_DESCRIPTION can list: its lengths are single bytes. */
const LONGEST_POST_HEADER = 255;

/**
 * The length of the post-header that `body` declares, in an event with these arguments, or the reason it
 * is not fixed. It is what a v4 FORMAT_DESCRIPTION lists (ctx.binlogVersion 4). A field may depend on
 * ctx.postHeaderLength itself: the fields are read as a post-header long enough for all of them would
 * read them, and must read the same at the length that gives.
 */
export function postHeaderLength(
  ir: Ir,
  body: IrStruct,
  args: Record<string, number | boolean>,
): number | { problem: string } {
  if (body.postHeader === false) return 0;
  const fields = body.fields.slice(0, body.fields.findIndex((f) => f.name === body.postHeader) + 1);
  const full = postHeaderBytes(ir, fields, args, LONGEST_POST_HEADER);
  if (typeof full !== 'number') return full;
  const own = postHeaderBytes(ir, fields, args, full);
  if (typeof own !== 'number') return own;
  if (own !== full)
    return { problem: `its fields take ${full} bytes in the longest post-header, but ${own} in one of ${full}` };
  return full;
}

/** The bytes of the post-header's fields when the FORMAT_DESCRIPTION gives it `length`. */
function postHeaderBytes(
  ir: Ir,
  fields: IrField[],
  args: Record<string, number | boolean>,
  length: number,
): number | { problem: string } {
  const known = (id: string): number | boolean | undefined => {
    if (id === 'ctx.binlogVersion') return 4;
    if (id === 'ctx.postHeaderLength') return length;
    return id.includes('.') ? constantOf(ir, id) : args[id];
  };
  let bytes = 0;
  for (const f of fields) {
    if (f.cond && evaluateExpr(f.cond, known) === undefined)
      return { problem: `whether '${f.name}' is there depends on what the event holds` };
    if (f.cond && !evaluateExpr(f.cond, known)) continue;
    const size = f.repeat ? undefined : knownSize(f.type, known);
    if (size === undefined) return { problem: `'${f.name}' has no size known before the event is read` };
    bytes += size;
  }
  return bytes;
}

/** A value's byte size when the known names fix it: integers, floats, sized strings, no bytes for a computed one. */
function knownSize(t: IrType, known: (id: string) => number | boolean | undefined): number | undefined {
  const value = (e: Expr) => {
    const v = evaluateExpr(e, known);
    return typeof v === 'number' ? v : undefined;
  };
  if (t.kind === 'computed') return 0;
  if (t.kind === 'uint') return value(t.size);
  if ((t.kind === 'text' || t.kind === 'bytes') && (t.span.kind === 'size' || t.span.kind === 'padded'))
    return value(t.span.size);
  return fixedSize(t);
}
