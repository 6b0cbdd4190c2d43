/**
 * Where the format's facts live (issue 13): the helpers the cells of schemas/cells.yaml take hold none.
 * Every number literal in a helper module must be one this list allows, with the reason it is no fact of
 * the binlog; a module of runtime/values/ is either such a helper or named below as still holding facts
 * of its own, so that a new one is placed knowingly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CellLayouts, FractionLayouts } from '../generated/columns.js';
import { JsonbCustomData } from '../generated/json-binary.js';

const VALUES = join(import.meta.dirname, '..', 'runtime', 'values');

/** The text 'YYYY-MM-DD hh:mm:ss.ffffff': its character positions and lengths, and ASCII. */
const DATETIME_TEXT = ['1', '2', '3', '4', '5', '7', '8', '11', '13', '14', '16', '17', '19', '20'];
const ASCII = { '0x30': "'0'", '0x2d': "'-'", '0x20': "' '", '0x3a': "':'", '0x2e': "'.'", '0x22': 'a JSON string\'s quote' };

/** Per helper module, the number literals it may hold and why. */
const HELPERS: Record<string, Record<string, string>> = {
  'temporal.ts': {
    ...Object.fromEntries(DATETIME_TEXT.map((n) => [n, 'a position or a length in the datetime text'])),
    ...ASCII,
    '0': 'zero',
    '6': 'the six digits of microseconds',
    '10': 'decimal digits',
    '100': 'two decimal digits',
    '10000': 'four decimal digits',
    '1000': 'milliseconds per second (Date)',
    '12': 'the months of a year',
    '31': 'the most days a month has',
    '23': 'the last hour of a day',
    '59': 'the last minute of an hour and second of a minute',
    '28': "the bytes of a datetime's text as a JSON string, its quotes with it",
  },
  'numbers.ts': {
    '0': 'zero',
    '1': 'the fewest digits tried',
    '10': 'past the 9 digits a float32 needs',
    '8': 'bits in a byte',
    '0n': 'zero',
    '1n': 'one bit',
    '2': 'log2 of the bytes of an IEEE 754 float32',
    '4': 'the bytes of an IEEE 754 float32',
  },
  'bits-and-sets.ts': { '0': 'zero', '1': '1-based member indexes', '0n': 'no bits', '1n': 'one bit', '6': 'bytes a JavaScript number holds exactly' },
  'digits.ts': { '0x30': "'0'", '0': 'zero', '1': 'one', '9': 'the last decimal digit', '10': 'decimal digits' },
  'decimal.ts': {
    '0': 'zero',
    '1': 'one',
    '2': 'the groups a whole part of at most 15 digits takes',
    '8': 'bits in a byte',
    '10': 'decimal digits',
    '15': 'the decimal digits a double holds exactly',
    '256': 'the values of a byte',
    '0x2d': ASCII['0x2d'],
    '0x30': ASCII['0x30'],
  },
  // MariaDB's column compression is core/compression.ts's.
  'strings.ts': { '0': 'zero', '1': 'one' },
  'cells.ts': {},
  'cell-codec.ts': {},
  'column.ts': {},
  // The JSON column's blob is cells.yaml's, the diffs' layout rows.yaml's JsonDiffs: documents and text are left here.
  'json-cells.ts': { '0': 'zero: an empty blob (what NULL leaves), bytes read from their start' },
};

/** Modules that still hold facts of the format, the variable-length values not yet in schemas/cells.yaml. */
const STILL_FACTS: Record<string, string> = {
  'binary-json.ts': "binary JSON's Json_decimal custom data: its precision and scale bytes before decimal2bin's (the grammar is schemas/json-binary.yaml's, the packed temporals cells.yaml's)",
  'charsets.ts': 'the charsets beyond the tables of schemas/charset-tables.yaml',
};

function literals(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Set<string>();
  const walk = (n: ts.Node): void => {
    if (ts.isNumericLiteral(n) || ts.isBigIntLiteral(n)) out.add(n.getText());
    n.forEachChild(walk);
  };
  walk(sf);
  return [...out];
}

describe('the format facts live in the schemas', () => {
  it('every module of runtime/values/ is a helper or named as still holding facts', () => {
    const files = readdirSync(VALUES).filter((f) => f.endsWith('.ts')).sort();
    expect(files).toEqual([...Object.keys(HELPERS), ...Object.keys(STILL_FACTS)].sort());
  });

  for (const [file, allowed] of Object.entries(HELPERS)) {
    it(`${file} holds no number but those it is allowed`, () => {
      expect(literals(join(VALUES, file)).filter((n) => !(n in allowed))).toEqual([]);
    });
  }

  it('the schema gives a cell for each codec of CellLayouts (but DECIMAL and those of no value), FractionLayouts and JsonbCustomData, and the helpers it takes are its externs', () => {
    const cells = parse(readFileSync(join(import.meta.dirname, '..', 'schemas', 'cells.yaml'), 'utf8'));
    const codecs = new Set([...Object.values(CellLayouts), ...Object.values(FractionLayouts), ...Object.values(JsonbCustomData)].map((l) => l.codec));
    expect(Object.keys(cells.cells).sort()).toEqual([...codecs].filter((c) => !['newdecimal', 'null', 'unsupported'].includes(c)).sort());
    const wired = readFileSync(join(VALUES, 'cells.ts'), 'utf8');
    for (const name of Object.keys(cells.externs)) expect(wired).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
