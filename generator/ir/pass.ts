/** What every pass over the schemas shares: the IR built so far, where each struct came from, and the errors. */
import { schemaError, type SchemaError, type SchemaFile, type YamlPath } from '../load.js';
import { rawFile, type RawFile } from './raw.js';
import { RESERVED_EVENT_KEYS, type Ir } from './types.js';

/** Where a struct or field came from, for errors. */
export interface Origin {
  file: SchemaFile;
  path: YamlPath;
}

export interface Pass {
  readonly ir: Ir;
  /** Every struct's origin, each declared before any is resolved, so that references may point forwards. */
  readonly origins: Map<string, Origin>;
  readonly errors: SchemaError[];
  /** Reports a problem at `path` below `o`; passes go on, so that one run reports every problem. */
  fail(o: Origin, path: YamlPath, problem: string): void;
}

export function newPass(files: SchemaFile[]): Pass {
  const errors: SchemaError[] = [];
  const ir: Ir = {
    structs: new Map(),
    enums: new Map(),
    flags: new Map(),
    context: [],
    constants: [],
    lookups: [],
    events: [],
    externs: [],
    cells: [],
    modules: files.map((f) => f.module),
    reservedEventKeys: RESERVED_EVENT_KEYS,
  };
  return {
    ir,
    origins: new Map(),
    errors,
    fail: (o, path, problem) => errors.push(schemaError(o.file, [...o.path, ...path], problem)),
  };
}

/** The origin of something at `path` below `o`. */
export function below(o: Origin, ...path: YamlPath): Origin {
  return { file: o.file, path: [...o.path, ...path] };
}

/**
 * A section a schema set has at most once (the code emitted from it is the set's only one): resolved where it is, a
 * second one refused.
 */
export function resolveSection<K extends 'binaryJson' | 'rowImages' | 'oldRowImages' | 'servers' | 'servedVariables'>(
  pass: Pass,
  files: SchemaFile[],
  key: K,
  what: string,
  resolve: (o: Origin, raw: NonNullable<RawFile[K]>, module: string) => Ir[K],
): void {
  for (const file of files) {
    const raw = rawFile(file)[key];
    if (!raw) continue;
    const o: Origin = { file, path: [key] };
    if (pass.ir[key]) pass.fail(o, [], `${key} is defined twice: one ${what} per schema set`);
    else pass.ir[key] = resolve(o, raw, file.module);
  }
}
