/**
 * The layout is the architecture: docs/architecture.md's layer table, held against the source's imports.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importCircles,
  importGraph,
  importsOf,
  packagesOf,
  parseLayers,
  siblingImports,
  sourceFiles,
  unplacedFolders,
  upwardImports,
  type ImportGraph,
} from './support/layers.js';

const ROOT = join(import.meta.dirname, '..');
const layers = parseLayers(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
/**
 * A file longer than this does more than one job (issue 12); a table of facts belongs in schemas/. The
 * bound was 600 lines of a hand-kept layout; Prettier's, at 120 columns, lays the same code out in about a
 * fifth more lines.
 */
const MAX_LINES = 700;
/** Folders outside the layers: they may use any layer, and no layer uses them. */
const OUTSIDE = ['test', 'bench', 'scripts', 'generator', 'node_modules', 'dist', 'schemas', 'docs'];

describe('the layers of docs/architecture.md', () => {
  const graph = importGraph(ROOT, sourceFiles(ROOT, [...layers.map((l) => l.path), 'generator/']));

  it('are read from the table: core first, the entry points last', () => {
    expect(layers.map((l) => l.path).slice(0, 3)).toEqual(['runtime/core/', 'generated/', 'runtime/values/']);
    expect(layers.at(-1)).toEqual({ rank: 10, path: 'index.ts' });
    expect(graph.size).toBeGreaterThan(40);
  });

  it('hold every folder of source code', () => {
    expect(unplacedFolders(ROOT, layers, OUTSIDE)).toEqual([]);
  });

  it('are never imported upwards', () => {
    expect(upwardImports(layers, graph)).toEqual([]);
  });

  it('hold the capabilities side by side, above protocol/, none importing another', () => {
    const capabilities = layers
      .filter((l) => l.rank === layers.find((c) => c.path === 'replication/')!.rank)
      .map((l) => l.path);
    expect(capabilities.sort()).toEqual(['builder/', 'replication/', 'server/', 'sinks/', 'snapshot/', 'tools/']);
    expect(layers.find((l) => l.path === 'protocol/')!.rank).toBe(
      layers.find((l) => l.path === 'replication/')!.rank - 1,
    );
    expect(siblingImports(layers, graph)).toEqual([]);
  });

  it('name the files of protocol/ and the capabilities each once, so that a name says which side a file serves', () => {
    const files = sourceFiles(ROOT, ['protocol/', 'builder/', 'replication/', 'server/', 'sinks/', 'tools/']);
    const shared = files.filter((f, i) => files.findIndex((g) => basename(g) === basename(f)) !== i);
    expect(shared).toEqual([]);
  });

  it('reach mysql2 only through protocol/mysql2-adapter.ts', () => {
    const importers = sourceFiles(
      ROOT,
      layers.map((l) => l.path),
    ).filter((f) => packagesOf(readFileSync(join(ROOT, f), 'utf8')).includes('mysql2'));
    expect(importers).toEqual(['protocol/mysql2-adapter.ts']);
  });

  it('have no import circle, the generator included', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('are made of files of at most 700 lines, in the runtime, the builder and the generator', () => {
    const long = sourceFiles(ROOT, ['runtime/', 'builder/', 'generator/'])
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });

  it('make no code from text at run time: no eval, no new Function, in any layer', () => {
    // A host that forbids eval (a browser under CSP, some workers) must run every layer as it is.
    const made = /\beval\s*\(|\bnew\s+Function\b|(?<![\w.])Function\s*\(/;
    const files = sourceFiles(
      ROOT,
      layers.map((l) => l.path),
    );
    expect(files.filter((f) => f.startsWith('runtime/')).length).toBeGreaterThan(20);
    expect(files.filter((f) => f.startsWith('generated/')).length).toBeGreaterThan(10);
    expect(files.filter((f) => made.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('keep the generator apart from the runtime it generates for', () => {
    const reaches = [...graph]
      .filter(([f]) => f.startsWith('generator/'))
      .flatMap(([f, ts]) => ts.filter((t) => !t.startsWith('generator/')).map((t) => `${f} → ${t}`));
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
    expect(upwardImports(made, graph)).toEqual([
      'low/a.ts imports high/b.ts: layer 1 (low/) may not import layer 2 (high/)',
    ]);
  });

  it('names both files and both folders of an import between two folders of one layer', () => {
    const side: typeof layers = [...made, { rank: 2, path: 'side/' }];
    const graph: ImportGraph = new Map([
      ['high/a.ts', ['side/b.ts', 'low/c.ts']],
      ['side/b.ts', ['low/c.ts']],
      ['low/c.ts', []],
    ]);
    expect(siblingImports(side, graph)).toEqual([
      'high/a.ts imports side/b.ts: high/ and side/ are both of layer 2, and neither may import the other',
    ]);
  });

  it('reads the packages a file imports, built-ins and relative paths left out', () => {
    const source = [
      "import type { Connection } from 'mysql2';",
      "const { createServer } = await import('mysql2');",
      "import { once } from 'node:events';",
      "import { a } from './a.js';",
      "export { k } from '@nats-io/kv';",
    ].join('\n');
    expect(packagesOf(source)).toEqual(['mysql2', '@nats-io/kv']);
  });

  it('names the import that closes a circle, and the way round', () => {
    const graph: ImportGraph = new Map([
      ['high/a.ts', ['high/b.ts']],
      ['high/b.ts', ['high/c.ts']],
      ['high/c.ts', ['high/a.ts']],
    ]);
    expect(importCircles(graph)).toEqual([
      'high/c.ts imports high/a.ts, which closes a circle: high/a.ts → high/b.ts → high/c.ts → high/a.ts',
    ]);
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
