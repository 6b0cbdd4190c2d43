/** Reads schema files, keeping every node's source position so that errors can point at a line. */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';

export type YamlPath = (string | number)[];

export interface SchemaFile {
  /** Path as shown in errors, relative to the working directory. */
  file: string;
  /** Module name of the generated file: the schema's base name. */
  module: string;
  data: unknown;
  doc: Document;
  lines: LineCounter;
}

/** A problem in a schema, named by file, YAML path and, where known, line and column. */
export class SchemaError extends Error {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly problem: string,
    readonly line?: number,
    readonly col?: number,
  ) {
    super(`${file}${line !== undefined ? `:${line}:${col}` : ''}: ${path || '/'}: ${problem}`);
  }
}

/** `/structs/QueryEvent/fields/3/size`: the JSON-pointer form every error uses. */
export function pointer(path: YamlPath): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function schemaError(file: SchemaFile, path: YamlPath, problem: string): SchemaError {
  let node = file.doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
  // A missing key points at its parent, which is where the fix goes.
  for (let up = path.length - 1; !node?.range && up >= 0; up--) {
    node = file.doc.getIn(path.slice(0, up), true) as typeof node;
  }
  const at = node?.range ? file.lines.linePos(node.range[0]) : undefined;
  return new SchemaError(file.file, pointer(path), problem, at?.line, at?.col);
}

export function loadSchemaFile(path: string, shownAs = relative(process.cwd(), path)): SchemaFile {
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(path, 'utf8'), { lineCounter: lines, uniqueKeys: true });
  const file: SchemaFile = { file: shownAs, module: moduleName(path), data: undefined, doc, lines };
  const bad = doc.errors[0];
  if (bad) {
    const at = lines.linePos(bad.pos[0]);
    throw new SchemaError(
      shownAs,
      '',
      `YAML: ${bad.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      at.line,
      at.col,
    );
  }
  file.data = doc.toJS();
  return file;
}

export function loadSchemaDir(dir: string): SchemaFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => loadSchemaFile(join(dir, f)));
}

function moduleName(path: string): string {
  return path.replace(/^.*\//, '').replace(/\.yaml$/, '');
}
