/**
 * One generated module as the emitters see it: the names it takes from the runtime and from the other
 * modules, recorded as they are used, so that it imports exactly those.
 */
import { StructureKind, type SourceFile } from 'ts-morph';
import type { Ir, IrStruct } from '../ir/types.js';
import { runtimeModule, type RuntimeName, type RuntimeType } from './runtime-names.js';

export class Module {
  readonly runtime = new Set<RuntimeName>();
  readonly runtimeTypes = new Set<RuntimeType>();
  readonly imports = new Map<string, Set<string>>();
  readonly typeImports = new Map<string, Set<string>>();

  constructor(
    readonly name: string,
    readonly ir: Ir,
  ) {}

  rt(name: RuntimeName): string {
    this.runtime.add(name);
    return name;
  }

  rtType(name: RuntimeType): string {
    this.runtimeTypes.add(name);
    return name;
  }

  /** A name defined by another schema module (or this one). */
  use(name: string, module: string, typeOnly: boolean): string {
    if (module === this.name) return name;
    const map = typeOnly ? this.typeImports : this.imports;
    if (!map.has(module)) map.set(module, new Set());
    map.get(module)!.add(name);
    return name;
  }

  struct(name: string): IrStruct {
    return this.ir.structs.get(name)!;
  }

  structFn(prefix: 'decode' | 'encode', name: string): string {
    return this.use(`${prefix}${name}`, this.struct(name).module, false);
  }

  /** The converter from a struct's JSON form to its encoder input. */
  structFromJson(name: string): string {
    return this.use(`${name}FromJson`, this.struct(name).module, false);
  }

  structType(name: string, input: boolean): string {
    return this.use(input ? `${name}Input` : name, this.struct(name).module, true);
  }

  enumRef(name: string, suffix: '' | 'Name' | 'Names', typeOnly: boolean): string {
    return this.use(`${name}${suffix}`, this.ir.enums.get(name)!.module, typeOnly);
  }

  context(): string {
    return this.use('Context', 'context', true);
  }
}

/** The module's imports, one declaration per file in path order, each file's names sorted. */
export function addImports(sf: SourceFile, m: Module, runtimeDir: string): void {
  const byFile = new Map<string, { values: Set<string>; types: Set<string> }>();
  const at = (file: string) => byFile.get(file) ?? byFile.set(file, { values: new Set(), types: new Set() }).get(file)!;
  for (const name of m.runtime) at(runtimeModule(runtimeDir, name)).values.add(name);
  for (const name of m.runtimeTypes) at(runtimeModule(runtimeDir, name)).types.add(name);
  for (const [mod, names] of m.imports) names.forEach((n) => at(`./${mod}.js`).values.add(n));
  for (const [mod, names] of m.typeImports) names.forEach((n) => at(`./${mod}.js`).types.add(n));
  const files = [...byFile.keys()].sort();
  sf.insertImportDeclarations(
    0,
    files.map((file) => {
      const { values, types } = byFile.get(file)!;
      const named = [...new Set([...values, ...types])].sort().map((n) => ({ name: n, isTypeOnly: !values.has(n) }));
      return {
        kind: StructureKind.ImportDeclaration,
        moduleSpecifier: file,
        namedImports: named,
        isTypeOnly: values.size === 0,
      };
    }),
  );
  // An all-types import says so once, on the declaration, rather than on each name.
  for (const decl of sf.getImportDeclarations()) {
    if (decl.isTypeOnly()) decl.getNamedImports().forEach((n) => n.setIsTypeOnly(false));
  }
}
