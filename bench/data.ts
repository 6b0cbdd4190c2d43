/**
 * The benchmark's input: one large binlog written by a real MariaDB server (ROW format,
 * binlog_row_metadata=FULL, CRC32) from a mixed workload, cached under bench/data/ between runs; or the
 * same workload written by builder/binlog-writer.ts (builder-data.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findMariadb, startMariadb } from '../test/support/mariadb.js';
import { AUDIT_PER_TX, ROUND_ROWS, SMALL_TX, TX_ROWS } from './workload.js';

/** Bump when the workload changes, so that cached files are made again. */
const WORKLOAD_VERSION = 1;

export const DATA_DIR = path.join(import.meta.dirname, 'data');

export type DataSource = 'server' | 'builder';

interface Meta {
  version: number;
  source: DataSource;
  targetMb: number;
  size: number;
  files: number;
  seconds: number;
}

/** The path of a binlog of at least `targetMb` MB (10^6 bytes), made now unless cached. */
export async function ensureBinlog(targetMb: number, source: DataSource, log: (s: string) => void): Promise<string> {
  const file = path.join(DATA_DIR, `${source === 'server' ? 'mariadb' : 'builder'}-${targetMb}mb.bin`);
  const metaFile = `${file}.json`;
  try {
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Meta;
    if (
      meta.version === WORKLOAD_VERSION &&
      meta.source === source &&
      meta.targetMb === targetMb &&
      fs.statSync(file).size === meta.size
    ) {
      log(`data: cached ${path.relative(process.cwd(), file)} (${(meta.size / 1e6).toFixed(1)} MB)`);
      return file;
    }
  } catch {
    // absent or unreadable: make it
  }
  fs.mkdirSync(DATA_DIR, { recursive: true });
  if (source === 'builder') {
    // Imported only here: the builder is optional to the rest of the bench.
    const { buildBinlog } = await import('./builder-data.js');
    const t0 = performance.now();
    log(`data: writing a ${targetMb} MB binlog with builder/binlog-writer.ts (once; cached in bench/data/)…`);
    const size = buildBinlog(`${file}.tmp`, targetMb * 1e6, log);
    fs.renameSync(`${file}.tmp`, file);
    const seconds = (performance.now() - t0) / 1000;
    const meta: Meta = { version: WORKLOAD_VERSION, source, targetMb, size, files: 1, seconds };
    fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2) + '\n');
    log(
      `data: the builder wrote ${(size / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s ` +
        `(${(size / 1e6 / seconds).toFixed(1)} MB/s)`,
    );
    return file;
  }
  if (!findMariadb()) {
    throw new Error(
      'bench needs a MariaDB server to make its data: mariadbd, mariadb-install-db, mariadb and mariadb-binlog ' +
        'were not all found on PATH, /usr/sbin or /usr/bin (Debian: apt-get install mariadb-server mariadb-client)',
    );
  }
  const t0 = performance.now();
  log(`data: generating a ${targetMb} MB binlog with a real MariaDB server (once; cached in bench/data/)…`);
  const parts = await generate(targetMb * 1e6, log);
  const size = writeConcatenated(file, parts);
  const meta: Meta = {
    version: WORKLOAD_VERSION,
    source,
    targetMb,
    size,
    files: parts.length,
    seconds: (performance.now() - t0) / 1000,
  };
  fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2) + '\n');
  log(`data: wrote ${(size / 1e6).toFixed(1)} MB from ${parts.length} binlog file(s) in ${meta.seconds.toFixed(0)} s`);
  return file;
}

/**
 * One file from the server's binlogs in order. A single file is copied as it is; past 1 GB (the
 * server's largest max_binlog_size) later files follow without their 4-byte magic, each starting with
 * its own FORMAT_DESCRIPTION event, so the result is read as one stream.
 */
function writeConcatenated(file: string, parts: Buffer[]): number {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let size = 0;
  parts.forEach((b, i) => {
    const body = i === 0 ? b : b.subarray(4);
    fs.writeSync(fd, body);
    size += body.length;
  });
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return size;
}

const SCHEMA = `
CREATE DATABASE bench;
USE bench;
CREATE TABLE orders (
  id INT NOT NULL PRIMARY KEY,
  customer BIGINT NOT NULL,
  name VARCHAR(100) CHARACTER SET utf8mb4 NULL,
  amount DECIMAL(12,2) NULL,
  created DATETIME(6) NOT NULL,
  score DOUBLE NULL,
  note TEXT CHARACTER SET utf8mb4 NULL,
  payload BLOB NULL,
  status ENUM('new','paid','shipped','cancelled') NOT NULL,
  qty SMALLINT UNSIGNED NULL
) ENGINE=InnoDB;
CREATE TABLE audit (
  id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  order_id INT NOT NULL,
  kind TINYINT NOT NULL,
  label VARCHAR(40) CHARACTER SET utf8mb4 NOT NULL,
  at DATETIME(6) NULL,
  delta DECIMAL(10,4) NULL
) ENGINE=InnoDB;
`;

/** Orders a..b, whose values depend only on seq: deterministic data of every column type, some NULL. */
const insertOrders = (a: number, b: number) => `
INSERT INTO orders SELECT
  seq,
  CAST(seq AS SIGNED) * 7919 % 1000003 * 9876543211 - 5000000000000000,
  IF(seq % 11 = 0, NULL, CONCAT('Zoë Łukasz 名前 ', seq)),
  IF(seq % 13 = 0, NULL, (seq * 37 % 10000000) / 100),
  TIMESTAMP'2024-01-01 00:00:00' + INTERVAL seq SECOND + INTERVAL (seq * 7 % 1000000) MICROSECOND,
  IF(seq % 17 = 0, NULL, seq / 7e0),
  IF(seq % 5 = 0, NULL, REPEAT(CONCAT('note ', seq, ' — ünïcode; '), 1 + seq % 6)),
  IF(seq % 3 = 0, NULL, UNHEX(SHA2(seq, 256))),
  ELT(1 + seq % 4, 'new', 'paid', 'shipped', 'cancelled'),
  IF(seq % 19 = 0, NULL, seq % 65536)
FROM seq_${a}_to_${b};`;

const insertAudit = (a: number, b: number) => `
INSERT INTO audit SELECT seq, seq DIV 4, seq % 7, CONCAT('änderung ', seq), IF(seq % 9 = 0, NULL, NOW(6)), \
IF(seq % 2 = 0, NULL, seq / 10000)
FROM seq_${a}_to_${b};`;

/** One round: big transactions over orders base+1..base+ROUND_ROWS, and small autocommit ones. */
function roundSql(round: number): string {
  const base = round * ROUND_ROWS;
  const out: string[] = [];
  for (let a = base + 1; a <= base + ROUND_ROWS; a += TX_ROWS) {
    const b = a + TX_ROWS - 1;
    out.push(`BEGIN;${insertOrders(a, b)}${insertAudit(a * 2, a * 2 + AUDIT_PER_TX)} COMMIT;`);
  }
  out.push(
    `BEGIN; UPDATE orders SET status = 'paid', amount = amount + 1, score = score * 2, ` +
      `qty = NULL WHERE id BETWEEN ${base + 1} AND ${base + ROUND_ROWS / 2}; COMMIT;`,
  );
  out.push(
    `BEGIN; UPDATE orders SET name = CONCAT(name, ' ✓'), note = LEFT(note, 20), ` +
      `created = created + INTERVAL 1 DAY WHERE id > ${base} AND id % 2 = 1; COMMIT;`,
  );
  // Small transactions (GTID, ANNOTATE_ROWS, TABLE_MAP, one row, XID).
  for (let i = 0; i < SMALL_TX; i++) {
    const id = base + 1 + ((i * 197) % ROUND_ROWS);
    out.push(`UPDATE orders SET status = 'shipped', qty = ${i} WHERE id = ${id};`);
  }
  out.push(
    `BEGIN; DELETE FROM orders WHERE id BETWEEN ${base + 1} AND ${base + ROUND_ROWS}; DELETE FROM audit; COMMIT;`,
  );
  return out.join('\n');
}

async function generate(targetBytes: number, log: (s: string) => void): Promise<Buffer[]> {
  const server = await startMariadb({
    binlogFormat: 'ROW',
    rowMetadata: 'FULL',
    checksum: 'CRC32',
    extraArgs: [
      '--max-binlog-size=1G',
      '--innodb-buffer-pool-size=512M',
      '--innodb-log-file-size=256M',
      '--innodb-flush-log-at-trx-commit=0',
      '--sync-binlog=0',
      '--binlog-cache-size=16M',
    ],
  });
  try {
    await server.sql(SCHEMA);
    let written = 0;
    for (let round = 0; written < targetBytes; round++) {
      await server.sql(roundSql(round), 'bench');
      written = 0;
      for (const f of await server.binlogFiles()) written += fs.statSync(f).size;
      log(`data: round ${round + 1}: ${(written / 1e6).toFixed(0)} / ${(targetBytes / 1e6).toFixed(0)} MB`);
    }
  } catch (e) {
    await server.stop();
    throw e;
  }
  return (await server.stopAndReadBinlogs()).map((f) => f.bytes);
}
