/**
 * Keyed fields lowered to what decoders and encoders already know: a keyed field becomes a trailer
 * present when its id comes next, and a sized list's keyed fields get the plan of the one loop that
 * reads them.
 */
import { parseExpr } from '../expr.js';
import type { Origin, Pass } from './pass.js';
import type { RawField } from './raw.js';
import type { IrField, IrStruct } from './types.js';

/**
 * A keyed field is optional: present when its id comes next. It reads as a trailer does (while bytes
 * are left), so encoders write it when it is given.
 */
export function lowerKey(pass: Pass, field: IrField, f: RawField, o: Origin, s: IrStruct): void {
  if (f.key === undefined) return;
  if (!s.keys) return pass.fail(o, ['key'], `a keyed field needs 'keys' on its struct`);
  if (f.if !== undefined) return pass.fail(o, ['if'], `a keyed field is present when its key is: give no 'if'`);
  if (s.fields.some((k) => k.key === f.key)) return pass.fail(o, ['key'], `key ${f.key} is used twice`);
  field.key = f.key;
  field.cond = parseExpr('remaining > 0');
}

/** A sized list's keyed fields are read in one loop, so they follow each other. */
export function lowerSizedList(pass: Pass, s: IrStruct, o: Origin): void {
  if (!s.keys?.sized) return;
  const keyed = s.fields.filter((f) => f.key !== undefined);
  if (keyed.length === 0) return;
  if (s.fields.some((f) => f.name === 'keyOrder'))
    return pass.fail(o, ['fields'], `'keyOrder' holds a sized list's stored order: name the field otherwise`);
  const from = s.fields.indexOf(keyed[0]!);
  const gap = keyed.findIndex((f, i) => s.fields[from + i] !== f);
  if (gap >= 0) {
    const between = s.fields[from + gap]!.name;
    return pass.fail(
      o,
      ['fields'],
      `'${between}' comes between keyed fields: a sized list's are read in one loop, so they follow each other`,
    );
  }
  const next = s.fields[from + keyed.length];
  const end =
    next?.constValue !== undefined && next.type.kind === 'packed' && next.type.serial === s.keys.serial
      ? next.constValue
      : undefined;
  s.keys.list = { ids: keyed.map((f) => f.key!), first: keyed[0]!.name, last: keyed.at(-1)!.name, end };
}
