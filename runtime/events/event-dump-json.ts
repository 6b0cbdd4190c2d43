/**
 * A decoded event's line in the dump. The generated JSON writers write its header and its body by type.
 * An event with members they do not know of (a body type without a writer, an event kept raw, or one a
 * reader marked with notInFile or inPayload) is written by JsonBytes.value, which follows the object as it
 * is. Which of the two writes an event is decided before any of it is written, and every line is written
 * once.
 */
import { eventBodyMembers, writeEventBodyJson, type EventBody } from '../../generated/events.js';
import { writeEventHeaderJson } from '../../generated/header.js';
import { type JsonBytes, jsonKey, type JsonText } from '../core/dump-json-bytes.js';
import type { RowChange } from '../core/values.js';
import { ImagesKept, JsonRows } from '../rows/json-rows.js';
import type { BinlogEvent } from './event-codec.js';

const FILE = jsonKey('file');
const POS = jsonKey('pos');
const HEADER = jsonKey('header');
const TYPE = jsonKey('type');
const CHECKSUM = jsonKey('checksum');
const EVENTS = jsonKey('events');

/** An event whose rows events (itself, or those inside it) hold rows of type R instead of decoded changes. */
type WithRows<E, R> = E extends unknown
  ? E extends { rows?: RowChange[] }
    ? Omit<E, 'rows' | 'events'> & { rows?: RowChange[] | R; events?: WithRows<BinlogEvent, R>[] }
    : Omit<E, 'events'> & { events?: WithRows<BinlogEvent, R>[] }
  : never;

/**
 * An event as the dump reads it (row-tables.ts's DUMP_ROWS): a rows event's rows are JsonRows where
 * one pass over their images writes them, and decoded changes where it would not (json-rows.ts's over).
 */
export type DumpReadEvent = WithRows<BinlogEvent, JsonRows>;

/**
 * An event as the dump writes it: its rows' JSON already written from their images, or its images kept as
 * bytes (rowImagesUndecoded says why), as the eager decode keeps them.
 */
export type DumpEvent = WithRows<BinlogEvent, JsonText>;

/** The event's JSON form, as toJsonLine writes it, appended to `w`; whether the generated writers wrote it. */
export function writeEventJson(w: JsonBytes, e: BinlogEvent | DumpEvent): boolean {
  if (!writersCover(e)) {
    w.value(e);
    return false;
  }
  writeCoveredEvent(w, e);
  return true;
}

/**
 * The event's line as the dump writes it. A rows event's rows are written from their images in the line
 * itself; where a value does not read, the line is written again after its rows are tried in `rows` (a
 * buffer of the dump's own, reused for each event), which keeps its images as bytes, as are the rows of the
 * events inside an event. Returns the event as written, so that the dump can count the events whose images
 * were kept as bytes.
 */
export function writeDumpEvent(w: JsonBytes, rows: JsonBytes, e: DumpReadEvent): DumpEvent {
  const held = e as { rows?: unknown };
  if (e.events === undefined && held.rows instanceof JsonRows && writersCover(e as DumpEvent)) {
    const start = w.pos;
    const inLine = held.rows;
    try {
      writeCoveredEvent(w, e as DumpEvent);
      held.rows = inLine.written;
      return e as DumpEvent;
    } catch (x) {
      if (!(x instanceof ImagesKept)) throw x;
      w.pos = start;
    }
  }
  rows.pos = 0;
  const ready = withRenderedRows(e, rows);
  writeEventJson(w, ready);
  return ready;
}

/**
 * The event with its JsonRows, and those of the events inside it, rendered (json-rows.ts's render). The
 * event is the dump's own, so its rows are replaced in place: a copy of every rows event would cost more
 * than the rest of this step. Only where the images are kept as bytes does the event change its members.
 */
function withRenderedRows(e: DumpReadEvent, rows: JsonBytes): DumpEvent {
  if (e.events !== undefined) {
    for (const inner of e.events) withRenderedRows(inner, rows);
    return e as DumpEvent;
  }
  const held = e as { rows?: unknown; rowImagesUndecoded?: string; rowImages?: Uint8Array };
  if (!(held.rows instanceof JsonRows)) return e as DumpEvent;
  const split = held.rows.render(rows);
  held.rows = split.rows;
  held.rowImagesUndecoded = split.undecoded;
  held.rowImages = split.bytes;
  return e as DumpEvent;
}

/**
 * Whether the generated writers write every member the event has: the members they write, in the
 * decoder's order, are as many as the event's own (those undefined counted on both sides).
 */
function writersCover(e: BinlogEvent | DumpEvent): boolean {
  const body = eventBodyMembers(e.type);
  if (body < 0) return false;
  const known =
    3 + body + (e.file !== undefined ? 1 : 0) + (e.checksum !== undefined ? 1 : 0) + (e.events !== undefined ? 1 : 0);
  return known === memberCount(e);
}

function writeCoveredEvent(w: JsonBytes, e: BinlogEvent | DumpEvent): void {
  w.byte(0x7b);
  const start = w.pos;
  if (e.file !== undefined) {
    w.member(FILE, start);
    w.string(e.file);
  }
  w.member(POS, start);
  w.number(e.pos);
  w.member(HEADER, start);
  w.byte(0x7b);
  writeEventHeaderJson(w, e.header, w.pos);
  w.byte(0x7d);
  w.member(TYPE, start);
  w.string(e.type);
  // A DumpEvent's rows may be JsonText, which the body writers pass to JsonBytes.rows as decoded changes are.
  writeEventBodyJson(w, e as EventBody, start);
  if (e.checksum !== undefined) {
    w.member(CHECKSUM, start);
    w.number(e.checksum);
  }
  if (e.events !== undefined) {
    w.member(EVENTS, start);
    w.byte(0x5b);
    e.events.forEach((inner, i) => {
      if (i) w.byte(0x2c);
      writeEventJson(w, inner);
    });
    w.byte(0x5d);
  }
  w.byte(0x7d);
}

/** Own enumerable keys of a decoded event (a plain object): Object.keys(e).length without the array. */
function memberCount(e: object): number {
  let n = 0;
  for (const _ in e) n++;
  return n;
}
