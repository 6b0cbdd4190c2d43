/**
 * The schema's expression language: integer arithmetic and comparisons over earlier fields (an array
 * field indexed, `a[index]`), parameters, `ctx.NAME`, `remaining`, `index` (the element being read),
 * `Enum.NAME` constants, integer literals and a few named functions. Parsed once, compiled to TypeScript.
 */

export type Expr = (
  | { kind: 'num'; value: number; text?: string }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'id'; name: string }
  | { kind: 'ctx'; name: string }
  | { kind: 'unary'; op: string; arg: Expr }
  | { kind: 'binary'; op: string; left: Expr; right: Expr }
  | { kind: 'cond'; test: Expr; then: Expr; else: Expr }
  | { kind: 'call'; fn: string; args: Expr[] }
  | { kind: 'index'; name: string; index: Expr }
) & {
  /** The expression as the schema wrote it (on the outermost node). */
  source?: string;
};

export class ExprError extends Error {}

const TOKEN = new RegExp(
  String.raw`\s*(0x[0-9a-fA-F]+|\d+|'[^']*'|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?` +
    String.raw`|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>?:(),[\]])`,
  'y',
);

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) throw new ExprError(`unexpected character at ${at}: '${src.slice(at).trim()[0]}'`);
    out.push(m[1]!);
  }
  return out;
}

/** Binding power of each binary operator: C's precedence order. */
const BINARY: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '|': 3,
  '^': 4,
  '&': 5,
  '==': 6,
  '!=': 6,
  '<': 7,
  '<=': 7,
  '>': 7,
  '>=': 7,
  '<<': 8,
  '>>': 8,
  '+': 9,
  '-': 9,
  '*': 10,
  '/': 10,
  '%': 10,
};

export function parseExpr(src: string | number | boolean): Expr {
  if (typeof src === 'number') return { kind: 'num', value: src };
  if (typeof src === 'boolean') return { kind: 'bool', value: src };
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const take = (want?: string): string => {
    const t = toks[i++];
    if (t === undefined) throw new ExprError('unexpected end of expression');
    if (want !== undefined && t !== want) throw new ExprError(`expected '${want}', found '${t}'`);
    return t;
  };

  function primary(): Expr {
    const t = take();
    if (t === '(') {
      const e = ternary();
      take(')');
      return e;
    }
    if (t === '-' || t === '!' || t === '~') return { kind: 'unary', op: t, arg: primary() };
    if (/^(0x|\d)/.test(t)) return { kind: 'num', value: Number(t), text: t };
    if (t.startsWith("'")) return { kind: 'str', value: t.slice(1, -1) };
    if (t === 'true' || t === 'false') return { kind: 'bool', value: t === 'true' };
    if (/^[A-Za-z_]/.test(t)) {
      if (t.startsWith('ctx.')) return { kind: 'ctx', name: t.slice(4) };
      if (peek() === '(') {
        take('(');
        const args: Expr[] = [];
        while (peek() !== ')') {
          args.push(ternary());
          if (peek() === ',') take(',');
        }
        take(')');
        return { kind: 'call', fn: t, args };
      }
      if (peek() === '[') {
        take('[');
        const index = ternary();
        take(']');
        return { kind: 'index', name: t, index };
      }
      return { kind: 'id', name: t };
    }
    throw new ExprError(`unexpected '${t}'`);
  }

  function binary(minPower: number): Expr {
    let left = primary();
    for (;;) {
      const op = peek();
      const power = op === undefined ? undefined : BINARY[op];
      if (power === undefined || power < minPower) return left;
      take();
      left = { kind: 'binary', op: op!, left, right: binary(power + 1) };
    }
  }

  function ternary(): Expr {
    const test = binary(1);
    if (peek() !== '?') return test;
    take('?');
    const then = ternary();
    take(':');
    return { kind: 'cond', test, then, else: ternary() };
  }

  const e = ternary();
  if (i < toks.length) throw new ExprError(`unexpected '${toks[i]}' after the expression`);
  return { ...e, source: src.trim() };
}

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'unary':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'cond':
      return [e.test, e.then, e.else];
    case 'call':
      return e.args;
    case 'index':
      return [e.index];
    default:
      return [];
  }
}

function collect(e: Expr, kind: 'id' | 'ctx', out: string[]): string[] {
  if (e.kind === kind || (kind === 'id' && e.kind === 'index')) out.push((e as { name: string }).name);
  for (const child of children(e)) collect(child, kind, out);
  return out;
}

/** Every field or parameter name the expression reads. */
export function identifiers(e: Expr): string[] {
  return collect(e, 'id', []);
}

/** Identifiers that stand directly as a function's arguments (where any value type may go). */
export function callArguments(e: Expr, out: string[] = []): string[] {
  if (e.kind === 'call') for (const a of e.args) if (a.kind === 'id') out.push(a.name);
  for (const child of children(e)) callArguments(child, out);
  return out;
}

/** The array fields the expression indexes (`a[i]`). */
export function indexed(e: Expr, out: string[] = []): string[] {
  if (e.kind === 'index') out.push(e.name);
  for (const child of children(e)) indexed(child, out);
  return out;
}

/** Every function call in the expression, nested ones included. */
export function calls(e: Expr, out: Extract<Expr, { kind: 'call' }>[] = []): Extract<Expr, { kind: 'call' }>[] {
  if (e.kind === 'call') out.push(e);
  for (const child of children(e)) calls(child, out);
  return out;
}

/** Every context name (`ctx.NAME`) the expression reads. */
export function contextNames(e: Expr): string[] {
  return collect(e, 'ctx', []);
}

/** TypeScript for the expression; `name` maps a field or parameter to the code that reads it. */
export function compileExpr(e: Expr, name: (id: string) => string): string {
  const c = (x: Expr) => compileExpr(x, name);
  switch (e.kind) {
    case 'num':
      return e.text ?? String(e.value);
    case 'str':
      return JSON.stringify(e.value);
    case 'bool':
      return String(e.value);
    case 'id':
      return name(e.name);
    case 'ctx':
      return `ctx.${e.name}`;
    case 'unary':
      return `${e.op}${wrap(e.arg, c)}`;
    case 'binary': {
      // Integer division, as the specification's C arithmetic means it.
      if (e.op === '/') return `Math.floor(${wrap(e.left, c)} / ${wrap(e.right, c)})`;
      const op = e.op === '==' ? '===' : e.op === '!=' ? '!==' : e.op;
      return `${wrap(e.left, c)} ${op} ${wrap(e.right, c)}`;
    }
    case 'cond':
      return `(${c(e.test)} ? ${c(e.then)} : ${c(e.else)})`;
    case 'call':
      return `${e.fn}(${e.args.map(c).join(', ')})`;
    case 'index':
      return `${name(`${e.name}[]`)}[${c(e.index)}]!`;
  }
}

function wrap(e: Expr, c: (x: Expr) => string): string {
  return e.kind === 'binary' || e.kind === 'cond' ? `(${c(e)})` : c(e);
}

/**
 * The value of an expression the generator can know: `value` gives each name's (`ctx.NAME` as
 * `ctx.NAME`, `Enum.NAME` as itself), or undefined for one it cannot know, and then so is the whole.
 */
export function evaluateExpr(
  e: Expr,
  value: (id: string) => number | boolean | undefined,
): number | boolean | undefined {
  const v = (x: Expr) => evaluateExpr(x, value);
  const n = (x: number | boolean) => Number(x);
  switch (e.kind) {
    case 'num':
    case 'bool':
      return e.value;
    case 'id':
      return value(e.name);
    case 'ctx':
      return value(`ctx.${e.name}`);
    case 'unary': {
      const a = v(e.arg);
      if (a === undefined) return undefined;
      return e.op === '!' ? !a : e.op === '-' ? -n(a) : ~n(a);
    }
    case 'binary': {
      const [a, b] = [v(e.left), v(e.right)];
      if (a === undefined || b === undefined) return undefined;
      return binaryValue(e.op, n(a), n(b));
    }
    case 'cond': {
      const test = v(e.test);
      return test === undefined ? undefined : v(test ? e.then : e.else);
    }
    default:
      return undefined;
  }
}

/** A binary operator on known operands, with C's integer meaning (division rounds down, as compiled). */
function binaryValue(op: string, a: number, b: number): number | boolean {
  const ops: Record<string, () => number | boolean> = {
    '||': () => !!a || !!b,
    '&&': () => !!a && !!b,
    '|': () => a | b,
    '^': () => a ^ b,
    '&': () => a & b,
    '==': () => a === b,
    '!=': () => a !== b,
    '<': () => a < b,
    '<=': () => a <= b,
    '>': () => a > b,
    '>=': () => a >= b,
    '<<': () => a << b,
    '>>': () => a >> b,
    '+': () => a + b,
    '-': () => a - b,
    '*': () => a * b,
    '/': () => Math.floor(a / b),
    '%': () => a % b,
  };
  return ops[op]!();
}
