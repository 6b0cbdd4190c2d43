/** The pipeline: load → validate → IR → emit. Returns the files to write, or every schema error found. */

/**
 * What `npm run generate` writes: the format's codecs and their event reference (the generated section
 * of `reference`), and the codecs of the language-feature tests.
 */
export const TARGETS = [
  { schemas: 'schemas', out: 'generated', runtime: '../runtime', reference: 'docs/events.md' },
  {
    schemas: 'test/features/schemas',
    out: 'test/features/generated',
    runtime: '../../../runtime',
    reference: undefined,
  },
] as const;
import { buildIr } from './ir/build.js';
import type { Ir } from './ir/types.js';
import { emit } from './emit/assemble.js';
import type { EmittedFile } from './emit/print.js';
import { loadSchemaDir, loadSchemaFile, SchemaError, type SchemaFile } from './load.js';
import { validateFile } from './validate.js';

export type Generated = { ok: true; files: EmittedFile[]; ir: Ir } | { ok: false; errors: SchemaError[] };

export function generate(schemaDir: string, runtimeDir?: string): Generated {
  return generateFrom(() => loadSchemaDir(schemaDir), runtimeDir);
}

/** The same for a given list of schema files (the broken-schema tests load one at a time). */
export function generateFiles(paths: string[]): Generated {
  return generateFrom(() => paths.map((p) => loadSchemaFile(p)));
}

function generateFrom(load: () => SchemaFile[], runtimeDir?: string): Generated {
  let files: SchemaFile[];
  try {
    files = load();
  } catch (e) {
    if (e instanceof SchemaError) return { ok: false, errors: [e] };
    throw e;
  }
  const invalid = files.flatMap(validateFile);
  if (invalid.length) return { ok: false, errors: invalid };
  const { ir, errors } = buildIr(files);
  if (errors.length) return { ok: false, errors };
  const sources = new Map(files.map((f) => [f.module, f.file]));
  return { ok: true, ir, files: emit(ir, (m) => sources.get(m) ?? m, runtimeDir) };
}
