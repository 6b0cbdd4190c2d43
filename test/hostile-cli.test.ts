/**
 * Hostile input through the command (the built CLI): cases a mutation fuzzer found to crash `binlog dump`
 * with a Node stack and lose its output (issue 41), each now a typed outcome with every event written.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../bin/usage.js';
import { reportFailure } from '../bin/options.js';
import { BinlogWriter } from '../builder/index.js';
import { decodeBinlog } from '../runtime/io/stream.js';
import { runBinlog } from './support/cli.js';

/** MySQL's type code of TINY_BLOB, which a STRING column's metadata may not name as its real type. */
const TINY_BLOB = 249;
const STRING = 254;

/**
 * A binlog whose TABLE_MAP says a CHAR(10) column's real type is TINY_BLOB: the metadata then gives no
 * width for the value's length (case D1 of the fuzzer, 312 of its 22,080 mutants).
 */
function charColumnSaidToBeTinyBlob(): Uint8Array {
  const w = new BinlogWriter({ timestamp: 1_700_000_000, checksum: 'CRC32' });
  const t = w.createTable({
    schema: 'db',
    name: 't',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'c', type: 'char(10)', charset: 'utf8mb4' },
    ],
    primaryKey: 'id',
  });
  w.insert(t, [{ id: 1, c: 'one' }]).commit();
  const bytes = Uint8Array.from(w.end().toBytes());
  const map = decodeBinlog(bytes).find((e) => e.type === 'TABLE_MAP_EVENT')!;
  const event = bytes.subarray(map.pos, map.pos + map.header.eventSize);
  // The column's metadata is its real type, then its length in bytes (40: ten utf8mb4 characters).
  const at = event.findIndex((b, i) => b === STRING && event[i + 1] === 40);
  event[at] = TINY_BLOB;
  new DataView(event.buffer, event.byteOffset).setUint32(event.length - 4, crc32(event.subarray(0, -4)), true);
  return bytes;
}

describe('binlog dump of hostile files', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'hostile-cli-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'D1: a length width the metadata does not give keeps the images as bytes, ' + 'every event written, exit 7',
    async () => {
      const file = join(dir, 'd1.bin');
      const bytes = charColumnSaidToBeTinyBlob();
      writeFileSync(file, bytes);
      const run = await runBinlog(['dump', file]);
      expect(run.stderr).not.toMatch(/RangeError|at .*\.js:\d+/);
      expect(run.status).toBe(EXIT.undecoded);
      const lines = run.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; rowImagesUndecoded?: string });
      expect(lines.map((l) => l.type)).toEqual(decodeBinlog(bytes, { onError: () => 'skip' }).map((e) => e.type));
      const rows = lines.find((l) => l.type.startsWith('WRITE_ROWS_EVENT'))!;
      expect(rows.rowImagesUndecoded).toMatch(/an integer of undefined bytes/);
    },
  );
});

describe('a fault no typed error describes', () => {
  it('is said as a sentence asking for a report, exit 70, the stack only under BINLOG_DEBUG', () => {
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (said.push(String(s)), true));
    try {
      expect(reportFailure(new TypeError("Cannot read properties of undefined (reading 'x')"), 'f.bin')).toBe(70);
      vi.stubEnv('BINLOG_DEBUG', '1');
      reportFailure(new TypeError('again'), 'f.bin');
    } finally {
      spy.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(said[0]).toBe(
      'binlog: f.bin: an internal error stopped the command (please report it): Cannot read properties of undefined ' +
        "(reading 'x')\n",
    );
    expect(said.slice(1).join('')).toMatch(/TypeError: again\n\s+at /);
  });
});

describe('binlog encode of out-of-range header fields (fuzzer case E3)', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'hostile-encode-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The sample's first three lines with one header field of the line at `index` set to `value`. */
  async function linesWith(index: number, field: string, value: number): Promise<string> {
    const dump = await runBinlog(['dump', join(import.meta.dirname, 'fixtures', 'sample.bin')]);
    const lines = dump.stdout
      .split('\n')
      .slice(0, 3)
      .map((l) => JSON.parse(l) as { header: Record<string, number> });
    lines[index]!.header[field] = value;
    return lines.map((l) => JSON.stringify(l)).join('\n');
  }

  it.each([
    ['timestamp', 1, -1, 'line 2: $ (in EventHeader.timestamp): -1 does not fit 4 bytes'],
    ['logPos', 2, 2 ** 40, 'line 3: $ (in EventHeader.logPos): 1099511627776 does not fit 4 bytes'],
  ])(
    'header.%s out of range: exit 1, the line and the field named, nothing written',
    async (field, index, value, said) => {
      const out = join(dir, `${field}.bin`);
      const run = await runBinlog(['encode', '-', '-o', out], { input: await linesWith(index, field, value) });
      expect(run.status).toBe(EXIT.badInput);
      expect(run.stderr).toBe(`binlog: -: ${said}\n`);
      expect(existsSync(out)).toBe(false);
    },
  );
});
