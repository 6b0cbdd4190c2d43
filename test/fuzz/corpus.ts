/**
 * The seed binlogs the fuzzer mutates: the bundled sample, binlogs of the events no fixture holds (LOAD
 * DATA, Group Replication, v1), and real fixtures of varied servers when present.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBinlog } from '../../runtime/io/stream.js';
import { fixtures, fixturesAvailable } from '../support/fixtures.js';
import { legacyBinlogs } from '../support/legacy.js';

export function fuzzCorpus(limit = 12): Uint8Array[] {
  const sample = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sample.bin'));
  const out: Uint8Array[] = [new Uint8Array(sample), ...legacyBinlogs()];
  if (!fixturesAvailable) return out;
  // Small decodable files, spread over the servers, so each case is quick and the formats vary.
  const decodable = fixtures().filter((f) => {
    try {
      const b = readFileSync(f.path);
      return b.length < 20_000 && decodeBinlog(b).length > 3;
    } catch {
      return false;
    }
  });
  const seeds = out.length;
  const step = Math.max(1, Math.floor(decodable.length / limit));
  for (let i = 0; i < decodable.length && out.length - seeds < limit; i += step) out.push(new Uint8Array(readFileSync(decodable[i]!.path)));
  // The few files with compressed transactions and tagged GTIDs, whatever the spread picked.
  for (const f of decodable.filter((d) => /TRANSACTION_PAYLOAD|GTID_TAGGED/.test(d.notes))) out.push(new Uint8Array(readFileSync(f.path)));
  return out;
}
