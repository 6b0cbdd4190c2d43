/**
 * A TRANSACTION_PAYLOAD's inner events as a flat stream, and back. Flat, the payload event comes first,
 * without `events` but with `eventsFollow: true`, then each inner event as it is inside the payload (its
 * `pos` its offset in the uncompressed payload), with `inPayload`: the payload event's file offset (and its `file`). A
 * reader looking for rows then finds them wherever the server put them, and an encoder gathers the
 * events back into their payload, which keeps its stored bytes while they still decompress to what the
 * events encode to.
 */
import { EncodeError } from '../core/errors.js';
import type { BinlogEvent, BinlogEventInput } from './event-codec.js';

/**
 * How readers deliver a TRANSACTION_PAYLOAD's events: after it, each on its own ('flat'), or inside it, as `events`
 * ('nested').
 */
export type PayloadForm = 'flat' | 'nested';

/** The event, then, if it is a payload holding events, those events, flat. */
export function* flatten(event: BinlogEvent): Generator<BinlogEvent> {
  const inner = event.events;
  if (inner === undefined) {
    yield event;
    return;
  }
  delete event.events;
  event.eventsFollow = true;
  yield event;
  // Each names the file too, as every event of the file does.
  const file = event.file === undefined ? {} : { file: event.file };
  for (const { pos, ...e } of inner) yield { ...file, pos, inPayload: event.pos, ...e } as BinlogEvent;
}

/** An event to encode, and where it came from (a JSON path such as `line 7: $`), for its errors. */
export interface Sourced {
  event: BinlogEventInput;
  source?: string;
  /** A payload gathered from flat events: where each of its events came from. */
  inner?: (string | undefined)[];
}

/**
 * Flat payloads made whole again: a payload event with `eventsFollow` is held, and the events after it
 * whose `inPayload` is its `pos` become its `events`, until an event that is not in it.
 */
export class PayloadGatherer {
  private held: { payload: Sourced; events: BinlogEventInput[]; sources: (string | undefined)[] } | undefined;

  /** The whole events ready once this one is given. Its own errors' paths are in it (`$.inPayload`). */
  push(item: Sourced): Sourced[] {
    const { event } = item;
    if (event.inPayload !== undefined) {
      const held = this.held;
      if (held === undefined || held.payload.event.pos !== event.inPayload) {
        throw new EncodeError(
          `an event of the TRANSACTION_PAYLOAD_EVENT at ${event.inPayload} (its inPayload) ` +
            'comes right after that event or another of its events',
          '$.inPayload',
        );
      }
      held.events.push(event);
      held.sources.push(item.source);
      return [];
    }
    const ready = this.end();
    if (!event.eventsFollow) ready.push(item);
    else if (event.events !== undefined) {
      throw new EncodeError(
        'a payload event has its events either in `events` or after it (`eventsFollow`), not both',
        '$.eventsFollow',
      );
    } else this.held = { payload: item, events: [], sources: [] };
    return ready;
  }

  /** The input is over, or an event outside the held payload came: the payload, whole. */
  end(): Sourced[] {
    const held = this.held;
    if (held === undefined) return [];
    this.held = undefined;
    const { eventsFollow: _, ...payload } = held.payload.event;
    return [
      {
        event: { ...payload, events: held.events } as BinlogEventInput,
        source: held.payload.source,
        inner: held.sources,
      },
    ];
  }
}
