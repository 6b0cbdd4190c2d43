/**
 * MariaDB's encrypted binlogs (encrypt_binlog=ON): real servers' files (test/fixtures/encrypted, AES_CBC and
 * AES_CTR, with and without checksums, a plain and an openssl-encrypted key file) decrypt to the events the
 * server itself lists, encode back to their bytes, stay whole without the key, and refuse a wrong key by name;
 * BinlogWriter writes such files; the CLI's --key-file does the same from the command line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BinlogWriter,
  decodeBinlog,
  encodeBinlog,
  EncodeError,
  KeyError,
  parseKeyFile,
  type BinlogEvent,
  type EncryptionKeys,
  type EventCipherName,
} from '../index.js';
import { runBinlog } from './support/cli.js';

const DIR = join(import.meta.dirname, 'fixtures', 'encrypted');
const FILE_KEY = 'fixture-secret';

interface Variant {
  name: string;
  cipher: EventCipherName;
  keyFile: string;
  fileKey?: string;
}
const VARIANTS: Variant[] = [
  { name: 'cbc', cipher: 'AES_CBC', keyFile: 'cbc.keys' },
  { name: 'ctr', cipher: 'AES_CTR', keyFile: 'ctr.keys.enc', fileKey: FILE_KEY },
];
const FILES = ['binlog.000001', 'binlog.000002'];

/** SHOW BINLOG EVENTS's type names, as this library names the types. */
const SERVER_NAMES: Record<string, string> = {
  Format_desc: 'FORMAT_DESCRIPTION_EVENT',
  Start_encryption: 'START_ENCRYPTION_EVENT',
  Gtid_list: 'GTID_LIST_EVENT',
  Binlog_checkpoint: 'BINLOG_CHECKPOINT_EVENT',
  Gtid: 'GTID_EVENT',
  Query: 'QUERY_EVENT',
  Annotate_rows: 'ANNOTATE_ROWS_EVENT',
  Table_map: 'TABLE_MAP_EVENT',
  Write_rows_v1: 'WRITE_ROWS_EVENT_V1',
  Update_rows_v1: 'UPDATE_ROWS_EVENT_V1',
  Delete_rows_v1: 'DELETE_ROWS_EVENT_V1',
  Xid: 'XID_EVENT',
  Rotate: 'ROTATE_EVENT',
  Stop: 'STOP_EVENT',
};

const bytesOf = (v: Variant, file: string) => new Uint8Array(readFileSync(join(DIR, `${v.name}.${file}`)));
const keysOf = (v: Variant): EncryptionKeys => parseKeyFile(readFileSync(join(DIR, v.keyFile)), v.fileKey);
const listing = (v: Variant): Record<string, [number, number, string][]> =>
  JSON.parse(readFileSync(join(DIR, `${v.name}.events.json`), 'utf8'));
const rowsOf = (events: BinlogEvent[]) => events.flatMap((e) => ('rows' in e && e.rows ? [[e.type, e.rows]] : []));

describe.each(VARIANTS)('a real MariaDB file encrypted with $cipher', (v) => {
  it.each(FILES)('%s decrypts to the events the server lists: positions, ends and types', (file) => {
    const events = decodeBinlog(bytesOf(v, file), { keys: keysOf(v) });
    const server = listing(v)[file]!;
    expect(events.slice(0, server.length).map((e) => [e.pos, e.header.logPos, e.type])).toEqual(
      server.map(([pos, end, type]) => [pos, end, SERVER_NAMES[type]]),
    );
    // The server was listed before it stopped, which ended its last file with a STOP event.
    expect(events.slice(server.length).map((e) => e.type)).toEqual(file === FILES[1] ? ['STOP_EVENT'] : []);
  });

  it('gives the rows the workload wrote', () => {
    const rows = rowsOf(decodeBinlog(bytesOf(v, FILES[0]!), { keys: keysOf(v) }));
    expect(rows.map(([type]) => type)).toEqual([
      'WRITE_ROWS_EVENT_V1',
      'UPDATE_ROWS_EVENT_V1',
      'DELETE_ROWS_EVENT_V1',
      'WRITE_ROWS_EVENT_V1',
    ]);
    expect(rows[1]![1]).toEqual([
      { before: { id: 1, name: 'a', n: 1n, b: null }, after: { id: 1, name: 'a!', n: 10n, b: null } },
      {
        before: { id: 2, name: 'bb', n: -2n, b: Uint8Array.of(0) },
        after: { id: 2, name: 'bb!', n: -20n, b: Uint8Array.of(0) },
      },
    ]);
    expect(rows[3]![1]).toEqual([
      { after: { id: 4, name: 'x'.repeat(57), n: 9223372036854775807n, b: new Uint8Array(100).fill(0xff) } },
    ]);
  });

  it.each(FILES)('%s encodes back to its bytes with the key and the cipher', (file) => {
    const bytes = bytesOf(v, file);
    const keys = keysOf(v);
    expect(
      Buffer.compare(encodeBinlog(decodeBinlog(bytes, { keys }), { encryption: { keys, cipher: v.cipher } }), bytes),
    ).toBe(0);
  });

  it('without the key keeps every event, each encrypted one as its bytes with the key id it needs', () => {
    const bytes = bytesOf(v, FILES[0]!);
    const events = decodeBinlog(bytes);
    expect(events.length).toBe(listing(v)[FILES[0]!]!.length);
    const encrypted = events.slice(2);
    expect(encrypted.every((e) => e.type === 'ENCRYPTED_EVENT')).toBe(true);
    expect(new Set(encrypted.map((e) => ('reason' in e ? e.reason : undefined)))).toEqual(
      new Set([expect.stringContaining('key id 1 (version 1)')]),
    );
    expect(Buffer.compare(encodeBinlog(events), bytes)).toBe(0);
  });

  it('refuses a wrong key 1, naming the key and the first encrypted event', () => {
    const keys = new Map(keysOf(v));
    keys.set(
      1,
      keys.get(1)!.map((b) => b ^ 1),
    );
    const first = listing(v)[FILES[0]!]![2]![0];
    expect(() => decodeBinlog(bytesOf(v, FILES[0]!), { keys })).toThrow(KeyError);
    expect(() => decodeBinlog(bytesOf(v, FILES[0]!), { keys })).toThrow(
      `key 1 (version 1) of the key file does not decrypt the event at ${first}`,
    );
  });
});

describe('key files', () => {
  it('read as file_key_management reads them: ids, 128, 192 and 256-bit keys, comments', () => {
    const keys = parseKeyFile(readFileSync(join(DIR, 'cbc.keys')));
    expect([...keys.keys()]).toEqual([1, 2, 7]);
    expect([...keys.values()].map((k) => k.length)).toEqual([32, 16, 24]);
    expect(Buffer.from(keys.get(2)!).toString('hex')).toBe('00112233445566778899aabbccddeeff');
  });

  it('encrypted by openssl enc: decrypted with the file key, refused without it or with another', () => {
    const enc = readFileSync(join(DIR, 'ctr.keys.enc'));
    expect(Buffer.from(parseKeyFile(enc, FILE_KEY).get(1)!).toString('hex')).toBe('3c4b5a69788796a5b4c3d2e1f00f1e2d');
    expect(() => parseKeyFile(enc)).toThrow('the key file is encrypted');
    expect(() => parseKeyFile(enc, 'another secret')).toThrow('does not decrypt with the key given');
    expect(() => parseKeyFile(readFileSync(join(DIR, 'cbc.keys')), FILE_KEY)).toThrow('not encrypted');
  });

  it('refuse a bad line by its number', () => {
    expect(() => parseKeyFile(Buffer.from('1;00112233445566778899aabbccddeeff\nkey;00\n'))).toThrow(
      'key file line 2: expected id;hexkey',
    );
    expect(() => parseKeyFile(Buffer.from('# comment\n3;0011\n'))).toThrow('key file line 2: key 3 has 4 hex digits');
    expect(() => parseKeyFile(Buffer.from('0;00112233445566778899aabbccddeeff\n'))).toThrow('key id 0');
  });
});

describe('BinlogWriter with encryption', () => {
  const keys = new Map([[1, Uint8Array.from({ length: 32 }, (_, i) => i)]]);
  const nonce = Uint8Array.from({ length: 12 }, (_, i) => 0xa0 + i);

  function write(encryption?: { cipher: EventCipherName }): Uint8Array {
    const w = new BinlogWriter({
      timestamp: 1_700_000_000,
      ...(encryption ? { encryption: { keys, nonce, ...encryption } } : {}),
    });
    const t = w.createTable({
      schema: 'db',
      name: 't',
      columns: [
        { name: 'id', type: 'INT' },
        { name: 's', type: 'VARCHAR(200)' },
      ],
    });
    // Rows of many lengths, so that events end inside AES blocks at every offset.
    for (let i = 0; i < 20; i++) w.insert(t, [{ id: i, s: 'y'.repeat(i * 7) }]).commit();
    return w.toBytes();
  }

  it.each(['AES_CBC', 'AES_CTR'] as const)(
    'writes with %s the events of the plain file, START_ENCRYPTION after its FORMAT_DESCRIPTION',
    (cipher) => {
      const plain = decodeBinlog(write());
      const bytes = write({ cipher });
      const encrypted = decodeBinlog(bytes, { keys, cipher });
      expect(encrypted[1]).toMatchObject({ type: 'START_ENCRYPTION_EVENT', scheme: 1, keyVersion: 1, nonce });
      expect(encrypted.filter((e) => e.type !== 'START_ENCRYPTION_EVENT').map((e) => e.type)).toEqual(
        plain.map((e) => e.type),
      );
      expect(rowsOf(encrypted)).toEqual(rowsOf(plain));
      // Read without being told the cipher, the first event tells it.
      expect(rowsOf(decodeBinlog(bytes, { keys }))).toEqual(rowsOf(plain));
      expect(
        decodeBinlog(bytes)
          .slice(2)
          .every((e) => e.type === 'ENCRYPTED_EVENT'),
      ).toBe(true);
    },
  );

  it('refuses to encode events in clear after START_ENCRYPTION without the key', () => {
    const events = decodeBinlog(write({ cipher: 'AES_CBC' }), { keys });
    expect(() => encodeBinlog(events)).toThrow(EncodeError);
    expect(() => encodeBinlog(events)).toThrow('key id 1');
  });
});

describe('the CLI with --key-file', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'binlog-encryption-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const keyArgs = (v: Variant) => [
    `--key-file=${join(DIR, v.keyFile)}`,
    ...(v.fileKey ? [`--key-file-key=${v.fileKey}`] : []),
  ];

  it.each(VARIANTS.flatMap((v) => FILES.map((f) => [v.name, f, v] as const)))(
    '%s %s: dump | encode gives the file back',
    async (_name, file, v) => {
      const path = join(DIR, `${v.name}.${file}`);
      const dump = await runBinlog(['dump', ...keyArgs(v), path]);
      expect(dump.stderr).toBe('');
      expect(dump.status).toBe(0);
      expect(dump.stdout).not.toContain('ENCRYPTED_EVENT');
      const out = join(tmp, `${v.name}.${file}`);
      const encode = await runBinlog(['encode', ...keyArgs(v), `--encryption-algorithm=${v.cipher}`, '-o', out, '-'], {
        input: dump.stdout,
      });
      expect(encode.stderr).toBe('');
      expect(Buffer.compare(readFileSync(out), readFileSync(path))).toBe(0);
    },
  );

  it('takes the file key from FILE:PATH', async () => {
    const secret = join(tmp, 'secret');
    writeFileSync(secret, `${FILE_KEY}\n`);
    const dump = await runBinlog([
      'dump',
      `--key-file=${join(DIR, 'ctr.keys.enc')}`,
      `--key-file-key=FILE:${secret}`,
      join(DIR, 'ctr.binlog.000001'),
    ]);
    expect(dump.status).toBe(0);
    expect(dump.stdout).toContain('"name":"a name of some thirty-one bytes"');
  });

  it('without the key writes every event, each encrypted one with the key id it needs', async () => {
    const dump = await runBinlog(['dump', join(DIR, 'cbc.binlog.000001')]);
    const lines = dump.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; reason?: string });
    expect(lines.length).toBe(listing(VARIANTS[0]!)['binlog.000001']!.length);
    expect(lines.slice(2).every((l) => l.type === 'ENCRYPTED_EVENT' && l.reason?.includes('key id 1'))).toBe(true);
  });

  it('with a wrong key fails naming the key and the event', async () => {
    const wrong = join(tmp, 'wrong.keys');
    writeFileSync(wrong, `1;${'ab'.repeat(32)}\n`);
    const dump = await runBinlog(['dump', `--key-file=${wrong}`, join(DIR, 'cbc.binlog.000001')]);
    expect(dump.status).toBe(1);
    expect(dump.stderr).toContain(
      `key 1 (version 1) of the key file does not decrypt the event at ${listing(VARIANTS[0]!)[FILES[0]!]![2]![0]}`,
    );
  });

  it('serve refuses an encrypted file without its key, or with a wrong one, in a sentence naming key 1', async () => {
    const file = join(DIR, 'cbc.binlog.000001');
    const keyless = await runBinlog(['serve', '--port=0', file]);
    expect(keyless.status).toBe(1);
    expect(keyless.stderr).toBe(
      `binlog: ${file}: cbc.binlog.000001 is encrypted (MariaDB encrypt_binlog, START_ENCRYPTION at 256) with key ` +
        'id 1 (version 1), and its events are served decrypted: give a key file that holds key 1 (--key-file)\n',
    );
    const wrong = join(tmp, 'wrong-serve.keys');
    writeFileSync(wrong, `1;${'ab'.repeat(32)}\n`);
    const wrongKey = await runBinlog(['serve', '--port=0', `--key-file=${wrong}`, file]);
    expect(wrongKey.status).toBe(1);
    expect(wrongKey.stderr).toContain(
      'cbc.binlog.000001: key 1 (version 1) of the key file does not decrypt the event at',
    );
  });

  it('refuses an encrypted key file without its key, as a usage error', async () => {
    const dump = await runBinlog(['dump', `--key-file=${join(DIR, 'ctr.keys.enc')}`, join(DIR, 'ctr.binlog.000001')]);
    expect(dump.status).toBe(2);
    expect(dump.stderr).toContain('--key-file-key');
  });
});
