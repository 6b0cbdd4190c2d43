/**
 * Reading a MariaDB encrypt_binlog file against reading the same events in clear, in one run:
 *   npx tsx bench/encryption.ts [--rows=N] [--runs=N]
 * BinlogWriter writes the same inserts three times (in clear, under AES_CBC, under AES_CTR, key 1 of 256 bits);
 * each file is decoded whole (decodeBinlog, rows eager) `runs` times in turn, and the best time of each is printed
 * with its ratio to the clear file's.
 */
import { BinlogWriter } from '../builder/binlog-writer.js';
import type { EncryptionOptions, EventCipherName } from '../runtime/events/encryption.js';
import { decodeBinlog } from '../runtime/io/stream.js';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);

const KEYS = new Map([[1, Uint8Array.from({ length: 32 }, (_, i) => i * 7)]]);

/** `rows` inserts of a few columns, one transaction per 10 rows, under `cipher` (or in clear). */
function binlog(rows: number, cipher?: EventCipherName): Uint8Array {
  const encryption: (EncryptionOptions & { nonce: Uint8Array }) | undefined = cipher
    ? { keys: KEYS, cipher, nonce: new Uint8Array(12).fill(3) }
    : undefined;
  const w = new BinlogWriter({ timestamp: 1_700_000_000, encryption });
  const columns = [
    { name: 'id', type: 'INT' },
    { name: 's', type: 'VARCHAR(100)' },
    { name: 'd', type: 'DOUBLE' },
  ];
  const t = w.createTable({ schema: 'b', name: 't', columns });
  for (let i = 0; i < rows; i += 10) {
    const batch = Array.from({ length: 10 }, (_, k) => ({ id: i + k, s: `row ${i + k} `.repeat(4), d: (i + k) / 7 }));
    w.insert(t, batch).commit();
  }
  return w.toBytes();
}

function best(bytes: Uint8Array, runs: number, keys?: typeof KEYS): number {
  let min = Infinity;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    decodeBinlog(bytes, { keys });
    min = Math.min(min, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return min;
}

const rows = arg('rows', 200_000);
const runs = arg('runs', 5);
const files = { clear: binlog(rows), AES_CBC: binlog(rows, 'AES_CBC'), AES_CTR: binlog(rows, 'AES_CTR') };
const clear = best(files.clear, runs);
console.log(`${rows} rows, ${(files.clear.length / 1e6).toFixed(1)} MB, best of ${runs}`);
for (const [name, bytes] of Object.entries(files)) {
  const ms = name === 'clear' ? clear : best(bytes, runs, KEYS);
  const mbs = bytes.length / 1e6 / (ms / 1000);
  console.log(
    `${name.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms  ${mbs.toFixed(0).padStart(4)} MB/s  ` +
      `×${(ms / clear).toFixed(2)}`,
  );
}
