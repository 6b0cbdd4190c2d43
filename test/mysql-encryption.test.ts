/**
 * MySQL 8's encrypted binlog files (binlog_encryption=ON), written here as MySQL's sources say they are
 * (rpl_log_encryption.h, stream_cipher.cc) and checked independently: the header's layout byte for byte, the
 * file password under AES-256-CBC with the keyring key, the binlog under AES-256-CTR with SHA-512 of the
 * password; readers given a component_keyring_file keyring read the plain binlog's events, whole or in chunks.
 */
import { execFileSync } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BinlogWriter, decodeBinlog, KeyError, readBinlog, toJsonLine, type BinlogWriterOptions } from '../index.js';
import { encryptMysqlBinlog, parseKeyring } from '../runtime/io/mysql-encryption.js';
import { runBinlog } from './support/cli.js';

const sample = new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin')));
const keyId = 'MySQLReplicationKey_4d3e2f10-0000-11ee-8000-0242ac110002_1';
const key = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const password = Uint8Array.from({ length: 32 }, (_, i) => i * 3);
const iv = Uint8Array.from({ length: 16 }, (_, i) => 0x40 + i);
const keyringJson = JSON.stringify({
  version: '1.0',
  elements: [
    { user: '', data_id: 'other', data_type: 'AES', data: '00'.repeat(32), extension: [] },
    { user: '', data_id: keyId, data_type: 'AES', data: Buffer.from(key).toString('hex'), extension: [] },
  ],
});
const keyring = parseKeyring(keyringJson);
const encrypted = encryptMysqlBinlog(sample, { keyId, key, password, iv });

describe('a MySQL 8 encrypted binlog', () => {
  it('has the 512-byte header of rpl_log_encryption.h: magic, version, TLV key id, password and IV, zeros', () => {
    const h = Buffer.from(encrypted.subarray(0, 512));
    expect([...h.subarray(0, 5)]).toEqual([0xfd, 0x62, 0x69, 0x6e, 1]);
    expect([h[5], h[6]]).toEqual([1, keyId.length]);
    expect(h.subarray(7, 7 + keyId.length).toString('latin1')).toBe(keyId);
    let at = 7 + keyId.length;
    expect(h[at]).toBe(2);
    const cbc = createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    expect(h.subarray(at + 1, at + 33)).toEqual(Buffer.concat([cbc.update(password), cbc.final()]));
    at += 33;
    expect(h[at]).toBe(3);
    expect(h.subarray(at + 1, at + 17)).toEqual(Buffer.from(iv));
    expect(h.subarray(at + 17).every((b) => b === 0)).toBe(true);
    expect(encrypted.length).toBe(512 + sample.length);
  });

  it('holds the plain binlog under AES-256-CTR: key and counter block from SHA-512 of the password', () => {
    const digest = createHash('sha512').update(password).digest();
    const counter = Buffer.concat([digest.subarray(32, 40), Buffer.alloc(8)]);
    const ctr = createCipheriv('aes-256-ctr', digest.subarray(0, 32), counter);
    expect(Buffer.compare(Buffer.concat([ctr.update(encrypted.subarray(512)), ctr.final()]), sample)).toBe(0);
  });

  it("decrypts with openssl alone, as the manual's recipe does: the password, its SHA-512, then the body", () => {
    const dir = mkdtempSync(join(tmpdir(), 'binlog-mysql-openssl-'));
    const openssl = (args: string[], input: Uint8Array) => execFileSync('openssl', args, { input });
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    try {
      const at = 7 + keyId.length + 1;
      const sealed = encrypted.subarray(at, at + 32);
      const cbc = ['enc', '-d', '-aes-256-cbc', '-nopad', '-K', hex(key), '-iv', hex(iv)];
      const filePassword = openssl(cbc, sealed);
      const digest = openssl(['dgst', '-sha512', '-binary'], filePassword);
      const body = join(dir, 'body');
      writeFileSync(body, encrypted.subarray(512));
      const ctrIv = hex(digest.subarray(32, 40)) + '00'.repeat(8);
      const ctr = ['enc', '-d', '-aes-256-ctr', '-K', hex(digest.subarray(0, 32)), '-iv', ctrIv, '-in', body];
      expect(Buffer.compare(execFileSync('openssl', ctr), sample)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads, with the keyring, as the plain binlog: the same events at the same offsets', async () => {
    const plain = decodeBinlog(sample).map(toJsonLine);
    expect(decodeBinlog(encrypted, { keyring }).map(toJsonLine)).toEqual(plain);
    // In chunks of every size around the header's end and a cipher block.
    for (const size of [1, 7, 16, 511, 513, 4096]) {
      async function* chunks() {
        for (let at = 0; at < encrypted.length; at += size) yield encrypted.subarray(at, at + size);
      }
      const events = [];
      for await (const e of readBinlog(chunks(), { keyring })) events.push(toJsonLine(e));
      expect(events).toEqual(plain);
    }
    // A keyring changes nothing for a plain file.
    expect(decodeBinlog(sample, { keyring }).map(toJsonLine)).toEqual(plain);
  });

  it('without the keyring is refused at its magic; with another key, by the key id or the magic', () => {
    expect(() => decodeBinlog(encrypted)).toThrow(
      'a MySQL 8 encrypted binlog (magic fd 62 69 6e): its events need the keyring',
    );
    expect(() => decodeBinlog(encrypted, { keyring: new Map() })).toThrow(
      `keyring key ${keyId}, which the keyring does not hold`,
    );
    const wrong = new Map([[keyId, new Uint8Array(32)]]);
    expect(() => decodeBinlog(encrypted, { keyring: wrong })).toThrow(KeyError);
    expect(() => decodeBinlog(encrypted, { keyring: wrong })).toThrow(
      `the keyring's key ${keyId} does not decrypt the file: its magic is not fe 62 69 6e after decryption`,
    );
  });

  it('refuses a keyring that is not component_keyring_file JSON', () => {
    expect(() => parseKeyring('Keyring file version:2.0')).toThrow(KeyError);
    expect(() => parseKeyring('{"elements": [{"data_id": "k", "data": "xyz"}]}')).toThrow('keyring element 0');
  });
});

describe('binlog dump --keyring', () => {
  it('dumps a MySQL 8 encrypted file as the plain one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'binlog-mysql-encryption-'));
    try {
      writeFileSync(join(dir, 'sample.bin'), encrypted);
      writeFileSync(join(dir, 'keyring.json'), keyringJson);
      const plain = await runBinlog(['dump', join(import.meta.dirname, 'fixtures', 'sample.bin')]);
      const dump = await runBinlog(['dump', `--keyring=${join(dir, 'keyring.json')}`, join(dir, 'sample.bin')]);
      expect(dump.stderr).toBe('');
      const [headerLine, ...events] = dump.stdout.split('\n');
      expect(events.join('\n')).toBe(plain.stdout);
      const sealed = Buffer.from(encrypted.subarray(8 + keyId.length, 40 + keyId.length)).toString('hex');
      expect(JSON.parse(headerLine)).toEqual({
        file: 'sample.bin',
        type: 'MYSQL_ENCRYPTION_HEADER',
        keyId,
        encryptedPassword: { hex: sealed },
        iv: { hex: Buffer.from(iv).toString('hex') },
      });
      const refused = await runBinlog(['dump', join(dir, 'sample.bin')]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('its events need the keyring (--keyring');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A small binlog of the writer's: a table, rows inserted, updated and deleted. */
function writeSample(options: BinlogWriterOptions): BinlogWriter {
  const w = new BinlogWriter({ timestamp: 1_700_000_000, ...options });
  const t = w.table({
    schema: 'shop',
    name: 'item',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'name', type: 'text' },
    ],
  });
  const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `item ${i}`.repeat(i % 7) }));
  w.insert(t, rows).commit();
  w.update(t, [[rows[3], { ...rows[3], name: 'changed' }]]).commit();
  w.delete(t, [rows[4]]).commit();
  return w.end();
}

describe('BinlogWriter with { encryption: { mysql } }', () => {
  const mysql = { keyId, key, password, iv };
  const plain = writeSample({}).toBytes();
  const written = writeSample({ encryption: { mysql } }).toBytes();

  it('writes the plain binlog under the header and AES-256-CTR, as the format says (checked here by hand)', () => {
    const h = Buffer.from(written.subarray(0, 512));
    expect([...h.subarray(0, 7)]).toEqual([0xfd, 0x62, 0x69, 0x6e, 1, 1, keyId.length]);
    const cbc = createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    const at = 7 + keyId.length;
    expect(h.subarray(at, at + 33)).toEqual(Buffer.concat([Buffer.of(2), cbc.update(password), cbc.final()]));
    const digest = createHash('sha512').update(password).digest();
    const counter = Buffer.concat([digest.subarray(32, 40), Buffer.alloc(8)]);
    const ctr = createCipheriv('aes-256-ctr', digest.subarray(0, 32), counter);
    expect(Buffer.compare(Buffer.concat([ctr.update(written.subarray(512)), ctr.final()]), plain)).toBe(0);
  });

  it('is read back by the reader with the keyring as the plain file, and a sink gets the same bytes', () => {
    expect(decodeBinlog(written, { keyring }).map(toJsonLine)).toEqual(decodeBinlog(plain).map(toJsonLine));
    const chunks: Uint8Array[] = [];
    writeSample({ encryption: { mysql }, sink: (c) => chunks.push(c) });
    expect(Buffer.compare(Buffer.concat(chunks), written)).toBe(0);
  });

  it('draws a new file password and IV for each file when none is given', () => {
    const a = writeSample({ encryption: { mysql: { keyId, key } } }).toBytes();
    const b = writeSample({ encryption: { mysql: { keyId, key } } }).toBytes();
    expect(Buffer.compare(a.subarray(0, 512), b.subarray(0, 512))).not.toBe(0);
    expect(decodeBinlog(a, { keyring }).map(toJsonLine)).toEqual(decodeBinlog(plain).map(toJsonLine));
  });
});

describe('binlog dump --keyring | encode --keyring', () => {
  it('writes a MySQL encrypted file back byte for byte; without --keyring, in clear', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'binlog-mysql-encode-'));
    try {
      const file = join(dir, 'shop.bin');
      const ring = `--keyring=${join(dir, 'keyring.json')}`;
      writeFileSync(join(dir, 'keyring.json'), keyringJson);
      writeFileSync(file, writeSample({ encryption: { mysql: { keyId, key } } }).toBytes());
      const dump = await runBinlog(['dump', ring, file]);
      expect(dump.status).toBe(0);
      const again = await runBinlog(['encode', ring, '-o', join(dir, 'again.bin'), '-'], { input: dump.stdout });
      expect(again.stderr).toBe('');
      expect(Buffer.compare(readFileSync(join(dir, 'again.bin')), readFileSync(file))).toBe(0);

      const clear = await runBinlog(['encode', '-o', join(dir, 'clear.bin'), '-'], { input: dump.stdout });
      expect(clear.stderr).toContain('without --keyring the file was written in clear');
      expect(Buffer.compare(readFileSync(join(dir, 'clear.bin')), writeSample({}).toBytes())).toBe(0);

      const events = dump.stdout.split('\n').slice(1).join('\n');
      const headless = await runBinlog(['encode', ring, '-o', join(dir, 'x.bin'), '-'], { input: events });
      expect(headless.status).toBe(1);
      expect(headless.stderr).toContain('the input has none');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
