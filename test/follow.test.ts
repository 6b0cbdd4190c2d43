/**
 * --follow against a real MariaDB server writing while we read: every event once, in order, across FLUSH
 * LOGS, each naming its file; and going on later from a noted file and position.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { followBinlog } from '../runtime/io/follow.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

describeWithServer('following a binlog the server is writing', () => {
  let server: MariadbServer;
  beforeAll(async () => {
    server = await startMariadb();
    await server.sql('CREATE DATABASE f; CREATE TABLE f.t (id INT PRIMARY KEY, v VARCHAR(20))');
  }, 120_000);
  afterAll(() => server?.stop());

  it('sees every event once, in order, while the server writes and rotates', async () => {
    const [first] = await server.binlogFiles();
    const stop = new AbortController();
    const seen: BinlogEvent[] = [];
    const reading = (async () => {
      for await (const e of followBinlog(first!, { signal: stop.signal, pollMs: 20 })) seen.push(e);
    })();
    for (let i = 1; i <= 30; i++) {
      await server.sql(`INSERT INTO f.t VALUES (${i}, 'row ${i}')`);
      if (i === 10 || i === 20) await server.flushLogs();
    }
    const files = await server.binlogFiles();
    expect(files.length).toBe(3);
    // Wait until the reader has caught up with what the server wrote.
    const expected = files.flatMap((f) => decodeBinlog(readFileSync(f)).map((e) => ({ ...e, file: basename(f) })));
    for (let t = 0; t < 200 && seen.length < expected.length; t++) await new Promise((r) => setTimeout(r, 25));
    stop.abort();
    await reading;
    const key = (e: BinlogEvent) => `${e.file}:${e.type}@${e.pos}/${e.header.timestamp}`;
    expect(seen.map(key)).toEqual(expected.map(key));
    const inserted = seen.flatMap((e) => ('rows' in e ? (e.rows ?? []).map((r) => r.after?.id) : []));
    expect(inserted).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.file))).toEqual(new Set(files.map((f) => basename(f))));
  }, 60_000);

  it('goes on from a noted file and position: the events from there on, across the rotation', async () => {
    const files = await server.binlogFiles();
    const second = decodeBinlog(readFileSync(files[1]!));
    const noted = second.find((e) => e.type === 'GTID_EVENT' && e.pos > 400)!;
    const named = (f: string, events: BinlogEvent[]) => events.map((e) => `${basename(f)}:${e.type}@${e.pos}`);
    const expected = [
      ...named(
        files[1]!,
        second.filter((e) => e.pos >= noted.pos),
      ),
      ...named(files[2]!, decodeBinlog(readFileSync(files[2]!))),
    ];
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const e of followBinlog(files[1]!, { position: noted.pos, signal: stop.signal, pollMs: 20 })) {
      seen.push(`${e.file}:${e.type}@${e.pos}`);
      if (seen.length === expected.length) stop.abort();
    }
    expect(seen).toEqual(expected);
    const inside = followBinlog(files[1]!, { position: noted.pos + 1, signal: new AbortController().signal });
    await expect(inside.next()).rejects.toThrow(`position ${noted.pos + 1} is inside the event at ${noted.pos}`);
  }, 60_000);
});
