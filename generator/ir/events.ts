/**
 * The event catalogue: each code listed once, each body a struct that the catalogue's arguments fit, and
 * an effect only where there is a body to take it from.
 */
import type { SchemaFile } from '../load.js';
import type { Origin, Pass } from './pass.js';
import { rawFile } from './raw.js';
import { RESERVED_EVENT_KEYS, type IrStruct } from './types.js';

export function resolveEvents(pass: Pass, files: SchemaFile[]): void {
  const { ir } = pass;
  const codes = new Set<number>();
  for (const file of files) {
    (rawFile(file).events ?? []).forEach((e, i) => {
      const o: Origin = { file, path: ['events', i] };
      if (codes.has(e.code)) pass.fail(o, ['code'], `event code ${e.code} is listed twice`);
      codes.add(e.code);
      if (e.body !== undefined) {
        const body = ir.structs.get(e.body);
        if (!body) pass.fail(o, ['body'], `unknown struct '${e.body}'`);
        else checkEventBody(pass, body, o, e.args ?? {});
      }
      // The runtime decodes an event with an effect to apply it: one kept raw says nothing it could take.
      if (e.effect !== undefined && e.body === undefined) pass.fail(o, ['effect'], `'${e.effect}' is taken from the event's body, and ${e.name} has none`);
      ir.events.push(e);
      ir.eventsModule = file.module;
    });
  }
  ir.events.sort((a, b) => a.code - b.code);
}

/** The arguments give every parameter and no other; no field takes a key the event object keeps. */
function checkEventBody(pass: Pass, body: IrStruct, o: Origin, args: Record<string, string | number>): void {
  for (const p of body.params) if (!(p.name in args)) pass.fail(o, ['args'], `'${body.name}' needs the argument '${p.name}'`);
  for (const a of Object.keys(args)) if (!body.params.some((p) => p.name === a)) pass.fail(o, ['args', a], `'${body.name}' has no parameter '${a}'`);
  for (const f of body.fields) {
    if (RESERVED_EVENT_KEYS.includes(f.name)) {
      pass.fail(o, ['body'], `field '${f.name}' of '${body.name}' is a key the event object reserves`);
    }
  }
}
