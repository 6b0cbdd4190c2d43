/**
 * The keyring_file plugin's file (plugin/keyring: buffered_file_io.cc, keyring_key.cc, checker_ver_2_0.cc),
 * for --keyring. The files are put together here byte by byte from the format: the version text, each key as
 * five 64-bit little-endian lengths, id, type, user, the key XORed with "*305=Ljt0*!@$Hnm(*-9-w;:", zero
 * padding to 8 bytes; "EOF"; in 2.0 the SHA-256 of the keys' bytes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BinlogWriter, decodeBinlog, KeyError, parseKeyringFile, toJsonLine } from '../index.js';
import { runBinlog } from './support/cli.js';

const binlogKeyId = 'MySQLReplicationKey_4d3e2f10-0000-11ee-8000-0242ac110002_1';
const binlogKey = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const mask = Buffer.from('*305=Ljt0*!@$Hnm(*-9-w;:', 'latin1');

/** One key's record, as Key::store_in_buffer lays it out on a 64-bit little-endian server. */
function record(id: string, type: string, user: string, key: Uint8Array): Buffer {
  const strings = Buffer.concat([
    Buffer.from(id, 'latin1'),
    Buffer.from(type, 'latin1'),
    Buffer.from(user, 'latin1'),
    Buffer.from(key.map((b, i) => b ^ mask[i % mask.length])),
  ]);
  const unpadded = 40 + strings.length;
  const length = Math.ceil(unpadded / 8) * 8;
  const head = Buffer.alloc(40);
  [length, id.length, type.length, user.length, key.length].forEach((n, i) => head.writeBigUInt64LE(BigInt(n), i * 8));
  return Buffer.concat([head, strings, Buffer.alloc(length - unpadded)]);
}

function keyringFile(version: '1.0' | '2.0', records: Buffer[]): Buffer {
  const keys = Buffer.concat(records);
  const digest = version === '2.0' ? createHash('sha256').update(keys).digest() : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(`Keyring file version:${version}`), keys, Buffer.from('EOF'), digest]);
}

const records = [
  record('INNODBKey-4d3e2f10-0000-11ee-8000-0242ac110002-1', 'AES', '', new Uint8Array(32).fill(7)),
  record(binlogKeyId, 'AES', '', binlogKey),
  record(binlogKeyId, 'AES', 'root@localhost', new Uint8Array(32)),
  record('k16', 'AES', '', new Uint8Array(16).fill(1)),
];

describe('a keyring_file plugin file', () => {
  it('gives the server keys of version 1.0 and 2.0 files, unobfuscated, without the user keys', () => {
    for (const version of ['1.0', '2.0'] as const) {
      const keys = parseKeyringFile(keyringFile(version, records));
      expect([...keys.keys()]).toEqual(['INNODBKey-4d3e2f10-0000-11ee-8000-0242ac110002-1', binlogKeyId, 'k16']);
      expect(keys.get(binlogKeyId)).toEqual(binlogKey);
      expect(keys.get('k16')).toEqual(new Uint8Array(16).fill(1));
    }
    // An empty keyring: the version, the tag, the digest of nothing.
    expect(parseKeyringFile(keyringFile('2.0', [])).size).toBe(0);
  });

  it('refuses a damaged digest, a missing tag, a length that does not fit, and padding not to the word', () => {
    const file = keyringFile('2.0', records);
    const damaged = Buffer.from(file);
    damaged[60] ^= 1;
    expect(() => parseKeyringFile(damaged)).toThrow(KeyError);
    expect(() => parseKeyringFile(damaged)).toThrow(`SHA-256 digest at offset ${file.length - 32}`);
    expect(() => parseKeyringFile(keyringFile('1.0', records).subarray(0, -1))).toThrow('no EOF tag');
    const long = record('k', 'AES', '', new Uint8Array(16));
    long.writeBigUInt64LE(4096n, 0);
    expect(() => parseKeyringFile(keyringFile('1.0', [long]))).toThrow('key at offset 24 has a length (4096)');
    const overPadded = Buffer.concat([record('k', 'AES', '', new Uint8Array(16)), Buffer.alloc(8)]);
    overPadded.writeBigUInt64LE(BigInt(overPadded.length), 0);
    expect(() => parseKeyringFile(keyringFile('1.0', [overPadded]))).toThrow('has 12 bytes of padding, not 4');
    const huge = record('k', 'AES', '', new Uint8Array(16));
    huge.writeUInt32LE(1, 36); // the key length's high half
    expect(() => parseKeyringFile(keyringFile('1.0', [huge]))).toThrow(KeyError);
  });

  it('decrypts a MySQL encrypted binlog with binlog dump --keyring', async () => {
    const w = new BinlogWriter({
      timestamp: 1_700_000_000,
      encryption: { mysql: { keyId: binlogKeyId, key: binlogKey } },
    });
    const t = w.table({ schema: 's', name: 't', columns: [{ name: 'id', type: 'int' }] });
    w.insert(t, [{ id: 1 }, { id: 2 }]).commit();
    const encrypted = w.end().toBytes();
    const keyring = parseKeyringFile(keyringFile('2.0', records));
    expect(decodeBinlog(encrypted, { keyring }).filter((e) => e.type === 'WRITE_ROWS_EVENT_V1')).toHaveLength(1);
    const dir = mkdtempSync(join(tmpdir(), 'binlog-keyring-file-'));
    try {
      writeFileSync(join(dir, 'keyring'), keyringFile('2.0', records));
      writeFileSync(join(dir, 'x.bin'), encrypted);
      const dump = await runBinlog(['dump', `--keyring=${join(dir, 'keyring')}`, join(dir, 'x.bin')]);
      expect(dump.stderr).toBe('');
      const lines = dump.stdout.trim().split('\n').slice(1);
      const plain = decodeBinlog(encrypted, { keyring }).map((e) => JSON.parse(toJsonLine({ ...e, file: 'x.bin' })));
      expect(lines.map((l) => JSON.parse(l).type)).toEqual(plain.map((e) => e.type));
      writeFileSync(join(dir, 'keyring'), keyringFile('2.0', records).subarray(0, -1));
      const refused = await runBinlog(['dump', `--keyring=${join(dir, 'keyring')}`, join(dir, 'x.bin')]);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain('--keyring');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
