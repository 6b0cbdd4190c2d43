/** The modules every schema shares: context.ts (what `ctx.NAME` reads) and index.ts (every module's exports). */
import type { Project } from 'ts-morph';
import type { Ir } from '../ir/types.js';
import { docs, HEADER, type EmittedFile } from './print.js';
import { isRuntimeType, runtimeModule } from './runtime-names.js';

export function emitContext(project: Project, ir: Ir, runtimeDir: string): EmittedFile {
  const sf = project.createSourceFile('context.ts', '', { overwrite: true });
  for (const type of new Set(ir.context.map((c) => c.type))) {
    if (isRuntimeType(type))
      sf.addImportDeclaration({
        moduleSpecifier: runtimeModule(runtimeDir, type),
        namedImports: [type],
        isTypeOnly: true,
      });
  }
  sf.addInterface({
    isExported: true,
    name: 'Context',
    docs: ['What the event stream knows when it decodes or encodes a structure: `ctx.NAME` in the schemas.'],
    properties: ir.context.map((c) => ({ name: c.name, type: c.type, docs: docs(c.doc) })),
  });
  return { path: 'context.ts', text: HEADER('the `context` sections of schemas/') + sf.getFullText() };
}

export function emitIndex(project: Project, ir: Ir): EmittedFile {
  const sf = project.createSourceFile('index.ts', '', { overwrite: true });
  for (const module of ['context', ...ir.modules]) sf.addExportDeclaration({ moduleSpecifier: `./${module}.js` });
  return { path: 'index.ts', text: HEADER('schemas/') + sf.getFullText() };
}
