/**
 * The layer rule of docs/architecture.md, checked over the source's relative imports: each file imports
 * only from its own layer or lower ones, and no files import each other in a circle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

export interface Layer {
  rank: number;
  /** A folder (ending in /) or a file, relative to the repository. */
  path: string;
}

/** file → the files it imports, all relative to the repository. */
export type ImportGraph = Map<string, string[]>;

/** The layers table of docs/architecture.md: rows `| rank | \`path\` | … |`. */
export function parseLayers(markdown: string): Layer[] {
  const rows = [...markdown.matchAll(/^\| (\d+) \| `([^`]+)` \|/gm)];
  return rows.map((m) => ({ rank: Number(m[1]), path: m[2]! }));
}

export function layerOf(layers: Layer[], file: string): Layer | undefined {
  return layers.find((l) => (l.path.endsWith('/') ? file.startsWith(l.path) : file === l.path));
}

const SPECIFIER = new RegExp(
  [
    /(?:^|[\s;}])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/.source,
    /import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/.source,
    /^import\s+['"](\.{1,2}\/[^'"]+)['"]/.source,
  ].join('|'),
  'gm',
);

/** The repository files a source file imports (static, type-only, re-exports and literal import() alike). */
export function importsOf(file: string, source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    out.add(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
  }
  return [...out];
}

/** Every .ts file under the given paths (folders walked, files taken as they are). */
export function sourceFiles(root: string, paths: string[]): string[] {
  const walk = (rel: string): string[] => {
    const full = join(root, rel);
    if (!statSync(full, { throwIfNoEntry: false })) return [];
    if (!statSync(full).isDirectory()) return rel.endsWith('.ts') ? [rel] : [];
    return readdirSync(full).flatMap((name) => walk(join(rel, name)));
  };
  return paths.flatMap((p) => walk(p.replace(/\/$/, '')));
}

export function importGraph(root: string, files: string[]): ImportGraph {
  return new Map(files.map((f) => [f, importsOf(f, readFileSync(join(root, f), 'utf8'))]));
}

/** Imports that run up a layer, each naming both files and both layers. */
export function upwardImports(layers: Layer[], graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(layers, file);
    if (!from) continue;
    for (const target of targets) {
      const to = layerOf(layers, target);
      if (to && to.rank > from.rank) {
        problems.push(
          `${file} imports ${target}: layer ${from.rank} (${from.path}) may not import layer ${to.rank} (${to.path})`,
        );
      }
    }
  }
  return problems;
}

/**
 * Imports from one folder of a layer into another folder of the same layer (two capabilities), each
 * naming both files and both folders: siblings share only what a layer below them holds.
 */
export function siblingImports(layers: Layer[], graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(layers, file);
    if (!from) continue;
    for (const target of targets) {
      const to = layerOf(layers, target);
      if (to && to.rank === from.rank && to.path !== from.path) {
        problems.push(
          `${file} imports ${target}: ${from.path} and ${to.path} are both of layer ${from.rank}, ` +
            `and neither may import the other`,
        );
      }
    }
  }
  return problems;
}

/**
 * The packages a source file imports by name (static, type-only, re-exports and literal import() alike), node:
 * built-ins left out.
 */
export function packagesOf(source: string): string[] {
  const names = [
    ...source.matchAll(
      /(?:^|[\s;}])(?:import|export)\s[^'"]*?from\s*['"]([^.'"][^'"]*)['"]|import\s*\(\s*['"]([^.'"][^'"]*)['"]\s*\)/gm,
    ),
  ].map((m) => (m[1] ?? m[2])!);
  return [...new Set(names.filter((n) => !n.startsWith('node:')))];
}

/** Each circle of imports, as the file that closes it, the file it imports, and the whole way round. */
export function importCircles(graph: ImportGraph): string[] {
  const problems: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (state.get(target) === 'open') {
        const way = [...stack.slice(stack.indexOf(target)), target];
        problems.push(`${file} imports ${target}, which closes a circle: ${way.join(' → ')}`);
      } else if (!state.has(target)) {
        visit(target);
      }
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return problems;
}

/** Top-level folders with TypeScript that belong to no layer and are not among those standing outside. */
export function unplacedFolders(root: string, layers: Layer[], outside: string[]): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && !outside.includes(d.name))
    .map((d) => d.name)
    .filter((name) => sourceFiles(root, [name]).some((f) => !layerOf(layers, f)))
    .map((name) => relative(root, join(root, name)));
}
