/**
 * A field's expressions: parsed, and every name they read checked against what the field can see (its
 * struct's parameters and earlier fields), the enums and flags, the context and the builtin functions.
 */
import { callArguments, calls, contextNames, ExprError, identifiers, indexed, parseExpr, type Expr } from '../expr.js';
import type { YamlPath } from '../load.js';
import type { Origin, Pass } from './pass.js';
import type { Ir, IrField, IrParam, IrType } from './types.js';

/** What a field may name: its struct's parameters and the fields before it. */
export type Scope = Map<string, IrField | IrParam>;

/**
 * Reads the expression `src` given under `key` (reported at `where`, by default [key]): undefined when
 * it is absent, or when it is wrong, the problem reported.
 */
export type ReadExpr = (key: string, src: string | number | undefined, where?: YamlPath) => Expr | undefined;

/** Functions an expression may call: the runtime exports them under these names (emit/runtime-names.ts). */
const BUILTINS = new Set(['versionAtLeast', 'tableName', 'hasTableDefinition', 'bit']);

/** The expression reader for a field at `o`; `index` is allowed in a repeated field's. */
export function exprReader(pass: Pass, o: Origin, scope: Scope, inRepeat: boolean): ReadExpr {
  return (key, src, where = [key]) => {
    if (src === undefined) return undefined;
    try {
      const e = parseExpr(src);
      checkExpr(pass, e, o, where, scope, inRepeat);
      return e;
    } catch (err) {
      if (err instanceof ExprError) pass.fail(o, where, `bad expression: ${err.message}`);
      else throw err;
      return undefined;
    }
  };
}

function checkExpr(pass: Pass, e: Expr, o: Origin, where: YamlPath, scope: Scope, inRepeat: boolean): void {
  const { ir, fail } = pass;
  const arrays = indexed(e);
  const args = callArguments(e);
  for (const id of identifiers(e)) {
    if (id === 'remaining') continue;
    if (id === 'index') {
      if (!inRepeat) fail(o, where, `'index' names the element being read: only a repeated field may use it`);
      continue;
    }
    if (id.includes('.')) {
      const [group, value] = id.split('.') as [string, string];
      const table = ir.enums.get(group) ?? ir.flags.get(group);
      if (!table) fail(o, where, `unknown enum or flags '${group}'`);
      else if (!table.values.some(([n]) => n === value)) fail(o, where, `'${group}' has no value '${value}'`);
      continue;
    }
    const ref = scope.get(id);
    if (!ref) {
      fail(o, where, `unknown field or parameter '${id}'`);
      continue;
    }
    if ('path' in ref && !isNumeric(ref.type) && !args.includes(id)) {
      fail(o, where, `'${id}' is not a number-valued field and cannot be used in an expression`);
    } else if ('path' in ref && !ref.repeat !== !arrays.includes(id)) {
      fail(
        o,
        where,
        ref.repeat ? `'${id}' is an array: use ${id}[...]` : `'${id}' is not an array and cannot be indexed`,
      );
    }
  }
  for (const name of contextNames(e)) {
    if (!ir.context.some((c) => c.name === name)) fail(o, where, `unknown context value 'ctx.${name}'`);
  }
  for (const call of calls(e)) if (!BUILTINS.has(call.fn)) fail(o, where, `unknown function '${call.fn}'`);
}

/** Whether a field of type `t` holds a number an expression can compute with (bigints cannot mix). */
export function isNumeric(t: IrType): boolean {
  return (
    ((t.kind === 'int' || t.kind === 'packed') && !t.big) ||
    t.kind === 'uint' ||
    (t.kind === 'computed' && t.value !== 'string')
  );
}

/** The value of `Enum.NAME` (an enum's or a flags' constant), or undefined for any other name. */
export function constantOf(ir: Ir, id: string): number | undefined {
  const [group, name] = id.split('.');
  return (ir.enums.get(group!) ?? ir.flags.get(group!))?.values.find(([n]) => n === name)?.[1];
}
