/**
 * Emission: the IR as TypeScript, through ts-morph. Each schema module's file is assembled from the
 * artifact emitters, struct by struct (types, decoder, encoder, JSON converter, JSON writer), then its imports.
 */
import type { SourceFile } from 'ts-morph';
import type { Ir, IrEntryList, IrStruct } from '../ir/types.js';
import { emitBinaryJson } from './binary-json.js';
import { emitCells } from './cells.js';
import { emitContext, emitIndex } from './context.js';
import { emitDecoder, emitEntryListDecoder, emitEventBodyDecoder } from './decoders.js';
import { emitEncoder, emitEntryListEncoder, emitEventBodyEncoder } from './encoders.js';
import { importCalls } from './expressions.js';
import { emitEntryFromJson, emitEventBodyFromJson, emitFromJson } from './dump-json-readers.js';
import { emitEntryListJsonWriter, emitEventBodyJsonWriter, emitJsonWriter } from './dump-json-writers.js';
import { addImports, Module } from './module.js';
import { emitOldRowImages } from './old-row-images.js';
import { emitRowImages } from './row-images.js';
import { HEADER, newProject, type EmittedFile } from './print.js';
import { emitServedVariables, emitServers } from './servers.js';
import {
  emitConstants,
  emitCovers,
  emitEntryUnion,
  emitEnums,
  emitEventSets,
  emitEventTypes,
  emitInterfaces,
  emitLookup,
  emitOffsets,
} from './types.js';

/**
 * Every generated module. `runtimeDir` is the runtime's path relative to the output folder (the
 * generated/ folder sits beside runtime/; the test features' output sits deeper).
 */
export function emit(ir: Ir, sourceOf: (module: string) => string, runtimeDir = '../runtime'): EmittedFile[] {
  const project = newProject();
  const out: EmittedFile[] = [];
  for (const module of ir.modules) {
    const m = new Module(module, ir);
    const sf = project.createSourceFile(`${module}.ts`, '', { overwrite: true });
    emitConstants(
      sf,
      m,
      ir.constants.filter((c) => c.module === module),
    );
    for (const l of ir.lookups) if (l.module === module) emitLookup(sf, m, l);
    emitEnums(
      sf,
      [...ir.enums.values()].filter((e) => e.module === module),
      true,
    );
    emitEnums(
      sf,
      [...ir.flags.values()].filter((e) => e.module === module),
      false,
    );
    for (const s of ir.structs.values()) if (s.module === module) emitStruct(sf, m, s);
    if (module === ir.eventsModule) emitEvents(sf, m, ir);
    emitCells(
      sf,
      m,
      ir.cells.filter((c) => c.module === module),
      ir.externs.filter((x) => x.module === module),
    );
    if (ir.binaryJson?.module === module)
      emitBinaryJson(
        sf,
        m,
        ir.binaryJson,
        ir.externs.filter((x) => x.module === module),
      );
    if (ir.rowImages?.module === module) emitRowImages(sf, m, ir.rowImages);
    if (ir.oldRowImages?.module === module) emitOldRowImages(sf, ir.oldRowImages);
    if (ir.servers?.module === module) emitServers(sf, ir.servers);
    if (ir.servedVariables?.module === module) emitServedVariables(sf, ir.servedVariables);
    addImports(sf, m, runtimeDir);
    sf.formatText({ indentSize: 2, convertTabsToSpaces: true });
    out.push({ path: `${module}.ts`, text: HEADER(sourceOf(module)) + sf.getFullText() });
  }
  out.push(emitContext(project, ir, runtimeDir), emitIndex(project, ir));
  return out;
}

function emitStruct(sf: SourceFile, m: Module, s: IrStruct): void {
  importCalls(m, s);
  emitInterfaces(sf, m, s);
  if (s.offsets) emitOffsets(sf, s);
  emitDecoder(sf, m, s);
  emitEncoder(sf, m, s);
  emitFromJson(sf, m, s);
  emitJsonWriter(sf, m, s);
  for (const f of s.fields) {
    if (f.type.kind === 'tlv' || f.type.kind === 'tagged') emitEntryList(sf, m, f.type, s);
  }
}

function emitEntryList(sf: SourceFile, m: Module, t: IrEntryList, owner: IrStruct): void {
  emitEntryUnion(sf, m, t, owner);
  if (t.covers) emitCovers(sf, m, t, owner);
  emitEntryListDecoder(sf, m, t, owner);
  emitEntryFromJson(sf, m, t, owner);
  emitEntryListEncoder(sf, m, t, owner);
  emitEntryListJsonWriter(sf, m, t, owner);
}

/** The catalogue, in the module that lists it. */
function emitEvents(sf: SourceFile, m: Module, ir: Ir): void {
  emitEventTypes(sf, m, ir);
  emitEventBodyDecoder(sf, m, ir);
  emitEventBodyEncoder(sf, m, ir);
  emitEventBodyFromJson(sf, m, ir);
  emitEventBodyJsonWriter(sf, m, ir);
  emitEventSets(sf, ir);
}
