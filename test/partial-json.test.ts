/**
 * PARTIAL_UPDATE_ROWS in the real binlog json.binlog.000001 (MySQL 8.0): table mysql.t (id, json_col,
 * name AS (json_col->>'$.name'), age AS (json_col->'$.age')). An UPDATE_ROWS event first sets each
 * row's document in full, then a PARTIAL_UPDATE_ROWS event replaces $.age. The server computed the
 * generated columns @3 (name) and @4 (age) of that after image from the resulting document, so they
 * witness what applying the diff must give.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { EncodeError, InvalidValueError } from '../runtime/core/errors.js';
import { type BinlogEvent, eventFromJson } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { applyJsonDiff } from '../runtime/rows/json-diff.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { caught } from './runtime/helpers.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import type { JsonCell, JsonDiffCell, RowChange } from '../runtime/core/values.js';

type RowsEvent = BinlogEvent & { rows: RowChange[]; columnsPresent: boolean[] };

/** Each row's document after the statement, as the generated columns of the after image say. */
const RESULTS = [
  { age: 26, data: 'xxxxxxxxxx', name: 'Joe' },
  { age: 34, data: 'yyyyyyyyyy', name: 'Sue' },
  { age: 42, data: 'zzzzzzzzzz', name: 'Pete' },
  { age: 26, data: 'xxxxxxxxxx', name: 'Joe' },
  { age: 34, data: 'yyyyyyyyyy', name: 'Sue' },
  { age: 42, data: 'zzzzzzzzzz', name: 'Pete' },
];

function load() {
  const bytes = readFileSync(fixtures().find((f) => f.name.endsWith('json.binlog.000001'))!.path);
  const events = decodeBinlog(bytes);
  const partial = events.findIndex((e) => e.type === 'PARTIAL_UPDATE_ROWS_EVENT');
  const full = events.findLastIndex((e, i) => i < partial && e.type === 'UPDATE_ROWS_EVENT');
  return { bytes, events, partial, update: events[full] as RowsEvent };
}

const diffCell = (change: RowChange) => change.after!['@2'] as JsonDiffCell;

/** The binlog with the PARTIAL_UPDATE_ROWS before images FULL: each the row as the UPDATE before left it. */
function withFullBeforeImages(): { events: BinlogEvent[]; partial: number } {
  const { events, partial, update } = load();
  const e = events[partial] as RowsEvent;
  events[partial] = {
    ...e,
    columnsPresent: [true, true, true, true],
    rows: e.rows.map((c, i) => ({ ...c, before: update.rows[i]!.after })),
  } as BinlogEvent;
  const again = decodeBinlog(encodeBinlog(events));
  return { events: again, partial };
}

describeWithFixtures('PARTIAL_UPDATE_ROWS: the document the JSON diff gives', () => {
  it('with MINIMAL before images (no document to apply to) the cells keep only their diff', () => {
    const { events, partial } = load();
    const rows = (events[partial] as RowsEvent).rows;
    expect(rows).toHaveLength(6);
    for (const change of rows) {
      expect(Object.keys(change.before!)).toEqual(['@1']);
      expect(diffCell(change)).toEqual({ diff: [{ op: 'REPLACE', path: '$.age', value: expect.any(Number) }] });
    }
  });

  it('the diff applied to the document the UPDATE left gives what the generated columns say', () => {
    const { events, partial, update } = load();
    (events[partial] as RowsEvent).rows.forEach((change, i) => {
      const before = (update.rows[i]!.after!['@2'] as JsonCell).json;
      const after = applyJsonDiff(before, diffCell(change).diff);
      expect(after).toEqual(RESULTS[i]);
      expect([change.after!['@3'], change.after!['@4']]).toEqual([RESULTS[i]!.name, RESULTS[i]!.age]);
    });
  });

  it('with FULL before images, decoding gives each diff cell its resulting json, in the dump too', () => {
    const { events, partial } = withFullBeforeImages();
    const rows = (events[partial] as RowsEvent).rows;
    rows.forEach((change, i) => expect(diffCell(change).json).toEqual(RESULTS[i]));
    expect(toJsonLine(events[partial])).toContain(
      '"@2":{"diff":[{"op":"REPLACE","path":"$.age","value":26}],"json":{"age":26,"data":"xxxxxxxxxx","name":"Joe"}}',
    );
  });

  it(
    'encode writes the diff: dump → encode gives the same ' + 'bytes with json, without it, or with its keys reordered',
    () => {
      const { events, partial } = withFullBeforeImages();
      const bytes = encodeBinlog(events);
      const lines = events.map(
        (e) => JSON.parse(toJsonLine(e)) as { rows?: { after: Record<string, { json?: unknown }> }[] },
      );
      const back = () => encodeBinlog(lines.map((l, i) => eventFromJson(l, `line ${i + 1}`)));
      expect(Buffer.compare(back(), bytes)).toBe(0);
      lines[partial]!.rows![0]!.after['@2']!.json = { name: 'Joe', data: 'xxxxxxxxxx', age: 26 };
      expect(Buffer.compare(back(), bytes)).toBe(0);
      delete lines[partial]!.rows![0]!.after['@2']!.json;
      expect(Buffer.compare(back(), bytes)).toBe(0);
    },
  );

  it('encode refuses a json the diff does not give, and one it cannot check', () => {
    const { events, partial } = withFullBeforeImages();
    const lines = events.map(
      (e) =>
        JSON.parse(toJsonLine(e)) as {
          rows?: { before: Record<string, unknown>; after: Record<string, { json?: unknown }> }[];
        },
    );
    const encode = () => encodeBinlog(lines.map((l, i) => eventFromJson(l, `line ${i + 1}`)));
    lines[partial]!.rows![0]!.after['@2']!.json = { age: 27, data: 'xxxxxxxxxx', name: 'Joe' };
    expect(encode).toThrow(EncodeError);
    expect(encode).toThrow(/not what the diff makes of the before image/);
    const { events: minimal, partial: at } = load();
    const line = JSON.parse(toJsonLine(minimal[at])) as { rows: { after: Record<string, { json?: unknown }> }[] };
    line.rows[0]!.after['@2']!.json = RESULTS[0];
    expect(() => encodeBinlog([...minimal.slice(0, at), eventFromJson(line)])).toThrow(/which this row does not hold/);
  });

  it('decoding a diff that does not apply to the before document is a typed error saying where', () => {
    const { events, partial } = withFullBeforeImages();
    const e = events[partial] as RowsEvent;
    const cell = diffCell(e.rows[1]!);
    [cell.diff, cell.json] = [[{ op: 'REMOVE', path: '$.height' }], undefined];
    const error = caught(InvalidValueError, () => decodeBinlog(encodeBinlog(events)));
    expect(error).toMatchObject({
      kind: 'invalid-value',
      eventPos: e.pos,
      eventType: 39,
      schemaPath: 'RowsEvent.rows.after.@2',
    });
    expect(error.problem).toBe('JSON diff 0 (REMOVE $.height): the path is not in the document');
    expect(error.offset).toBeGreaterThan(e.pos);
    expect(error.offset).toBeLessThan(e.pos + e.header.eventSize);
  });

  it('decoding a diff of a column NULL in the before image is a typed error, as a replica rejects it', () => {
    const { events, partial } = withFullBeforeImages();
    const e = events[partial] as RowsEvent;
    [e.rows[2]!.before!['@2'], diffCell(e.rows[2]!).json] = [null, undefined];
    expect(caught(InvalidValueError, () => decodeBinlog(encodeBinlog(events)))).toMatchObject({
      kind: 'invalid-value',
      problem: 'a JSON diff of a column that is NULL in the before image',
    });
  });

  it('a diff of an unknown op, or without its path or value, is refused with its JSON path', () => {
    const { events, partial } = load();
    const encodeWith = (diff: unknown) => {
      const line = JSON.parse(toJsonLine(events[partial])) as { rows: { after: Record<string, unknown> }[] };
      line.rows[0]!.after['@2'] = { diff: [diff] };
      return () => encodeBinlog([...events.slice(0, partial), eventFromJson(line)]);
    };
    expect(encodeWith({ op: 'MERGE', path: '$.a', value: 1 })).toThrow(/JSON diff operation "MERGE"/);
    expect(encodeWith({ op: 'REPLACE', path: '$.age' })).toThrow("expected the REPLACE's value, found nothing");
    expect(encodeWith({ op: 'REMOVE' })).toThrow(
      'expected a JSON path, found nothing [in $.rows[0].after.@2.diff[0].path]',
    );
  });
});
