/**
 * The README's TypeScript examples, as a user copies them: type-checked by tsc against the built package
 * (imported by its name), then run on the bundled sample, and the reading loop on a MySQL 8 compressed
 * transaction too.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBinlog } from '../runtime/io/stream.js';
import { FIXTURES, fixturesAvailable } from './support/fixtures.js';

const root = join(import.meta.dirname, '..');
const SAMPLE = 'test/fixtures/sample.bin';
const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

// A project of the user's: the package under its name in node_modules, the sample where the examples read it.
const dir = mkdtempSync(join(tmpdir(), 'binlog-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'node_modules'));
symlinkSync(root, join(dir, 'node_modules', 'binlog-codec'));
mkdirSync(join(dir, 'test', 'fixtures'), { recursive: true });
symlinkSync(join(root, SAMPLE), join(dir, SAMPLE));
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');

function compile(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    skipLibCheck: true,
    outDir: dir,
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

function run(js: string): string {
  const r = spawnSync(process.execPath, [js], { cwd: dir, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe("the README's TypeScript examples", () => {
  const files = blocks.map((code, i) => {
    const file = join(dir, `example-${i + 1}.ts`);
    writeFileSync(file, code);
    return file;
  });
  const js = (i: number) => files[i]!.replace(/\.ts$/, '.js');

  it('there are the reading loop, the whole-file round trip, the live reader (type-checked only: it needs a server) and the writer', () => {
    expect(blocks).toHaveLength(4);
    expect(blocks[2]).toContain('connectBinlog');
    expect(blocks[0]).toContain('switch (event.type)');
    expect(blocks[0]).toContain('toJsonLine');
  });

  it('type-check against the package', { timeout: 120_000 }, () => {
    expect(compile(files)).toEqual([]);
  });

  it('the reading loop narrows by type and writes bigints and rows as JSON', () => {
    const lines = run(js(0)).trim().split('\n');
    expect(lines).toContain('{"gtid":[0,1,3]}');
    expect(lines).toContain('next file: binlog.000002');
    expect(lines).toContain('sample.people {"after":{"id":1,"name":"Ada","score":"91.50","born":"1815-12-10","note":null}}');
    expect(lines.filter((l) => l.startsWith('query:'))).not.toEqual([]);
  });

  it.runIf(fixturesAvailable)('the reading loop finds the row of a MySQL 8 compressed transaction', () => {
    const compressed = join(FIXTURES, 'binlogs', 'blackbeam__rust_mysql_common', 'test-data__binlogs__transaction_compression.000001');
    const file = join(dir, 'compressed.ts');
    writeFileSync(file, blocks[0]!.replace(`'${SAMPLE}'`, JSON.stringify(compressed)));
    expect(compile([file])).toEqual([]);
    expect(run(join(dir, 'compressed.js')).trim().split('\n')).toContain('test.tb1 {"nullSpare":{"after":0},"after":{"@1":1}}');
  });

  it('the whole-file round trip gives the same bytes', () => {
    expect(run(js(1)).trim()).toBe('same bytes: true');
  });

  it('the writer writes the rows it was given', () => {
    run(js(3));
    const rows = decodeBinlog(readFileSync(join(dir, 'synthetic.bin'))).flatMap((e) => ('rows' in e ? (e.rows ?? []) : []));
    expect(rows).toEqual([
      { after: { id: 1, name: 'pen', price: '1.50' } },
      { before: { id: 1, name: 'pen', price: '1.50' }, after: { id: 1, name: 'pen', price: '1.75' } },
    ]);
  });
});
