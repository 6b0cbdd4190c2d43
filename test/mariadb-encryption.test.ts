/**
 * Real MariaDB servers with encrypt_binlog=ON (the file_key_management plugin, AES_CBC and AES_CTR, key 1 of
 * 256 and 192 bits among other key ids, one key file encrypted with a file key) run the workload a plain server
 * runs: their files, decrypted, hold the plain server's rows; `dump --key-file | encode --key-file` gives each
 * file back byte for byte; without the key every event is kept, and a wrong key is refused by name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeBinlog, KeyError, parseKeyFile, type BinlogEvent, type EncryptionKeys } from '../index.js';
import { runBinlog } from './support/cli.js';
import { describeWithServer, startMariadb, type MariadbServer } from './support/mariadb.js';

const FILE_KEY = 'a file key';

const WORKLOAD = [
  `CREATE DATABASE w;
   CREATE TABLE w.a (id INT PRIMARY KEY, s VARCHAR(300), d DECIMAL(10,3), t DATETIME(6), b BLOB) ENGINE=InnoDB;
   CREATE TABLE w.m (k BIGINT UNSIGNED PRIMARY KEY, e ENUM('x','y','z'), j JSON) ENGINE=MyISAM;`,
  ...Array.from(
    { length: 30 },
    (_, i) =>
      `INSERT INTO w.a VALUES (${i}, REPEAT('s', ${i * 9}), ${i}.125, '2024-01-0${1 + (i % 9)} 10:11:12.${i}',
        ${i % 3 ? `REPEAT(x'a5', ${i * 5})` : 'NULL'});
     INSERT INTO w.m VALUES (${i * 1000003}, '${'xyz'[i % 3]}', '{"i": ${i}, "s": "${'q'.repeat(i)}"}');`,
  ),
  `BEGIN; UPDATE w.a SET s = CONCAT(s, 'u'), d = -d WHERE id % 4 = 0; DELETE FROM w.a WHERE id % 5 = 1; COMMIT;`,
  `UPDATE w.m SET e = 'z', j = JSON_SET(j, '$.u', true) WHERE k < 10000000;`,
  `DELETE FROM w.m WHERE e = 'x';`,
];

interface Setup {
  name: string;
  keys?: string;
  /** Key file encrypted with FILE_KEY, given to the server as FILE:path. */
  encryptKeyFile?: boolean;
  cipher?: 'AES_CBC' | 'AES_CTR';
}

const SETUPS: Setup[] = [
  { name: 'plain' },
  { name: 'cbc', keys: `2;${'11'.repeat(16)}\n1;${'c1'.repeat(32)}\n3;${'33'.repeat(24)}\n`, cipher: 'AES_CBC' },
  {
    name: 'ctr',
    keys: `# binlogs use key 1\n1;${'7e'.repeat(24)}\n9;${'99'.repeat(32)}\n`,
    cipher: 'AES_CTR',
    encryptKeyFile: true,
  },
];

interface Run {
  setup: Setup;
  files: { path: string; bytes: Buffer }[];
  keyFile?: string;
  keys?: EncryptionKeys;
}

const tmp = mkdtempSync(join(tmpdir(), 'binlog-mariadb-encryption-'));
const runs = new Map<string, Run>();

/** The server's key-file arguments, the key file written (and encrypted with openssl enc when asked). */
function keyArgs(setup: Setup): { args: string[]; keyFile?: string } {
  if (!setup.keys) return { args: [] };
  const plain = join(tmp, `${setup.name}.keys`);
  writeFileSync(plain, setup.keys);
  const keyFile = setup.encryptKeyFile ? `${plain}.enc` : plain;
  const secret = join(tmp, `${setup.name}.secret`);
  if (setup.encryptKeyFile) {
    execFileSync('openssl', ['enc', '-aes-256-cbc', '-md', 'sha1', '-k', FILE_KEY, '-in', plain, '-out', keyFile], {
      stdio: 'ignore',
    });
    writeFileSync(secret, `${FILE_KEY}\n`);
  }
  const args = [
    '--plugin-load-add=file_key_management',
    `--file-key-management-filename=${keyFile}`,
    ...(setup.encryptKeyFile ? [`--file-key-management-filekey=FILE:${secret}`] : []),
    `--file-key-management-encryption-algorithm=${setup.cipher}`,
    '--encrypt-binlog=ON',
  ];
  return { args, keyFile };
}

async function run(setup: Setup): Promise<Run> {
  const { args, keyFile } = keyArgs(setup);
  const server: MariadbServer = await startMariadb({ extraArgs: ['--default-time-zone=+00:00', ...args] });
  try {
    for (const [i, sql] of WORKLOAD.entries()) {
      await server.sql(sql);
      if (i === 10 || i === 25) await server.flushLogs();
    }
    const files = await server.stopAndReadBinlogs();
    const keys = keyFile ? parseKeyFile(readFileSync(keyFile), setup.encryptKeyFile ? FILE_KEY : undefined) : undefined;
    return { setup, files, keyFile, keys };
  } finally {
    await server.stop();
  }
}

/** Each rows event's table and rows, in order, over the files. */
function rowsOf(r: Run): unknown[] {
  return r.files.flatMap((f) =>
    decodeBinlog(new Uint8Array(f.bytes), { keys: r.keys }).flatMap((e: BinlogEvent) =>
      'rows' in e && e.rows ? [[e.type, e.table, e.rows]] : [],
    ),
  );
}

describeWithServer('MariaDB encrypt_binlog files', () => {
  beforeAll(async () => {
    for (const r of await Promise.all(SETUPS.map(run))) runs.set(r.setup.name, r);
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it.each(['cbc', 'ctr'])("%s: decrypted, the files hold the plain server's rows", (name) => {
    const r = runs.get(name)!;
    expect(r.files.length).toBe(3);
    const plain = rowsOf(runs.get('plain')!);
    expect(plain.length).toBeGreaterThan(60);
    expect(rowsOf(r)).toEqual(plain);
  });

  it.each(['cbc', 'ctr'])(
    '%s: dump --key-file | encode --key-file gives every file back byte for byte',
    async (name) => {
      const r = runs.get(name)!;
      const keyArgsOf = [`--key-file=${r.keyFile}`, ...(r.setup.encryptKeyFile ? [`--key-file-key=${FILE_KEY}`] : [])];
      for (const [i, f] of r.files.entries()) {
        const path = join(tmp, `${name}.${i}`);
        writeFileSync(path, f.bytes);
        const dump = await runBinlog(['dump', ...keyArgsOf, path]);
        expect(dump.stderr).toBe('');
        expect(dump.stdout).not.toContain('ENCRYPTED_EVENT');
        const out = `${path}.again`;
        const encode = await runBinlog(
          ['encode', ...keyArgsOf, `--encryption-algorithm=${r.setup.cipher}`, '-o', out, '-'],
          { input: dump.stdout },
        );
        expect(encode.stderr).toBe('');
        expect(Buffer.compare(readFileSync(out), f.bytes)).toBe(0);
      }
    },
    60_000,
  );

  it.each(['cbc', 'ctr'])('%s: without the key every event is kept, each encrypted one naming key 1', (name) => {
    const r = runs.get(name)!;
    for (const f of r.files) {
      const events = decodeBinlog(new Uint8Array(f.bytes));
      const encrypted = events.filter((e) => e.type === 'ENCRYPTED_EVENT');
      expect(encrypted.length).toBe(decodeBinlog(new Uint8Array(f.bytes), { keys: r.keys }).length - 2);
      expect(encrypted.every((e) => 'reason' in e && e.reason?.includes('key id 1'))).toBe(true);
    }
  });

  it.each(['cbc', 'ctr'])('%s: another key 1 is refused, naming the key and the first encrypted event', (name) => {
    const r = runs.get(name)!;
    const keys = new Map(r.keys);
    keys.set(1, runs.get(name === 'cbc' ? 'ctr' : 'cbc')!.keys!.get(1)!);
    const bytes = new Uint8Array(r.files[0]!.bytes);
    const first = decodeBinlog(bytes)[2]!.pos;
    expect(() => decodeBinlog(bytes, { keys })).toThrow(KeyError);
    expect(() => decodeBinlog(bytes, { keys })).toThrow(
      `key 1 (version 1) of the key file does not decrypt the event at ${first}`,
    );
  });
});
