/**
 * Id-keyed fields with a length after each id: MySQL's TLV lists (Transaction_payload::decode and
 * Heartbeat::decode in libs/mysql/binlog/event/codecs/binary.cpp). MySQL reads them in a loop until
 * the end mark or the end of the event, in whatever order they come: a field it knows sets its value
 * (so a repeated id's last occurrence is the one that counts), any other id is skipped by its length.
 * To re-encode such a list byte for byte, the stored order and the fields MySQL would skip are kept as
 * `keyOrder` when the list is not what servers write (the declared fields, in declared order, once).
 */
import { EncodeError } from './errors.js';
import { jArray, jBytes, jNum, jObject } from './dump-json.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/** One stored field of a list: its id and a reader over its value. */
export interface KeyedField {
  id: number;
  r: Reader;
}

/**
 * A place in the stored list: the id of a declared field (its value is that field), or an id with its
 * value as stored, for what MySQL skips or overwrites (an id the schema does not declare, or a declared
 * id that comes again later).
 */
export type KeyedEntry = number | { id: number; bytes: Uint8Array };

/**
 * Reads the list's fields up to the id `end` (left unread, for the field that checks it) or the end.
 * Ids are packed integers, or serialization varints when `serial`; lengths are packed.
 */
export function readKeyed(r: Reader, serial: boolean, end: number | undefined, path: string): KeyedField[] {
  const fields: KeyedField[] = [];
  while (r.remaining > 0) {
    const at = r.pos;
    const id = serial ? r.varint(path) : r.packed(path);
    if (id === end) {
      r.pos = at;
      break;
    }
    // The length is checked against what is left before the value is taken (a forged one fails here).
    fields.push({ id, r: r.sub(r.packed(path), path) });
  }
  return fields;
}

/** The value of field `id`: its last occurrence, as MySQL keeps the last value it reads. */
export function lastKeyed(fields: KeyedField[], id: number): Reader | undefined {
  for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.id === id) return fields[i]!.r;
  return undefined;
}

/** The stored order as `keyOrder`, or undefined when it is the declared one (`ids`) with nothing else. */
export function keyedOrder(fields: KeyedField[], ids: readonly number[]): KeyedEntry[] | undefined {
  const last = new Map<number, number>();
  fields.forEach((f, i) => ids.includes(f.id) && last.set(f.id, i));
  const order: KeyedEntry[] = fields.map((f, i) => (last.get(f.id) === i ? f.id : { id: f.id, bytes: f.r.rest() }));
  const declared = ids.filter((id) => last.has(id));
  return order.length === declared.length && order.every((e, i) => e === declared[i]) ? undefined : order;
}

/**
 * Writes the list's fields (`values`, by id, in declared order) in the order `order` gives, or in
 * declared order without one. An order that would not read back as these values is refused: a stored
 * entry whose id is the end mark, or a declared id that no later entry of that field overrides.
 */
export function writeKeyed(
  w: Writer,
  values: Map<number, Uint8Array>,
  order: readonly KeyedEntry[] | undefined,
  ids: readonly number[],
  serial: boolean,
  end: number | undefined,
  path: string,
): void {
  const at = `${path}.keyOrder`;
  const left = new Map(values);
  for (const e of order ?? [...values.keys()]) {
    const id = typeof e === 'number' ? e : e.id;
    if (typeof e !== 'number') {
      if (id === end) throw new EncodeError(`a stored field with id ${id} would read as the end mark`, at);
      if (ids.includes(id) && !left.has(id))
        throw new EncodeError(`a stored field with id ${id} would read as that field's value`, at);
    } else if (!left.has(id)) {
      throw new EncodeError(values.has(id) ? `field ${id} is named twice` : `field ${id} is named but not given`, at);
    }
    if (serial) w.varint(id, at);
    else w.packed(id, at);
    w.prefixed(typeof e === 'number' ? left.get(id)! : e.bytes, 0, at);
    if (typeof e === 'number') left.delete(id);
  }
  if (left.size > 0) throw new EncodeError(`given but not named: field ${[...left.keys()].join(', ')}`, at);
}

/** `keyOrder` from its JSON form: ids, and {id, bytes} for fields kept as stored. */
export function jKeyOrder(j: unknown, path: string): KeyedEntry[] {
  return jArray(j, path).map((e, i) => {
    const p = `${path}[${i}]`;
    if (typeof e === 'number') return jNum(e, p);
    const o = jObject(e, p);
    return { id: jNum(o.id, `${p}.id`), bytes: jBytes(o.bytes, `${p}.bytes`) };
  });
}
