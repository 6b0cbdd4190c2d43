/** `binlog encode`: JSON Lines in dump's format back to a binlog, as a user runs it. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EventDecoder, EventEncoder, eventFromJson } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

const root = join(import.meta.dirname, '..');
const sample = join(root, 'test', 'fixtures', 'sample.bin');
const bytes = readFileSync(sample);
const tmp = mkdtempSync(join(tmpdir(), 'binlog-encode-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function binlog(args: string[], input?: string | Uint8Array) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { input, maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const dump = binlog(['dump', sample]).stdout;
const lines = dump.trim().split('\n');

describe('binlog encode', () => {
  it('gives back the dumped file byte for byte', () => {
    const out = join(tmp, 'same.bin');
    expect(binlog(['encode', '-o', out], dump).code).toBe(0);
    expect(Buffer.compare(readFileSync(out), bytes)).toBe(0);
  });

  it('reads a file as well as standard input', () => {
    const input = join(tmp, 'dump.jsonl');
    writeFileSync(input, dump);
    const out = join(tmp, 'from-file.bin');
    expect(binlog(['encode', input, '-o', out]).code).toBe(0);
    expect(Buffer.compare(readFileSync(out), bytes)).toBe(0);
  });

  it('an edited value of another length just works: sizes, positions and checksums follow', () => {
    const i = lines.findIndex((l) => l.includes('"type":"WRITE_ROWS_EVENT_V1"'));
    const edited = lines.map((l, k) => (k === i ? l.replace('"name":"Ada"', '"name":"Ada Lovelace"') : l));
    const out = join(tmp, 'edited.bin');
    const r = binlog(['encode', '-o', out], edited.join('\n'));
    expect(r.stderr).toBe('');
    const events = decodeBinlog(readFileSync(out)); // checksums verified
    const write = events.find((e) => e.type === 'WRITE_ROWS_EVENT_V1') as {
      rows: { after: Record<string, unknown> }[];
    };
    expect(write.rows[0]!.after.name).toBe('Ada Lovelace');
    const original = decodeBinlog(bytes);
    for (let k = 0; k < events.length; k++) {
      // Every event after the edit moved by the 9 added bytes, and its logPos with it.
      const shift = k > i ? 9 : 0;
      expect(events[k]!.pos).toBe(original[k]!.pos + shift);
      expect(events[k]!.header.logPos).toBe(original[k]!.header.logPos! + (k >= i ? 9 : 0));
    }
  });

  it('computes logPos when it is absent or null, and keeps any other value', () => {
    const set = (l: string, v: string) => l.replace(/"logPos":\d+/, `"logPos":${v}`);
    const input = lines.map((l, k) =>
      k === 1 ? set(l, 'null') : k === 2 ? l.replace(/"logPos":\d+,/, '') : k === 3 ? set(l, '0') : l,
    );
    const out = join(tmp, 'logpos.bin');
    expect(binlog(['encode', '-o', out], input.join('\n')).code).toBe(0);
    const events = decodeBinlog(readFileSync(out));
    expect(events[1]!.header.logPos).toBe(events[1]!.pos + events[1]!.header.eventSize);
    expect(events[2]!.header.logPos).toBe(events[2]!.pos + events[2]!.header.eventSize);
    expect(events[3]!.header.logPos).toBe(0);
  });

  it('refuses a bad line with its number, the JSON path and the reason, and writes nothing', () => {
    const out = join(tmp, 'bad.bin');
    const bad = lines.map((l, k) => (k === 4 ? l.replace(/"threadId":\d+/, '"threadId":"six"') : l));
    const r = binlog(['encode', '-o', out], bad.join('\n'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('binlog: -: line 5: $.threadId: expected an integer, found "six"');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('names the path inside nested values', () => {
    const i = lines.findIndex((l) => l.includes('"type":"QUERY_EVENT"'));
    const bad = lines.map((l, k) => (k === i ? l.replace(/"flags2":\d+/, '"flags2":-1.5') : l));
    const r = binlog(['encode', '-o', join(tmp, 'nested.bin')], bad.join('\n'));
    expect(r.stderr).toContain(`line ${i + 1}: $.statusVars[0].flags2: expected an integer`);
  });

  it("refuses text that the column's charset cannot hold, rather than writing other bytes", () => {
    const i = lines.findIndex((l) => l.includes('"table":"sample.notes"'));
    // notes.txt is latin1
    const bad = lines.map((l, k) => (k === i ? l.replace('"txt":"myisam"', '"txt":"\u6f22\u5b57"') : l));
    const r = binlog(['encode', '-o', join(tmp, 'charset.bin')], bad.join('\n'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`line ${i + 1}:`);
    expect(r.stderr).toMatch(/rows.*txt.*latin1 cannot hold/);
  });

  it('refuses lines that are not JSON, unknown types without raw bytes, and a type that contradicts its code', () => {
    const notJson = binlog(['encode', '-o', join(tmp, 'x.bin')], `${lines[0]}\n{nope\n`);
    expect(notJson.stderr).toMatch(/line 2: not JSON/);
    const unknown = binlog(
      ['encode', '-o', join(tmp, 'y.bin')],
      `${lines[0]}\n${lines[1]!.replace('GTID_LIST_EVENT', 'FROB_EVENT')}\n`,
    );
    expect(unknown.stderr).toContain('line 2:');
    const mismatch = binlog(
      ['encode', '-o', join(tmp, 'z.bin')],
      `${lines[0]}\n${lines[1]!.replace('"typeCode":163', '"typeCode":161')}\n`,
    );
    expect(mismatch.stderr).toContain('GTID_LIST_EVENT is code 163, but header.typeCode is 161');
  });

  it(
    'refuses a dump whose first line is no FORMAT_DESCRIPTION_EVENT, ' +
      'rather than write a binlog without one and without checksums',
    () => {
      const out = join(tmp, 'no-fde.bin');
      const r = binlog(['encode', '-o', out], lines.slice(1).join('\n'));
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'binlog: -: line 1: $.type: the first event is GTID_LIST_EVENT, ' +
          'not the FORMAT_DESCRIPTION_EVENT with which a binlog begins and which says how its events are ' +
          "written. Put the dump's FORMAT_DESCRIPTION_EVENT first, or write the events as a reader takes a " +
          'binlog without one (binlog v4, 19-byte event headers, no checksums) with --assume-format (the ' +
          'assumeFormat option)',
      );
      expect(existsSync(out)).toBe(false);
      expect(() => encodeBinlog(decodeBinlog(bytes).slice(1))).toThrow(
        expect.objectContaining({ kind: 'encode', schemaPath: '$.type' }),
      );
    },
  );

  it('--assume-format writes such a dump as a reader takes it, and says so', () => {
    const out = join(tmp, 'assumed.bin');
    const r = binlog(['encode', '--assume-format', '-o', out], lines.slice(1).join('\n'));
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe(
      'binlog: -: the first event is no FORMAT_DESCRIPTION_EVENT: ' +
        'the events were written as a reader takes a binlog without one (binlog v4, 19-byte event headers, ' +
        'no checksums)',
    );
    const events = decodeBinlog(readFileSync(out));
    expect(events.map((e) => e.type)).toEqual(
      decodeBinlog(bytes)
        .slice(1)
        .map((e) => e.type),
    );
    expect(events.every((e) => e.checksum === undefined)).toBe(true);
    // With the FORMAT_DESCRIPTION_EVENT there, nothing is assumed, nor said.
    expect(binlog(['encode', '--assume-format', '-o', join(tmp, 'not-assumed.bin')], dump).stderr).toBe('');
  });

  it('refuses a row value of the wrong type with its line and the JSON path of the value, in either image', () => {
    const write = lines.findIndex((l) => l.includes('"type":"WRITE_ROWS_EVENT_V1"'));
    const update = lines.findIndex((l) => l.includes('"type":"UPDATE_ROWS_EVENT_V1"'));
    const edit = (k: number, from: string, to: string) =>
      lines.map((l, i) => (i === k ? l.replace(from, to) : l)).join('\n');
    const refused = (input: string) => binlog(['encode', '-o', join(tmp, 'bad-row.bin')], input).stderr.trim();
    expect(refused(edit(write, '"id":2', '"id":"two"'))).toBe(
      `binlog: -: line ${write + 1}: $.rows[1].after.id: expected a number, found "two"`,
    );
    expect(refused(edit(update, '"before":{"id":1', '"before":{"id":[1]'))).toBe(
      `binlog: -: line ${update + 1}: $.rows[0].before.id: expected a number, found [1]`,
    );
    expect(refused(edit(write, '"born":"1815-12-10"', '"born":"10 Dec 1815"'))).toBe(
      `binlog: -: line ${write + 1}: $.rows[0].after.born: '10 Dec 1815' is not a date YYYY-MM-DD`,
    );
  });

  it('needs -o', () => {
    expect(binlog(['encode'], dump).code).toBe(2);
  });
});

describeWithFixtures('MySQL transaction_length follows an edit', () => {
  const lines = () =>
    decodeBinlog(readFileSync(fixtures().find((f) => f.name.endsWith('binlog-invisible-columns.000001'))!.path)).map(
      (e) => JSON.parse(toJsonLine(e)),
    );
  const size = (es: { header: { eventSize: number } }[]) => es.reduce((n, e) => n + e.header.eventSize, 0);
  const reencode = (events: any[]) =>
    decodeBinlog(encodeBinlog(events.map((l, i) => eventFromJson(l, `line ${i + 1}`))));
  const lengthOf = (e: unknown) => (e as { transactionLength: bigint }).transactionLength;
  /**
   * Lengthens one string value of the row event at `rows` by 5 bytes, and checks that the GTID event before
   * it, whose transaction_length was its group's size, gets the new size. The group ends at the next GTID
   * event or at one never in a group.
   */
  const expectLengthFollows = (events: any[], rows: number) => {
    const gtid = events.findLastIndex((e, i) => i < rows && e.type === 'GTID_LOG_EVENT');
    const next = events.findIndex(
      (e, i) => i > rows && ['GTID_LOG_EVENT', 'ROTATE_EVENT', 'STOP_EVENT'].includes(e.type),
    );
    expect(events[gtid].transactionLength).toBe(size(events.slice(gtid, next)));
    const image = events[rows].rows[0].after ?? events[rows].rows[0].before;
    const key = Object.keys(image).find((k) => typeof image[k] === 'string')!;
    image[key] += '12345';
    const out = reencode(events);
    expect(lengthOf(out[gtid])).toBe(BigInt(size(out.slice(gtid, next))));
    expect(size(out.slice(gtid, next))).toBe(size(events.slice(gtid, next)) + 5);
    return { gtid, next };
  };

  it('a GTID event whose transaction_length was its group size gets the new size after an edit', () => {
    const events = lines();
    const { gtid } = expectLengthFollows(
      events,
      events.findIndex((e) => e.rows),
    );
    // A value that was not the group's size is kept as given.
    events[gtid].transactionLength = 7;
    expect(lengthOf(reencode(events)[gtid])).toBe(7n);
  });

  it('encodes each event once and decodes none, the lengths computed, even after an edit', () => {
    const events = lines();
    const rows = events.findIndex((e) => e.rows);
    const image = events[rows].rows[0].after ?? events[rows].rows[0].before;
    const key = Object.keys(image).find((k) => typeof image[k] === 'string')!;
    image[key] += '12345';
    const inputs = events.map((l, i) =>
      eventFromJson({ ...l, ...(l.type === 'GTID_LOG_EVENT' ? { transactionLength: null } : {}) }, `line ${i + 1}`),
    );
    const encode = vi.spyOn(EventEncoder.prototype, 'encode');
    const decode = vi.spyOn(EventDecoder.prototype, 'decode');
    let bytes: Uint8Array;
    try {
      bytes = encodeBinlog(inputs);
      expect(encode).toHaveBeenCalledTimes(events.length);
      expect(decode).not.toHaveBeenCalled();
    } finally {
      encode.mockRestore();
      decode.mockRestore();
    }
    const out = decodeBinlog(bytes);
    const gtid = events.findLastIndex((e, i) => i < rows && e.type === 'GTID_LOG_EVENT');
    const next = events.findIndex(
      (e, i) => i > rows && ['GTID_LOG_EVENT', 'ROTATE_EVENT', 'STOP_EVENT'].includes(e.type),
    );
    expect(lengthOf(out[gtid])).toBe(BigInt(size(out.slice(gtid, next))));
    expect(size(out.slice(gtid, next))).toBe(size(events.slice(gtid, next)) + 5);
  });

  it('encodes each event once when an edit changes the width of the length, its GTID event then shorter', () => {
    const events = lines();
    // The second group: its GTID event (79 bytes) and a 217-byte QUERY, 296 bytes counted in 3 (packed, ≥ 251).
    const gtid = events.findIndex((e, i) => i > 2 && e.type === 'GTID_LOG_EVENT');
    expect([events[gtid].transactionLength, events[gtid + 1].header.eventSize]).toEqual([296, 217]);
    events[gtid + 1].query = events[gtid + 1].query.slice(0, -50);
    const encode = vi.spyOn(EventEncoder.prototype, 'encode');
    let bytes: Uint8Array;
    try {
      bytes = encodeBinlog(events.map((l, i) => eventFromJson(l, `line ${i + 1}`)));
      expect(encode).toHaveBeenCalledTimes(events.length);
    } finally {
      encode.mockRestore();
    }
    const out = decodeBinlog(bytes);
    // 167 bytes of QUERY and 77 of GTID event: the length fits in 1 byte.
    expect(out.slice(gtid, gtid + 2).map((e) => e.header.eventSize)).toEqual([77, 167]);
    expect(lengthOf(out[gtid])).toBe(244n);
  });

  it(
    'a file made by hand, without sizes or positions: the ' + 'lengths computed, each event but the GTID encoded once',
    () => {
      const source = readFileSync(fixtures().find((f) => f.name.endsWith('binlog-invisible-columns.000001'))!.path);
      const inputs = lines().map((l, i) => {
        const {
          pos: _pos,
          header: { eventSize: _size, ...header },
          ...rest
        } = l;
        return eventFromJson(
          { ...rest, header, ...(l.type === 'GTID_LOG_EVENT' ? { transactionLength: null } : {}) },
          `line ${i + 1}`,
        );
      });
      const encode = vi.spyOn(EventEncoder.prototype, 'encode');
      let bytes: Uint8Array;
      try {
        bytes = encodeBinlog(inputs);
        const times = (type: string) => encode.mock.calls.filter(([e]) => e.type === type).length;
        const count = (type: string) => inputs.filter((e) => e.type === type).length;
        // Without its source size a GTID event is encoded once to measure it, and once with its length.
        for (const type of new Set(inputs.map((e) => e.type)))
          expect(times(type), type).toBe((type === 'GTID_LOG_EVENT' ? 2 : 1) * count(type));
      } finally {
        encode.mockRestore();
      }
      // Nothing was edited: the server's lengths come out, and so its file.
      expect(Buffer.compare(bytes, source)).toBe(0);
    },
  );

  it("the file's last group ends at the STOP event, which it does not count", () => {
    const events = lines();
    const { next } = expectLengthFollows(
      events,
      events.findLastIndex((e) => e.rows),
    );
    expect([events[next].type, next]).toEqual(['STOP_EVENT', events.length - 1]);
  });
});
