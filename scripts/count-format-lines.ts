/**
 * How much of the format is data (issues 13 and 38), as one figure: the format-rule lines of schemas/
 * against the code lines of every runtime module that still turns facts of the format into code.
 *   npx tsx scripts/count-format-lines.ts
 * YAML: schema lines that are neither blank, comments nor docs (a `doc:` key and its continuation
 * lines), the charset data tables left out (they are tables of code points, not rules).
 * TS: code lines (neither blank nor comments) of MODULES and of every module in MODULE_FOLDERS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const RUNTIME = join(ROOT, 'runtime');

/** Code points of the servers' charsets, not rules of the format. */
const CHARSET_TABLES = ['charset-tables.yaml', 'multibyte-charsets.yaml'];

/** The modules of the framing and of the state around the events, under runtime/. */
const MODULES = [
  'events/event-codec.ts', // framing: header, checksum, compression envelopes
  'events/binlog-encoder.ts', // which events an encoder groups into a transaction
  'events/format-state.ts', // the stream state events set
  'tables/registry.ts', // table ids and the TABLE_MAP each row event refers to
  'tables/sqltypes.ts', // SQL types and binlog types with their metadata
];

/** The folders under runtime/ that turn cells and row images into values and back: every module counts. */
const MODULE_FOLDERS = ['rows', 'values'];

/** Lines of a schema that are neither blank, comments nor part of a `doc:` value. */
export function yamlRuleLines(text: string): number {
  let count = 0;
  let docIndent = -1;
  for (const line of text.split('\n')) {
    const body = line.trim();
    const indent = line.length - line.trimStart().length;
    if (docIndent >= 0 && (body === '' || indent > docIndent)) continue;
    docIndent = -1;
    if (body === '' || body.startsWith('#')) continue;
    if (/^(- )?doc:/.test(body)) {
      docIndent = indent + (body.startsWith('- ') ? 2 : 0);
      continue;
    }
    count++;
  }
  return count;
}

/** Lines of a TypeScript module holding code: those of its tokens, comments and blank lines left out. */
export function tsCodeLines(text: string): number {
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.Latest, true);
  const code = new Set<number>();
  const walk = (n: ts.Node): void => {
    if (ts.isJSDoc(n)) return;
    const children = n.getChildren(sf);
    if (children.length > 0 || n.kind === ts.SyntaxKind.EndOfFileToken) return children.forEach(walk);
    // A token (a template's text among them) is code on every line it spans.
    const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
    const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
    for (let l = first; l <= last; l++) code.add(l);
  };
  walk(sf);
  return code.size;
}

function schemaLines(): number {
  const dir = join(ROOT, 'schemas');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !CHARSET_TABLES.includes(f));
  return files.reduce((n, f) => n + yamlRuleLines(readFileSync(join(dir, f), 'utf8')), 0);
}

/** The modules counted, as paths under runtime/. */
export function countedModules(): string[] {
  const inFolders = MODULE_FOLDERS.flatMap((dir) =>
    readdirSync(join(RUNTIME, dir))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${dir}/${f}`),
  );
  return [...MODULES, ...inFolders];
}

function moduleLines(modules: string[]): number {
  return modules.reduce((n, m) => n + tsCodeLines(readFileSync(join(RUNTIME, m), 'utf8')), 0);
}

// Run as a script, not when a test imports its counters.
if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const yaml = schemaLines();
  const code = moduleLines(countedModules());
  console.log(`schema rule lines (YAML): ${yaml}`);
  console.log(`runtime lines turning format facts into code (TS): ${code}`);
  console.log(`the format's rules in YAML: ${Math.round((100 * yaml) / (yaml + code))} %`);
}
