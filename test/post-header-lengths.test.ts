/**
 * The post-header lengths the schemas fix (EventPostHeaderLengths, from each body's `postHeader`) against
 * the FORMAT_DESCRIPTION events of real servers: test/fixtures/sample.bin (MariaDB 10.11) always, and
 * every binlog of the shared fixtures when they are there. A server lists 0 for an event it never writes
 * (MySQL 8 for LOAD, MariaDB for rows v0); any other length it lists for an event of its own flavor must
 * be the schemas'.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventPostHeaderLengths, EventServers, EventTypeNames, EventTypes } from '../generated/events.js';
import { DROP_TREE_SERVER_VERSIONS } from '../generated/header.js';
import { iterateBinlog } from '../runtime/io/stream.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

interface Listed {
  file: string;
  serverVersion: string;
  lengths: number[];
}

/** The first FORMAT_DESCRIPTION of a binlog, if it has one that decodes. */
function firstFde(file: string): Listed | undefined {
  try {
    for (const e of iterateBinlog(readFileSync(file), { onError: () => 'skip' })) {
      if (e.type === 'FORMAT_DESCRIPTION_EVENT' && 'postHeaderLengths' in e) {
        return { file, serverVersion: String(e.serverVersion), lengths: e.postHeaderLengths as number[] };
      }
    }
  } catch {
    // An encrypted or truncated fixture: nothing to compare.
  }
  return undefined;
}

/** Every listed length the schemas fix for an event of the server's flavor, beside the schemas' (0 lists as 0). */
function mismatches(fde: Listed): string[] {
  const flavor = fde.serverVersion.includes('MariaDB') ? 'mariadb' : 'mysql';
  const out: string[] = [];
  fde.lengths.forEach((listed, i) => {
    const code = i + 1;
    const fixed = EventPostHeaderLengths[code];
    const server = EventServers[EventTypeNames[code]!];
    if (fixed === undefined || listed === 0 || (server !== 'both' && server !== flavor)) return;
    if (listed !== fixed)
      out.push(`${fde.serverVersion} ${EventTypeNames[code]}: lists ${listed}, the schemas ${fixed}`);
  });
  return out;
}

/** The codes whose nonzero schema length some FDE lists (so the comparison has covered them). */
function covered(fdes: Listed[]): Set<number> {
  return new Set(
    fdes.flatMap((f) =>
      f.lengths.flatMap((listed, i) => (listed !== 0 && listed === EventPostHeaderLengths[i + 1] ? [i + 1] : [])),
    ),
  );
}

describe('post-header lengths: the schemas against a real MariaDB 10.11 server', () => {
  const sample = firstFde(join(import.meta.dirname, 'fixtures', 'sample.bin'))!;
  it('agree with every length it lists for its events', () => {
    expect(sample.serverVersion).toMatch(/MariaDB/);
    expect(mismatches(sample)).toEqual([]);
  });
  it('cover its QUERY, TABLE_MAP, rows, GTID_LIST and BINLOG_CHECKPOINT lengths', () => {
    const seen = covered([sample]);
    for (const name of [
      'QUERY_EVENT',
      'TABLE_MAP_EVENT',
      'WRITE_ROWS_EVENT_V1',
      'WRITE_ROWS_EVENT',
      'GTID_LIST_EVENT',
      'BINLOG_CHECKPOINT_EVENT',
      'QUERY_COMPRESSED_EVENT',
    ] as const) {
      expect(seen.has(EventTypes[name]), name).toBe(true);
    }
  });
});

describeWithFixtures('post-header lengths: the schemas against every real server of the shared fixtures', () => {
  const dropTree = new RegExp(DROP_TREE_SERVER_VERSIONS);
  // A drop tree lists its lengths by its own permuted codes (format-state.ts moves them); Amazon Aurora
  // (5.7.12) lists 100 types, codes past MySQL 5.7's 38 its own (41 is 8 there, not HEARTBEAT_V2's).
  const fdes = fixtures()
    .filter((f) => !f.name.includes('aurora'))
    .flatMap((f) => firstFde(f.path) ?? [])
    .filter((f) => !dropTree.test(f.serverVersion));
  it("agree with every length each lists for its flavor's events", () => {
    expect(fdes.length).toBeGreaterThan(100);
    expect(fdes.flatMap(mismatches)).toEqual([]);
  });
  it('every nonzero length the schemas fix is one some server lists', () => {
    const seen = covered(fdes);
    const unlisted = Object.entries(EventPostHeaderLengths).filter(
      ([code, length]) => length !== 0 && !seen.has(Number(code)),
    );
    expect(unlisted.map(([code]) => EventTypeNames[Number(code)])).toEqual([]);
  });
});
