/**
 * A TRANSACTION_PAYLOAD's events as a flat stream (the readers' default) or nested in it (`binlog dump`'s
 * default), on MySQL 8's compressed transactions: what each form holds, and that both encode back to the
 * file byte for byte, or with an edit or a left-out event compressed anew.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { eventFromJson, type BinlogEvent } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { EventFilter } from '../runtime/io/filter.js';
import { decodeBinlog, encodeBinlog, iterateBinlog, readBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { describeWithFixtures, FIXTURES } from './support/fixtures.js';

const root = join(import.meta.dirname, '..');
const compression = join(
  FIXTURES,
  'binlogs',
  'blackbeam__rust_mysql_common',
  'test-data__binlogs__transaction_compression.000001',
);
const movies = join(
  FIXTURES,
  'binlogs',
  'osheroff__mysql-binlog-connector-java',
  'src__test__resources__mysql-bin.compressed',
);
const read = (path: string) => new Uint8Array(readFileSync(path));
const tmp = mkdtempSync(join(tmpdir(), 'binlog-flat-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const jsonOf = (events: BinlogEvent[]) => events.map((e) => JSON.parse(toJsonLine(e)));
const fromJson = (lines: unknown[]) => lines.map((l, i) => eventFromJson(l, `line ${i + 1}: $`));

function binlog(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'binlog'), ...args], { input, maxBuffer: 1 << 26 });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describeWithFixtures('TRANSACTION_PAYLOAD events, flat and nested', () => {
  it("the README's loop finds the row inside transaction_compression.000001's compressed transaction", async () => {
    const found: unknown[] = [];
    for await (const event of readBinlog(compression)) {
      if ('rows' in event)
        for (const change of event.rows ?? []) found.push([event.table, change.after, event.inPayload]);
    }
    expect(found).toEqual([['test.tb1', { '@1': 1 }, 274]]);
  });

  it(
    'flat: the payload event says that its events follow, and ' +
      'each of them names the payload, its pos in the payload',
    async () => {
      const events = decodeBinlog(read(compression));
      expect(events.map((e) => [e.type, e.pos, e.inPayload, e.eventsFollow])).toEqual([
        ['FORMAT_DESCRIPTION_EVENT', 4, undefined, undefined],
        ['PREVIOUS_GTIDS_LOG_EVENT', 126, undefined, undefined],
        ['ANONYMOUS_GTID_LOG_EVENT', 197, undefined, undefined],
        ['TRANSACTION_PAYLOAD_EVENT', 274, undefined, true],
        ['QUERY_EVENT', 0, 274, undefined],
        ['TABLE_MAP_EVENT', 71, 274, undefined],
        ['WRITE_ROWS_EVENT', 116, 274, undefined],
        ['XID_EVENT', 152, 274, undefined],
        ['ROTATE_EVENT', 431, undefined, undefined],
      ]);
      expect(events[3]).not.toHaveProperty('events');
      // Nested, the same events are the payload's.
      const nested = decodeBinlog(read(compression), { payloads: 'nested' });
      expect(nested.map((e) => e.type)).toEqual([
        'FORMAT_DESCRIPTION_EVENT',
        'PREVIOUS_GTIDS_LOG_EVENT',
        'ANONYMOUS_GTID_LOG_EVENT',
        'TRANSACTION_PAYLOAD_EVENT',
        'ROTATE_EVENT',
      ]);
      const { inPayload: _, ...inner } = events[6]!;
      expect(nested[3]!.events![2]).toEqual(inner);
      // Read from a path, every event names its file, flat ones too.
      const names = new Set<string | undefined>();
      for await (const e of readBinlog(compression)) names.add(e.file);
      expect([...names]).toEqual(['test-data__binlogs__transaction_compression.000001']);
    },
  );

  it('filters see a payload whole, as the transaction it is, before its events are laid out flat', () => {
    const bytes = read(movies);
    const types = (filter?: EventFilter) => decodeBinlog(bytes, { filter }).map((e) => [e.type, e.inPayload]);
    const all = types();
    expect(all.filter(([, inPayload]) => inPayload !== undefined).map(([type]) => type)).toEqual([
      'QUERY_EVENT',
      'TABLE_MAP_EVENT',
      'UPDATE_ROWS_EVENT',
      'XID_EVENT',
    ]);
    expect(types({ table: 'demo.movies' })).toEqual(all);
    const other = types({ table: 'demo.other' });
    expect(other.some(([type, inPayload]) => inPayload !== undefined || type === 'TRANSACTION_PAYLOAD_EVENT')).toBe(
      false,
    );
  });

  it('both forms encode back byte for byte, from the events and through their JSON', () => {
    for (const path of [compression, movies]) {
      const bytes = read(path);
      for (const payloads of ['flat', 'nested'] as const) {
        const options: ReadOptions = { payloads };
        expect(Buffer.compare(encodeBinlog(iterateBinlog(bytes, options)), bytes), `${path} ${payloads}`).toBe(0);
        expect(
          Buffer.compare(encodeBinlog(fromJson(jsonOf(decodeBinlog(bytes, options)))), bytes),
          `${path} ${payloads} JSON`,
        ).toBe(0);
      }
    }
  });

  it('binlog dump keeps them nested unless --payloads=flat; binlog encode gives the file back from either', () => {
    const nested = binlog(['dump', compression]).stdout.trim().split('\n');
    expect(nested).toHaveLength(5);
    expect(JSON.parse(nested[3]!).events).toHaveLength(4);
    const flat = binlog(['dump', '--payloads=flat', compression]).stdout.trim().split('\n');
    expect(flat.map((l) => JSON.parse(l).inPayload)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      274,
      274,
      274,
      274,
      undefined,
    ]);
    for (const [form, dump] of [
      ['nested', nested],
      ['flat', flat],
    ] as const) {
      const out = join(tmp, `${form}.bin`);
      expect(binlog(['encode', '-o', out], dump.join('\n')).stderr, form).toBe('');
      expect(Buffer.compare(readFileSync(out), read(compression)), form).toBe(0);
    }
    expect(binlog(['dump', '--payloads=inside', compression]).stderr).toContain('--payloads is nested or flat');
  });

  it(
    'a flat event edited, or left out, changes its payload, ' + 'which is compressed anew, and the GTID length follows',
    () => {
      const json = jsonOf(decodeBinlog(read(movies)));
      const update = json.find((e) => e.type === 'UPDATE_ROWS_EVENT');
      update.rows[0].after['@5'] = 'Western|Action|Drama';
      json.find((e) => e.type === 'ANONYMOUS_GTID_LOG_EVENT').transactionLength = null;
      const back = decodeBinlog(encodeBinlog(fromJson(json)), { payloads: 'nested' });
      const payload = back.find((e) => e.type === 'TRANSACTION_PAYLOAD_EVENT')!;
      expect((payload.events![2] as { rows: { after: Record<string, unknown> }[] }).rows[0]!.after['@5']).toBe(
        'Western|Action|Drama',
      );
      const gtid = back.find((e) => e.type === 'ANONYMOUS_GTID_LOG_EVENT') as {
        transactionLength?: bigint;
        header: { eventSize: number };
      };
      expect(gtid.transactionLength).toBe(BigInt(gtid.header.eventSize + payload.header.eventSize));

      const withoutQuery = json.filter((e) => !(e.type === 'QUERY_EVENT' && e.inPayload !== undefined));
      const shorter = decodeBinlog(encodeBinlog(fromJson(withoutQuery)), { payloads: 'nested' });
      expect(shorter.find((e) => e.type === 'TRANSACTION_PAYLOAD_EVENT')!.events!.map((e) => e.type)).toEqual([
        'TABLE_MAP_EVENT',
        'UPDATE_ROWS_EVENT',
        'XID_EVENT',
      ]);
      // Every event left out: a payload of none, not the stored bytes.
      const none = json.filter((e) => e.inPayload === undefined);
      expect(
        decodeBinlog(encodeBinlog(fromJson(none)), { payloads: 'nested' }).find(
          (e) => e.type === 'TRANSACTION_PAYLOAD_EVENT',
        )!.events,
      ).toEqual([]);
    },
  );

  it('refuses a flat event away from its payload, and a payload with its events both ways, naming the line', () => {
    const flat = binlog(['dump', '--payloads=flat', compression]).stdout.trim().split('\n');
    const encode = (lines: string[]) =>
      binlog(['encode', '-o', join(tmp, 'refused.bin')], lines.join('\n')).stderr.trim();
    const payloadMissing = flat.filter((_, i) => i !== 3);
    expect(encode(payloadMissing)).toBe(
      'binlog: -: line 4: $.inPayload: ' +
        'an event of the TRANSACTION_PAYLOAD_EVENT at 274 (its inPayload) comes right after that event or ' +
        'another of its events',
    );
    const both = [
      ...flat.slice(0, 3),
      binlog(['dump', compression]).stdout.split('\n')[3]!.replace(/}$/, ',"eventsFollow":true}'),
      ...flat.slice(4),
    ];
    expect(encode(both)).toBe(
      'binlog: -: line 4: $.eventsFollow: ' +
        'a payload event has its events either in `events` or after it (`eventsFollow`), not both',
    );
  });

  it(
    "a bad row value names its own line: the flat event's, or the payload's " +
      'with the path inside it, not the line that ends the transaction',
    () => {
      const bad = (lines: string[]) => lines.map((l) => l.replace('"@1":1', '"@1":"one"'));
      const encode = (lines: string[]) =>
        binlog(['encode', '-o', join(tmp, 'refused.bin')], bad(lines).join('\n')).stderr.trim();
      const flat = binlog(['dump', '--payloads=flat', compression]).stdout.trim().split('\n');
      expect(encode(flat)).toBe('binlog: -: line 7: $.rows[0].after.@1: expected a number, found "one"');
      const nested = binlog(['dump', compression]).stdout.trim().split('\n');
      expect(encode(nested)).toBe('binlog: -: line 4: $.events[2].rows[0].after.@1: expected a number, found "one"');
    },
  );
});
