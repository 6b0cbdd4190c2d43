/** The IR from validated schema files: the passes, in the order that lets each rely on the ones before. */
import type { SchemaError, SchemaFile } from '../load.js';
import { resolveBinaryJson } from './binary-json.js';
import { resolveCells, resolveExterns } from './cells.js';
import { checkDerived, checkRest } from './checks.js';
import { declareNames, resolveLookups } from './declare.js';
import { resolveEvents } from './events.js';
import { lowerKey, lowerSizedList } from './lower.js';
import { resolveOldRowImages } from './old-row-images.js';
import { newPass, type Pass } from './pass.js';
import { rawFile } from './raw.js';
import { resolveStruct, type Hooks } from './resolve.js';
import { resolveServers } from './servers.js';
import { resolveRowImages } from './row-images.js';
import { checkElements } from './sizes.js';
import type { Ir } from './types.js';

export function buildIr(files: SchemaFile[]): { ir: Ir; errors: SchemaError[] } {
  const pass = newPass(files);
  declareNames(pass, files);
  resolveLookups(pass, files);
  const hooks = structHooks(pass);
  for (const file of files) {
    for (const [name, s] of Object.entries(rawFile(file).structs ?? {}))
      resolveStruct(pass, hooks, name, s, { file, path: ['structs', name] });
  }
  // Once every structure exists, sizes can be reckoned across references.
  for (const s of pass.ir.structs.values()) checkElements(pass, s, pass.origins.get(s.name)!);
  resolveEvents(pass, files);
  resolveExterns(pass, files);
  resolveCells(pass, files);
  resolveBinaryJson(pass, files);
  resolveRowImages(pass, files);
  resolveOldRowImages(pass, files);
  resolveServers(pass, files);
  return { ir: pass.ir, errors: pass.errors };
}

/** Each field lowered as soon as it is resolved; each struct lowered, then checked, as soon as its fields are. */
function structHooks(pass: Pass): Hooks {
  return {
    field: (field, raw, o, s) => lowerKey(pass, field, raw, o, s),
    struct: (s, o) => {
      lowerSizedList(pass, s, o);
      checkDerived(pass, s, o);
      checkRest(pass, s, o);
    },
  };
}
