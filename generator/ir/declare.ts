/**
 * The top-level declarations. Names come first, from every file, so that references may point forwards
 * and across files; lookups, keyed by enum names, are resolved once every enum is known.
 */
import type { SchemaFile } from '../load.js';
import type { Origin, Pass } from './pass.js';
import { rawFile } from './raw.js';
import type { IrLookup } from './types.js';

/** Enums, flags, context values, constants and struct names (structs are resolved later, by name). */
export function declareNames(pass: Pass, files: SchemaFile[]): void {
  const { ir, origins, fail } = pass;
  for (const file of files) {
    const raw = rawFile(file);
    const top: Origin = { file, path: [] };
    for (const [kind, map] of [
      ['enums', ir.enums],
      ['flags', ir.flags],
    ] as const) {
      for (const [name, e] of Object.entries(raw[kind] ?? {})) {
        if (ir.enums.has(name) || ir.flags.has(name) || origins.has(name))
          fail(top, [kind, name], `'${name}' is defined twice`);
        map.set(name, { name, doc: e.doc, values: Object.entries(e.values), module: file.module });
      }
    }
    for (const [name, p] of Object.entries(raw.context ?? {})) ir.context.push({ name, ...p });
    for (const [name, c] of Object.entries(raw.constants ?? {})) ir.constants.push({ name, ...c, module: file.module });
    for (const name of Object.keys(raw.structs ?? {})) {
      if (origins.has(name) || ir.enums.has(name) || ir.flags.has(name))
        fail(top, ['structs', name], `'${name}' is defined twice`);
      origins.set(name, { file, path: ['structs', name] });
    }
  }
}

/** Lookup tables: each key an enum's name, or a number or a range of numbers `a-b`. */
export function resolveLookups(pass: Pass, files: SchemaFile[]): void {
  for (const file of files) {
    for (const [name, l] of Object.entries(rawFile(file).lookups ?? {})) {
      const o: Origin = { file, path: ['lookups', name] };
      const keyEnum = l.key === 'number' ? undefined : pass.ir.enums.get(l.key);
      if (l.key !== 'number' && !keyEnum) pass.fail(o, ['key'], `unknown enum '${l.key}'`);
      const entries: IrLookup['entries'] = [];
      for (const [k, v] of Object.entries(l.values)) {
        const range = /^(\d+)(?:-(\d+))?$/.exec(k);
        const code = keyEnum ? keyEnum.values.find(([n]) => n === k)?.[1] : range ? Number(range[1]) : undefined;
        if (code === undefined)
          pass.fail(
            o,
            ['values', k],
            keyEnum ? `'${k}' is not a name of '${l.key}'` : `'${k}' is not a number or a range a-b`,
          );
        else entries.push([code, range?.[2] ? Number(range[2]) : code, keyEnum ? k : undefined, v]);
      }
      pass.ir.lookups.push({ name, doc: l.doc, key: keyEnum?.name, entries, module: file.module });
    }
  }
}
