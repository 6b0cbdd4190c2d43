import { describe, expect, it } from 'vitest';
import { V3_POST_HEADER_LENGTHS } from '../../generated/header.js';
import { FormatState } from '../../runtime/events/format-state.js';

/** The format after an FDE of this server version listing `types` post-header lengths (1, 2, 3 …). */
function after(serverVersion: string, types = 22): FormatState {
  const format = new FormatState();
  const postHeaderLengths = Array.from({ length: types }, (_, i) => i + 1);
  format.after({
    type: 'FORMAT_DESCRIPTION_EVENT',
    serverVersion,
    headerLength: 19,
    postHeaderLengths,
    checksumAlg: 0,
  } as { type: string });
  return format;
}

describe('the 5.1-wl2325 trees’ event type codes', () => {
  // Versions log_event.cc's comment lists for these trees, and its note that 5.1.1-alpha used the new codes.
  it.each([
    '5.1.1-a_drop5p3',
    '5.1.2-a_drop5p16b',
    '5.1.5-a_drop5p20',
    '5.1.4-a_drop6p0',
    '5.2.0-a_drop6p3',
    '5.2.2-a_drop6p13-debug-log',
  ])('%s stores TABLE_MAP as 16, rows v0 as 17-19, XID, BEGIN_LOAD_QUERY, EXECUTE_LOAD_QUERY as 20-22', (version) => {
    const format = after(version);
    expect([15, 16, 17, 18, 19, 20, 21, 22, 23].map((c) => format.realCode(c))).toEqual([
      15, 19, 20, 21, 22, 16, 17, 18, 23,
    ]);
    expect([16, 17, 18, 19, 20, 21, 22].map((c) => format.storedCode(c))).toEqual([20, 21, 22, 16, 17, 18, 19]);
    // Stored index i → real code: the length listed 16th (TABLE_MAP's) is read for code 19, and so on.
    expect(format.postHeaderLengths).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 16, 17, 18, 19,
    ]);
  });

  it.each(['5.1.1-alpha', '5.1.6-a_drop5p1', '5.1.3-a_drop6p1', '5.2.3-a_drop6p13', '5.1.23-rc', '5.0.51-a_drop5'])(
    '%s keeps codes as stored',
    (version) => {
      const format = after(version, 27);
      expect(format.realCode(16)).toBe(16);
      expect(format.storedCode(19)).toBe(19);
      expect(format.postHeaderLengths[15]).toBe(16);
    },
  );

  it('a later FDE of another version ends the permutation', () => {
    const format = after('5.2.2-a_drop6p13');
    format.after({
      type: 'FORMAT_DESCRIPTION_EVENT',
      serverVersion: '5.1.23',
      headerLength: 19,
      postHeaderLengths: [],
      checksumAlg: 0,
    } as { type: string });
    expect(format.realCode(16)).toBe(16);
  });

  it('an FDE of such a version that lists another number of event types is invalid', () => {
    expect(() => after('5.1.4-a_drop6p2', 23)).toThrow(expect.objectContaining({ kind: 'invalid-value' }));
  });
});

describe('what an event changes, by its effect in the catalogue (events.yaml effect:)', () => {
  it(
    'the events that change the format state are those whose effect ' +
      'is on it: not ROTATE, whose effect is on what follows the file',
    () => {
      const codes = Array.from({ length: 256 }, (_, c) => c).filter((c) => FormatState.changesFormat(c));
      expect(codes).toEqual([1, 15, 19, 159, 164]);
      expect([1, 4, 15, 19, 159, 164, 2].map((c) => FormatState.effectOf(c))).toEqual([
        'sets-v3-format',
        'rotates',
        'sets-format',
        'maps-table',
        'starts-encryption',
        'starts-encryption',
        undefined,
      ]);
    },
  );

  it('each effect does its own to the state; ROTATE and an event without an effect do nothing', () => {
    const format = after('8.0.32', 40);
    const state = () => ({ ...format, tables: format.tables.get(3) });
    const before = state();
    format.after({ type: 'ROTATE_EVENT', position: 4n, nextFile: 'b.000002' } as { type: string });
    format.after({ type: 'QUERY_EVENT', query: 'BEGIN' } as { type: string });
    expect(state()).toEqual(before);
    format.after({ type: 'START_EVENT_V3' } as { type: string });
    expect(format.postHeaderLengths).toEqual([...V3_POST_HEADER_LENGTHS]);
    format.after({
      type: 'TABLE_MAP_EVENT',
      tableId: 3,
      schemaName: 'd',
      tableName: 't',
      columnTypes: ['LONG'],
      columnMetadata: [{}],
      optionalMetadata: [],
    } as { type: string });
    expect(format.tables.get(3)?.columns.map((c) => c.name)).toEqual(['@1']);
    expect(format.encrypted).toBe(false);
    format.after({ type: 'START_5_7_ENCRYPTION_EVENT' } as { type: string });
    expect(format.encrypted).toBe(true);
  });
});
