/** Hand-made decoded events for the tests of code that reads them: a whole header, as a decoder gives one. */
import type { EventHeader } from '../../generated/header.js';
import type { BinlogEvent, BinlogEventInput } from '../../runtime/events/event-codec.js';

/** A header of an event of this type code at the start of a file, as the decoder gives it. */
export function eventHeader(typeCode: number, fields: Partial<EventHeader> = {}): EventHeader {
  return { timestamp: 0, typeCode, serverId: 1, eventSize: 0, logPos: 0, flags: 0, ...fields };
}

/**
 * An input the types refuse, as a JavaScript caller or an edited JSON line may give one: the tests of what
 * the encoder says of such an input build it here, where it is plain that the types do not vouch for it.
 */
export function looseInput(fields: object): BinlogEventInput {
  return fields as BinlogEventInput;
}

/**
 * A decoded event of which only the fields the code under test reads are given (the filters read the type
 * and a few fields): the types do not vouch for the rest, and the name says so where it is used.
 */
export function looseEvent(fields: object): BinlogEvent {
  return fields as BinlogEvent;
}
