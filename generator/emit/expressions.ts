/**
 * Schema expressions in generated code: what each name reads in a decoder (locals as they are read) and
 * in an encoder (the input, or locals computed first), and the runtime functions expressions call.
 */
import { compileExpr, identifiers, type Expr } from '../expr.js';
import type { Ir, IrField, IrStruct, IrType } from '../ir/types.js';
import { isEnum } from './fields.js';
import type { Module } from './module.js';
import type { RuntimeName } from './runtime-names.js';

/** How a struct's decoder refers to a name in an expression. */
export function decodeName(m: Module, s: IrStruct): (id: string) => string {
  return (id) => {
    if (id === 'remaining') return 'r.remaining';
    if (id === 'index') return 'i';
    if (id.endsWith('[]')) {
      const array = s.fields.find((x) => x.name === id.slice(0, -2))!;
      return isEnum(array.type) ? `${array.name}$code` : array.name;
    }
    if (id.includes('.')) return constValue(m.ir, id);
    const f = s.fields.find((x) => x.name === id);
    const local = f && isEnum(f.type) ? `${id}$code` : id;
    // An absent field reads as 0, as in the servers' C.
    return f?.cond ? `(${local} ?? 0)` : local;
  };
}

/** Names in encoder expressions: parameters as they are, derived values as locals, fields from the input. */
export function encodeName(m: Module, s: IrStruct): (id: string) => string {
  return (id) => {
    if (id === 'index') return 'i';
    if (id.endsWith('[]')) {
      const array = s.fields.find((x) => x.name === id.slice(0, -2))!;
      return isEnum(array.type) ? `${array.name}$code` : `v.${array.name}`;
    }
    if (id.includes('.')) return constValue(m.ir, id);
    const f = s.fields.find((x) => x.name === id);
    if (!f) return id;
    if (f.derive) return id;
    if (f.type.kind === 'computed') return isEnum(f.type) ? `${id}$code` : id;
    const local = isEnum(f.type) ? `${id}$code` : `v.${id}`;
    return f.cond ? `(${local} ?? 0)` : local;
  };
}

/** `Enum.NAME` in an expression: its value, with the name kept beside it for the reader. */
export function constValue(ir: Ir, id: string): string {
  const [group, name] = id.split('.') as [string, string];
  const table = ir.enums.get(group) ?? ir.flags.get(group)!;
  const value = table.values.find(([n]) => n === name)![1];
  return `${value} /* ${id} */`;
}

/** The arguments a struct reference passes, in the order of the struct's params (undefined where none is given). */
export function structArgs(m: Module, t: Extract<IrType, { kind: 'struct' }>, name: (id: string) => string): string[] {
  const target = m.struct(t.name);
  return target.params.map((p) => {
    const arg = t.args.find(([k]) => k === p.name);
    return arg ? compileExpr(arg[1], name) : 'undefined';
  });
}

/** Whether any expression of the struct reads the field `name`. */
export function usedInExpressions(s: IrStruct, name: string): boolean {
  return s.fields.some((f) => exprsOf(f).some((e) => identifiers(e).includes(name)));
}

/** A field's expressions that read other names (a computed field's own is apart). */
function exprsOf(f: IrField): Expr[] {
  const out: Expr[] = [];
  if (f.cond) out.push(f.cond);
  if (f.size && f.size !== 'rest') out.push(f.size);
  if (f.repeat?.kind === 'count') out.push(f.repeat.count);
  if (f.derive?.kind === 'value') out.push(f.derive.expr);
  const t = f.type;
  if (t.kind === 'switch') out.push(t.on);
  if (t.kind === 'bitmap') out.push(t.bits);
  if (t.kind === 'struct') t.args.forEach(([, e]) => out.push(e));
  if ((t.kind === 'text' || t.kind === 'bytes') && (t.span.kind === 'size' || t.span.kind === 'padded'))
    out.push(t.span.size);
  return out;
}

/** Functions the struct's expressions call: imported from the runtime. */
export function importCalls(m: Module, s: IrStruct): void {
  const calls = (e: Expr): string[] => (e.kind === 'call' ? [e.fn, ...e.args.flatMap(calls)] : []);
  for (const f of s.fields) {
    const exprs = f.type.kind === 'computed' ? [...exprsOf(f), f.type.expr] : exprsOf(f);
    for (const fn of exprs.flatMap(calls)) m.rt(fn as RuntimeName);
  }
}
