/** Checks of a struct once its fields are resolved and lowered: what derived fields and `rest` require. */
import type { Expr } from '../expr.js';
import { below, type Origin, type Pass } from './pass.js';
import type { IrField, IrStruct } from './types.js';

/** A derived field must name a later field of the right kind, sized by it. */
export function checkDerived(pass: Pass, s: IrStruct, o: Origin): void {
  s.fields.forEach((f, i) => {
    const d = f.derive;
    if (d?.kind === 'totalSize' && !(f.type.kind === 'packed' && f.type.serial && !f.type.big && !f.cond)) {
      return pass.fail(below(o, 'fields', i, 'derive'), [], `a totalSize field must be an unconditional varint`);
    }
    if (!d || d.kind === 'value' || d.kind === 'frame' || d.kind === 'totalSize') return;
    const targetIndex = s.fields.findIndex((t) => t.name === d.target);
    const target = s.fields[targetIndex];
    const failAt = (problem: string) => pass.fail(below(o, 'fields', i, 'derive', d.kind), [], problem);
    if (!target) return failAt(`no field '${d.target}' in '${s.name}'`);
    if (targetIndex < i)
      return failAt(`'${d.target}' comes before '${f.name}'; a derived field must precede what it derives from`);
    if (f.type.kind !== 'int' && f.type.kind !== 'packed') return failAt(`a ${d.kind} field must be an integer`);
    const sizedBy =
      d.kind === 'countOf' ? (target.repeat?.kind === 'count' ? target.repeat.count : undefined) : sizeExpr(target);
    const plus = d.kind === 'sizeOf' ? d.plus : 0;
    const wanted = plus ? `${f.name} - ${plus}` : f.name;
    if (!sizedBy || sizedBy.source !== wanted) {
      failAt(`'${d.target}' must have ${d.kind === 'countOf' ? 'count' : 'size'}: ${wanted}`);
    }
    if (d.kind === 'lengthOf' && target.type.kind !== 'text' && target.type.kind !== 'bytes') {
      failAt(`lengthOf needs a string or bytes field; use sizeOf for '${d.target}'`);
    }
  });
}

/** The expression that gives a field's byte size, if one does. */
function sizeExpr(f: IrField): Expr | undefined {
  if ((f.type.kind === 'text' || f.type.kind === 'bytes') && f.type.span.kind === 'size') return f.type.span.size;
  return f.size === 'rest' ? undefined : f.size;
}

/** `rest` must be the end of a structure (only a conditional trailer may follow). */
export function checkRest(pass: Pass, s: IrStruct, o: Origin): void {
  s.fields.forEach((f, i) => {
    const rest =
      f.size === 'rest' ||
      f.repeat?.kind === 'rest' ||
      ((f.type.kind === 'text' || f.type.kind === 'bytes') && f.type.span.kind === 'rest');
    // A sized key's value reads to the end of its own length, not of the structure.
    const ownWindow = f.key !== undefined && s.keys?.sized;
    if (rest && !ownWindow && s.fields.slice(i + 1).some((later) => !later.cond)) {
      pass.fail(o, ['fields', i], `'${f.name}' reads to the end, so it must be the last field`);
    }
  });
}
