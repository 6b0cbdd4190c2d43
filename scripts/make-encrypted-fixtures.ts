/**
 * Regenerates test/fixtures/encrypted/ from throwaway real MariaDB servers with encrypt_binlog=ON:
 *   npx tsx scripts/make-encrypted-fixtures.ts
 * One server encrypts with AES_CBC under a 256-bit key 1 and CRC32 checksums; the other with AES_CTR under a
 * 128-bit key 1, no checksums, its key file encrypted by openssl enc (which the server decrypts with the
 * filekey). Each server's own list of its events (SHOW BINLOG EVENTS: position, end, type) is kept beside
 * the files, so that a reader's decryption is checked against the server's and not against itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startMariadb } from '../test/support/mariadb.js';

const OUT = join(import.meta.dirname, '..', 'test', 'fixtures', 'encrypted');
const FILE_KEY = 'fixture-secret';

const WORKLOAD = `CREATE DATABASE enc;
USE enc;
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(60), n BIGINT, b BLOB) ENGINE=InnoDB;
INSERT INTO t VALUES (1, 'a', 1, NULL), (2, 'bb', -2, x'00'), (3, 'a name of some thirty-one bytes', 3, x'0102');
UPDATE t SET name = CONCAT(name, '!'), n = n * 10 WHERE id < 3;
DELETE FROM t WHERE id = 2;
INSERT INTO t VALUES (4, REPEAT('x', 57), 9223372036854775807, REPEAT(x'ff', 100));
`;

interface Variant {
  name: string;
  cipher: 'AES_CBC' | 'AES_CTR';
  checksum: 'CRC32' | 'NONE';
  keys: string;
  encryptKeyFile: boolean;
}

const VARIANTS: Variant[] = [
  {
    name: 'cbc',
    cipher: 'AES_CBC',
    checksum: 'CRC32',
    keys: [
      '# key 1 encrypts binlogs; the others are for tables',
      '1;8a62e2b4f8d4b1b1c1f0f3a39e2e6e1d5c8f1a7b9e3d2c4b6a8f0e1d3c5b7a9f',
      '2;00112233445566778899aabbccddeeff',
      '7;0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978',
      '',
    ].join('\n'),
    encryptKeyFile: false,
  },
  {
    name: 'ctr',
    cipher: 'AES_CTR',
    checksum: 'NONE',
    keys: [
      '1;3c4b5a69788796a5b4c3d2e1f00f1e2d',
      '5;8a62e2b4f8d4b1b1c1f0f3a39e2e6e1d5c8f1a7b9e3d2c4b6a8f0e1d3c5b7a9f',
      '',
    ].join('\n'),
    encryptKeyFile: true,
  },
];

async function make(v: Variant): Promise<void> {
  const plainKeys = join(OUT, `${v.name}.keys`);
  writeFileSync(plainKeys, v.keys);
  const keyFile = v.encryptKeyFile ? `${plainKeys}.enc` : plainKeys;
  if (v.encryptKeyFile)
    execFileSync('openssl', ['enc', '-aes-256-cbc', '-md', 'sha1', '-k', FILE_KEY, '-in', plainKeys, '-out', keyFile], {
      stdio: 'ignore',
    });
  const server = await startMariadb({
    checksum: v.checksum,
    extraArgs: [
      '--plugin-load-add=file_key_management',
      `--file-key-management-filename=${keyFile}`,
      ...(v.encryptKeyFile ? [`--file-key-management-filekey=${FILE_KEY}`] : []),
      `--file-key-management-encryption-algorithm=${v.cipher}`,
      '--encrypt-binlog=ON',
    ],
  });
  try {
    await server.sql(WORKLOAD);
    await server.flushLogs();
    const listing: Record<string, [number, number, string][]> = {};
    for (const path of await server.binlogFiles()) {
      const name = basename(path);
      const rows = await server.query(`SHOW BINLOG EVENTS IN '${name}'`);
      listing[name] = rows.map((r) => [Number(r[1]), Number(r[4]), String(r[2])]);
    }
    const files = await server.stopAndReadBinlogs();
    for (const f of files) writeFileSync(join(OUT, `${v.name}.${basename(f.path)}`), f.bytes);
    writeFileSync(join(OUT, `${v.name}.events.json`), eventLines(listing));
  } finally {
    await server.stop();
  }
  // The encrypted key file is the fixture: its plain text is the variant's `keys`.
  if (v.encryptKeyFile) rmSync(plainKeys);
}

/** The listing as JSON, one event to a line. */
function eventLines(listing: Record<string, [number, number, string][]>): string {
  const files = Object.entries(listing).map(
    ([name, events]) =>
      `  ${JSON.stringify(name)}: [\n${events.map((e) => `    ${JSON.stringify(e)}`).join(',\n')}\n  ]`,
  );
  return `{\n${files.join(',\n')}\n}\n`;
}

mkdirSync(OUT, { recursive: true });
for (const v of VARIANTS) await make(v);
