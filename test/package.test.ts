/** The package as a dependent imports it: by name, through package.json's exports, compiled code and types. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('package exports', () => {
  it('binlog-codec gives the reader, the writer and the errors', async () => {
    const lib = await import('binlog-codec');
    for (const name of ['readBinlog', 'decodeBinlog', 'encodeBinlog', 'BinlogError', 'ChecksumError', 'Reader', 'Writer', 'toJsonLine', 'BinlogWriter', 'followBinlog']) {
      expect(lib, name).toHaveProperty(name);
    }
    expect(existsSync(join(root, 'dist', 'index.d.ts'))).toBe(true);
  });
  it('binlog-codec/generated gives the generated codecs', async () => {
    const gen = await import('binlog-codec/generated');
    expect(typeof gen.decodeQueryEvent).toBe('function');
    expect(gen.EventTypes.GTID_EVENT).toBe(162);
    expect(existsSync(join(root, 'dist', 'generated', 'index.d.ts'))).toBe(true);
  });
});
