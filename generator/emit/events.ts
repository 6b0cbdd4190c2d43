/** The catalogue's events as the event-body functions dispatch on them. */
import { compileExpr, parseExpr } from '../expr.js';
import type { Ir, IrEvent } from '../ir/types.js';
import { constValue } from './expressions.js';
import type { Module } from './module.js';

/** The events whose body a schema describes, by code. */
export function eventsWithBody(ir: Ir): IrEvent[] {
  return ir.events.filter((e) => e.body);
}

/** The catalogue's arguments for an event's body struct, in the order of its params. */
export function eventArgs(m: Module, e: IrEvent): string[] {
  const body = m.struct(e.body!);
  const noNames = (id: string): string => {
    throw new Error(`event ${e.name}: arguments are constants, '${id}' is not`);
  };
  return body.params.map((p) =>
    compileExpr(parseExpr(e.args![p.name]!), (id) => (id.includes('.') ? constValue(m.ir, id) : noNames(id))),
  );
}
