/**
 * The layout is the architecture: docs/architecture.md's layer table, held against the source's imports.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, importsOf, parseLayers, sourceFiles, unplacedFolders, upwardImports, type ImportGraph } from './support/layers.js';

const ROOT = join(import.meta.dirname, '..');
const layers = parseLayers(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
/** Folders outside the layers: they may use any layer, and no layer uses them. */
/** A file longer than this does more than one job (issue 12); a table of facts belongs in schemas/. */
const MAX_LINES = 600;
const OUTSIDE = ['test', 'bench', 'scripts', 'generator', 'node_modules', 'dist', 'schemas', 'docs'];

describe('the layers of docs/architecture.md', () => {
  const graph = importGraph(ROOT, sourceFiles(ROOT, [...layers.map((l) => l.path), 'generator/']));

  it('are read from the table: core first, the entry points last', () => {
    expect(layers.map((l) => l.path).slice(0, 3)).toEqual(['runtime/core/', 'generated/', 'runtime/values/']);
    expect(layers.at(-1)).toEqual({ rank: 9, path: 'index.ts' });
    expect(graph.size).toBeGreaterThan(40);
  });

  it('hold every folder of source code', () => {
    expect(unplacedFolders(ROOT, layers, OUTSIDE)).toEqual([]);
  });

  it('are never imported upwards', () => {
    expect(upwardImports(layers, graph)).toEqual([]);
  });

  it('have no import circle, the generator included', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('are made of files of at most 600 lines, in the runtime, the builder and the generator', () => {
    const long = sourceFiles(ROOT, ['runtime/', 'builder/', 'generator/'])
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });

  it('make no code from text at run time: no eval, no new Function, in any layer', () => {
    // A host that forbids eval (a browser under CSP, some workers) must run every layer as it is.
    const made = /\beval\s*\(|\bnew\s+Function\b|(?<![\w.])Function\s*\(/;
    const files = sourceFiles(ROOT, layers.map((l) => l.path));
    expect(files.filter((f) => f.startsWith('runtime/')).length).toBeGreaterThan(20);
    expect(files.filter((f) => f.startsWith('generated/')).length).toBeGreaterThan(10);
    expect(files.filter((f) => made.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('keep the generator apart from the runtime it generates for', () => {
    const reaches = [...graph].filter(([f]) => f.startsWith('generator/')).flatMap(([f, ts]) => ts.filter((t) => !t.startsWith('generator/')).map((t) => `${f} → ${t}`));
    expect(reaches).toEqual([]);
  });
});

describe('the layer check itself', () => {
  const made: typeof layers = [
    { rank: 1, path: 'low/' },
    { rank: 2, path: 'high/' },
  ];

  it('names both files and both layers of an import that runs up', () => {
    const graph: ImportGraph = new Map([
      ['low/a.ts', ['high/b.ts']],
      ['high/b.ts', []],
    ]);
    expect(upwardImports(made, graph)).toEqual(['low/a.ts imports high/b.ts: layer 1 (low/) may not import layer 2 (high/)']);
  });

  it('names the import that closes a circle, and the way round', () => {
    const graph: ImportGraph = new Map([
      ['high/a.ts', ['high/b.ts']],
      ['high/b.ts', ['high/c.ts']],
      ['high/c.ts', ['high/a.ts']],
    ]);
    expect(importCircles(graph)).toEqual(['high/c.ts imports high/a.ts, which closes a circle: high/a.ts → high/b.ts → high/c.ts → high/a.ts']);
  });

  it('reads static, type-only, re-exported and dynamic imports, and nothing else', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../up/b.js';",
      "export { c } from './c.js';",
      "const d = await import('./d.js');",
      "import { e } from 'node:fs';",
      "// a comment that says from './x.js' is not an import",
    ].join('\n');
    expect(importsOf('high/x.ts', source)).toEqual(['high/a.ts', 'up/b.ts', 'high/c.ts', 'high/d.ts']);
  });
});
