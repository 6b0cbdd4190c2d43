/**
 * The event catalogue: each code listed once, each body a struct that the catalogue's arguments fit, its
 * post-header's length, and an effect only where there is a body to take it from.
 */
import { evaluateExpr, parseExpr } from '../expr.js';
import type { SchemaFile } from '../load.js';
import { constantOf } from './expressions.js';
import type { Origin, Pass } from './pass.js';
import { rawFile } from './raw.js';
import { postHeaderLength } from './sizes.js';
import { RESERVED_EVENT_KEYS, type Ir, type IrStruct } from './types.js';

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
        else if (checkEventBody(pass, body, o, e.args ?? {}) && body.postHeader !== undefined) {
          const length = postHeaderLength(ir, body, argumentValues(ir, e.args ?? {}));
          if (typeof length === 'number') e.postHeaderLength = length;
          else pass.fail(o, ['body'], `the post-header of '${body.name}' is not fixed: ${length.problem}`);
        }
      }
      // The runtime decodes an event with an effect to apply it: one kept raw says nothing it could take.
      if (e.effect !== undefined && e.body === undefined)
        pass.fail(o, ['effect'], `'${e.effect}' is taken from the event's body, and ${e.name} has none`);
      ir.events.push(e);
      ir.eventsModule = file.module;
    });
  }
  ir.events.sort((a, b) => a.code - b.code);
}

/** The arguments give every parameter and no other; no field takes a key the event object keeps. */
function checkEventBody(pass: Pass, body: IrStruct, o: Origin, args: Record<string, string | number>): boolean {
  const before = pass.errors.length;
  for (const p of body.params)
    if (!(p.name in args)) pass.fail(o, ['args'], `'${body.name}' needs the argument '${p.name}'`);
  for (const a of Object.keys(args))
    if (!body.params.some((p) => p.name === a)) pass.fail(o, ['args', a], `'${body.name}' has no parameter '${a}'`);
  for (const f of body.fields) {
    if (RESERVED_EVENT_KEYS.includes(f.name)) {
      pass.fail(o, ['body'], `field '${f.name}' of '${body.name}' is a key the event object reserves`);
    }
  }
  return pass.errors.length === before;
}

/** The catalogue's arguments as values (they are constants: literals and `Enum.NAME`). */
function argumentValues(ir: Ir, args: Record<string, string | number>): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {};
  for (const [name, src] of Object.entries(args)) {
    const v = evaluateExpr(parseExpr(src), (id) => constantOf(ir, id));
    if (v !== undefined) out[name] = v;
  }
  return out;
}
