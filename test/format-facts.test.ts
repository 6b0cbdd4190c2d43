/**
 * Where the format's facts live (issue 13): the helpers the cells of schemas/cells.yaml and the row images
 * of rows.yaml take hold none. Every number literal in a module of runtime/values/ or runtime/rows/ must be
 * one scripts/format-modules.ts allows, with the reason it is no fact of the binlog, and every module of
 * those folders must be listed there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CellLayouts, FractionLayouts } from '../generated/columns.js';
import { JsonbCustomData } from '../generated/json-binary.js';
import { HELPERS, VALUE_FOLDERS } from '../scripts/format-modules.js';

const RUNTIME = join(import.meta.dirname, '..', 'runtime');

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
  it('every module of runtime/values/ and runtime/rows/ has its allowed literals listed', () => {
    const files = VALUE_FOLDERS.flatMap((dir) =>
      readdirSync(join(RUNTIME, dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`),
    );
    expect(files.sort()).toEqual(Object.keys(HELPERS).sort());
  });

  for (const [file, allowed] of Object.entries(HELPERS)) {
    it(`${file} holds no number but those it is allowed`, () => {
      expect(literals(join(RUNTIME, file)).filter((n) => !(n in allowed))).toEqual([]);
    });
  }

  it(
    'the schema gives a cell for each codec of CellLayouts (but DECIMAL and those of no ' +
      'value), FractionLayouts and JsonbCustomData, and the helpers it takes are its externs',
    () => {
      const cells = parse(readFileSync(join(import.meta.dirname, '..', 'schemas', 'cells.yaml'), 'utf8'));
      const codecs = new Set(
        [...Object.values(CellLayouts), ...Object.values(FractionLayouts), ...Object.values(JsonbCustomData)].map(
          (l) => l.codec,
        ),
      );
      expect(Object.keys(cells.cells).sort()).toEqual(
        [...codecs].filter((c) => !['newdecimal', 'null', 'unsupported'].includes(c)).sort(),
      );
      const wired = readFileSync(join(RUNTIME, 'values', 'cells.ts'), 'utf8');
      for (const name of Object.keys(cells.externs)) expect(wired).toMatch(new RegExp(`\\b${name}\\b`));
    },
  );
});
