/**
 * The seed binlogs the fuzzer mutates: the bundled sample, binlogs of the events no fixture holds (LOAD
 * DATA, Group Replication, v1), real MariaDB encrypt_binlog files (AES_CBC, with checksums and, written by
 * BinlogWriter, without), and real fixtures of varied servers when present; fuzzSeeds adds the real AES_CTR
 * files and MySQL 8 encrypted files, each with the options that read it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BinlogWriter } from '../../builder/binlog-writer.js';
import { parseKeyFile, type EncryptionOptions } from '../../runtime/events/encryption.js';
import { decodeBinlog } from '../../runtime/io/stream.js';
import type { Keyring } from '../../runtime/io/mysql-encryption.js';
import { fixtures, fixturesAvailable } from '../support/fixtures.js';
import { legacyBinlogs } from '../support/legacy.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** The keys and cipher of the MariaDB AES_CBC seeds, with which the seeds without options are read too. */
export const FUZZ_ENCRYPTION: EncryptionOptions = {
  keys: parseKeyFile(readFileSync(join(FIXTURES, 'encrypted', 'cbc.keys'))),
  cipher: 'AES_CBC',
};

/** The real AES_CTR files' keys (their key file is itself encrypted). */
const CTR_ENCRYPTION: EncryptionOptions = {
  keys: parseKeyFile(readFileSync(join(FIXTURES, 'encrypted', 'ctr.keys.enc')), 'fixture-secret'),
  cipher: 'AES_CTR',
};

const MYSQL_KEY_ID = 'MySQLReplicationKey_00000000-0000-0000-0000-000000000001_1';
const MYSQL_KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

/** How a seed's mutants are read: a MariaDB seed's keys and cipher, or a MySQL encrypted seed's keyring. */
export type SeedOptions = { mariadb: EncryptionOptions } | { keyring: Keyring };

/** A seed binlog and how its mutants are read. */
export interface FuzzSeed {
  bytes: Uint8Array;
  options: SeedOptions;
}

/**
 * The seeds whose mutants need options of their own: the real AES_CTR files, and MySQL 8 encrypted files the
 * writer makes (with checksums and without, so that a flipped byte of the stream may reach an event's body).
 */
function ownKeySeeds(): FuzzSeed[] {
  const ctr = ['ctr.binlog.000001', 'ctr.binlog.000002'].map((f) => ({
    bytes: new Uint8Array(readFileSync(join(FIXTURES, 'encrypted', f))),
    options: { mariadb: CTR_ENCRYPTION },
  }));
  const keyring: Keyring = new Map([[MYSQL_KEY_ID, MYSQL_KEY]]);
  const mysql = (['CRC32', 'NONE'] as const).map((checksum) => {
    const encryption = { mysql: { keyId: MYSQL_KEY_ID, key: MYSQL_KEY, password: new Uint8Array(32).fill(3) } };
    const w = new BinlogWriter({ timestamp: 1_700_000_000, checksum, encryption });
    const t = w.createTable({ schema: 'm', name: 't', columns: [{ name: 'id', type: 'INT' }] });
    for (let i = 0; i < 3; i++) w.insert(t, [{ id: i }]).commit();
    return { bytes: w.toBytes(), options: { keyring } };
  });
  return [...ctr, ...mysql];
}

/** Every seed with how it is read: fuzzCorpus's under FUZZ_ENCRYPTION, then those with keys of their own. */
export function fuzzSeeds(limit = 12): FuzzSeed[] {
  const mariadb = { mariadb: FUZZ_ENCRYPTION };
  return [...fuzzCorpus(limit).map((bytes) => ({ bytes, options: mariadb })), ...ownKeySeeds()];
}

/**
 * The encrypted seeds: the real server's two files, and a file without checksums, whose events' log_pos
 * tell the cipher.
 */
function encryptedSeeds(): Uint8Array[] {
  const real = ['cbc.binlog.000001', 'cbc.binlog.000002'].map((f) => readFileSync(join(FIXTURES, 'encrypted', f)));
  const nonce = new Uint8Array(12).fill(7);
  const w = new BinlogWriter({ timestamp: 1_700_000_000, checksum: 'NONE', encryption: { ...FUZZ_ENCRYPTION, nonce } });
  const columns = [
    { name: 'id', type: 'INT' },
    { name: 's', type: 'VARCHAR(40)' },
  ];
  const t = w.createTable({ schema: 'f', name: 't', columns });
  for (let i = 0; i < 4; i++) w.insert(t, [{ id: i, s: 'z'.repeat(i * 5) }]).commit();
  return [...real.map((b) => new Uint8Array(b)), w.toBytes()];
}

export function fuzzCorpus(limit = 12): Uint8Array[] {
  const sample = readFileSync(join(FIXTURES, 'sample.bin'));
  const out: Uint8Array[] = [new Uint8Array(sample), ...legacyBinlogs(), ...encryptedSeeds()];
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
  for (let i = 0; i < decodable.length && out.length - seeds < limit; i += step)
    out.push(new Uint8Array(readFileSync(decodable[i]!.path)));
  // The few files with compressed transactions and tagged GTIDs, whatever the spread picked.
  for (const f of decodable.filter((d) => /TRANSACTION_PAYLOAD|GTID_TAGGED/.test(d.notes)))
    out.push(new Uint8Array(readFileSync(f.path)));
  return out;
}
