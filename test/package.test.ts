/** The package as a dependent imports it: by name, through package.json's exports, compiled code and types. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

describe('package dependencies', () => {
  it('the shipped code imports no package but Node built-ins and package.json dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
      for (const [, spec] of readFileSync(join(root, 'dist', file), 'utf8').matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
        if (spec!.startsWith('.') || spec!.startsWith('node:')) continue;
        imported.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
      }
    }
    expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });
});
