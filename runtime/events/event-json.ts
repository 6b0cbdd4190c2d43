/**
 * A decoded event's line in the dump, written as bytes by the generated JSON writers (its header, its
 * body by type), byte for byte what toJsonLine writes. An event with members the writers do not know of
 * (a body type without a writer, kept raw, or marked by a reader: notInFile, inPayload) is written by
 * JsonBytes.value instead, which follows the object as it is.
 */
import { writeEventBodyJson, type EventBody } from '../../generated/events.js';
import { writeEventHeaderJson } from '../../generated/header.js';
import { JsonBytes, jsonKey } from '../core/json-bytes.js';
import type { BinlogEvent } from './event-codec.js';
import { BinlogError } from '../core/errors.js';
import { JsonRows, NotInOnePass } from '../rows/json-rows.js';

const FILE = jsonKey('file');
const POS = jsonKey('pos');
const HEADER = jsonKey('header');
const TYPE = jsonKey('type');
const CHECKSUM = jsonKey('checksum');
const EVENTS = jsonKey('events');

/** The event's JSON form, as toJsonLine writes it, appended to `w`; whether the generated writers wrote it. */
export function writeEventJson(w: JsonBytes, e: BinlogEvent): boolean {
  const line = w.pos;
  if (writeKnownEvent(w, e)) return true;
  w.pos = line;
  w.value(e);
  return false;
}

/**
 * The event's line as the dump writes it. Decoded with `rows: 'json'`, its rows are written from their
 * bytes in one pass; where that pass cannot give the eager decode's line (json-rows.ts), the line is the
 * eager decode's, written again from the start. Returns the event as written, so that the dump can count
 * the events whose images were kept as bytes.
 */
export function writeDumpEvent(w: JsonBytes, e: BinlogEvent): BinlogEvent {
  const line = w.pos;
  try {
    writeEventJson(w, e);
    return e;
  } catch (err) {
    const eager = err instanceof BinlogError || err instanceof NotInOnePass ? eagerEvent(e) : e;
    if (eager === e) throw err;
    w.pos = line;
    writeEventJson(w, eager);
    return eager;
  }
}

/** An event as the eager decode gives it: its JsonRows, and those of the events inside it, decoded (or kept as bytes, as the eager decode keeps them). */
function eagerEvent(e: BinlogEvent): BinlogEvent {
  const { rows, events } = e as { rows?: unknown; events?: BinlogEvent[] };
  if (Array.isArray(events)) {
    const inner = events.map(eagerEvent);
    return inner.some((x, i) => x !== events[i]) ? { ...e, events: inner } : e;
  }
  if (!(rows instanceof JsonRows)) return e;
  const split = rows.eager();
  return { ...e, rows: split.rows, rowImagesUndecoded: split.undecoded, rowImages: split.bytes } as BinlogEvent;
}

/** Writes the event's members that the writers know; false when the event has others (what was written is then dropped). */
function writeKnownEvent(w: JsonBytes, e: BinlogEvent): boolean {
  w.byte(0x7b);
  const start = w.pos;
  let members = 3;
  if (e.file !== undefined) {
    w.member(FILE, start);
    w.string(e.file);
    members++;
  }
  w.member(POS, start);
  w.number(e.pos);
  w.member(HEADER, start);
  w.byte(0x7b);
  writeEventHeaderJson(w, e.header, w.pos);
  w.byte(0x7d);
  w.member(TYPE, start);
  w.string(e.type);
  const body = writeEventBodyJson(w, e as EventBody, start);
  if (body < 0) return false;
  members += body;
  if (e.checksum !== undefined) {
    w.member(CHECKSUM, start);
    w.number(e.checksum);
    members++;
  }
  if (e.events !== undefined) {
    w.member(EVENTS, start);
    w.byte(0x5b);
    e.events.forEach((inner, i) => {
      if (i) w.byte(0x2c);
      writeEventJson(w, inner);
    });
    w.byte(0x5d);
    members++;
  }
  w.byte(0x7d);
  // The members written, in the decoder's order, are all the event has (those undefined counted on both sides).
  return members === memberCount(e);
}

/** Own enumerable keys of a decoded event (a plain object): Object.keys(e).length without the array. */
function memberCount(e: object): number {
  let n = 0;
  for (const _ in e) n++;
  return n;
}
