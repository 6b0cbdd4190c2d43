/**
 * A column type as CREATE TABLE writes it ('int(11) unsigned zerofill', "enum('a','b') character set
 * latin1", 'double precision not null'), read into its name, parameters and attributes. What the name and
 * parameters mean is runtime/tables/sqltypes.ts's business.
 */

export interface ParsedType {
  /** Lower case, as schemas/sqltypes.yaml's SqlType names it. */
  name: string;
  args: (number | string)[] | undefined;
  unsigned?: boolean;
  zerofill?: boolean;
  charset?: string;
  collation?: string;
  nullable?: boolean;
}

/** Reads a column type as CREATE TABLE writes it; `fail` throws with the problem. */
export function parseType(text: string, fail: (p: string) => never): ParsedType {
  const at = new Cursor(text, fail);
  const name = at.word();
  if (!name) return fail(`'${text}' is not a column type`);
  // DOUBLE PRECISION is DOUBLE.
  if (name === 'double') at.optionalWord('precision');
  const parsed: ParsedType = { name, args: at.parameters() };
  at.attributes(parsed);
  at.end();
  return parsed;
}

/** A position in a type's text and the readers of its parts. */
class Cursor {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly fail: (p: string) => never,
  ) {}

  private skipSpace(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }

  /** The next word, lower case (undefined, and nothing read, when none is next). */
  word(): string | undefined {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.i));
    if (!m) return undefined;
    this.i += m[0].length;
    return m[0].toLowerCase();
  }

  /** Reads `expected` if it is the next word. */
  optionalWord(expected: string): void {
    const save = this.i;
    if (this.word() !== expected) this.i = save;
  }

  /** `(1, 'a', …)`: numbers and quoted strings; undefined without parentheses. */
  parameters(): (number | string)[] | undefined {
    const { text } = this;
    this.skipSpace();
    if (text[this.i] !== '(') return undefined;
    this.i++;
    const args: (number | string)[] = [];
    this.skipSpace();
    if (text[this.i] === ')') {
      this.i++;
      return args;
    }
    for (;;) {
      this.skipSpace();
      args.push(text[this.i] === "'" || text[this.i] === '"' ? this.quoted() : this.number());
      this.skipSpace();
      const next = text[this.i++];
      if (next === ')') return args;
      if (next !== ',') return this.fail(`expected ',' or ')' in '${text}'`);
    }
  }

  /** A quoted string, its quote doubled or escaped by a backslash inside. */
  private quoted(): string {
    const { text } = this;
    const quote = text[this.i]!;
    let s = '';
    for (this.i++; ; this.i++) {
      if (this.i >= text.length) return this.fail(`unterminated string in '${text}'`);
      const ch = text[this.i]!;
      if (ch === '\\' && this.i + 1 < text.length) s += unescape(text[++this.i]!);
      else if (ch === quote && text[this.i + 1] === quote) ((s += quote), this.i++);
      else if (ch === quote) break;
      else s += ch;
    }
    this.i++;
    return s;
  }

  private number(): number {
    const m = /^\d+/.exec(this.text.slice(this.i));
    if (!m)
      return this.fail(`unexpected '${this.text.slice(this.i, this.i + 10)}' in the parameters of '${this.text}'`);
    this.i += m[0].length;
    return Number(m[0]);
  }

  /** UNSIGNED, SIGNED, ZEROFILL, CHARACTER SET (CHARSET) x, COLLATE x, NULL and NOT NULL, into `parsed`. */
  attributes(parsed: ParsedType): void {
    const { text, fail } = this;
    for (let w = this.word(); w !== undefined; w = this.word()) {
      if (w === 'unsigned') parsed.unsigned = true;
      else if (w === 'signed') parsed.unsigned = false;
      else if (w === 'zerofill') ((parsed.zerofill = true), (parsed.unsigned = true));
      else if (w === 'character' || w === 'charset') {
        if (w === 'character' && this.word() !== 'set') return fail(`expected CHARACTER SET in '${text}'`);
        parsed.charset = this.word() ?? fail(`CHARACTER SET without a name in '${text}'`);
      } else if (w === 'collate') parsed.collation = this.word() ?? fail(`COLLATE without a name in '${text}'`);
      else if (w === 'null') parsed.nullable = true;
      else if (w === 'not') {
        if (this.word() !== 'null') return fail(`expected NOT NULL in '${text}'`);
        parsed.nullable = false;
      } else return fail(`unexpected '${w}' in '${text}'`);
    }
  }

  /** Refuses what is left after the type. */
  end(): void {
    this.skipSpace();
    if (this.i < this.text.length) this.fail(`unexpected '${this.text.slice(this.i)}' in '${this.text}'`);
  }
}

/** The character a backslash escape in a quoted string stands for. */
function unescape(ch: string): string {
  return ({ n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' } as Record<string, string>)[ch] ?? ch;
}
