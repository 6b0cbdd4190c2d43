/** The pipeline: load → validate → IR → emit. Returns the files to write, or every schema error found. */
import { buildIr, type Ir } from './ir.js';
import { emit, type EmittedFile } from './emit.js';
import { loadSchemaDir, SchemaError } from './load.js';
import { validateFile } from './validate.js';

export type Generated = { ok: true; files: EmittedFile[]; ir: Ir } | { ok: false; errors: SchemaError[] };

export function generate(schemaDir: string): Generated {
  let files;
  try {
    files = loadSchemaDir(schemaDir);
  } catch (e) {
    if (e instanceof SchemaError) return { ok: false, errors: [e] };
    throw e;
  }
  const invalid = files.flatMap(validateFile);
  if (invalid.length) return { ok: false, errors: invalid };
  const { ir, errors } = buildIr(files);
  if (errors.length) return { ok: false, errors };
  const sources = new Map(files.map((f) => [f.module, f.file]));
  return { ok: true, ir, files: emit(ir, (m) => sources.get(m) ?? m) };
}
