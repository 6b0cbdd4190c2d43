/** The package as a dependent imports it: by name, through package.json's exports, compiled code and types. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBinlog } from '../index.js';
import { blocksOf, compile, runJs, runSh, tsBlocks, userProject, writeBlocks } from './support/examples.js';

const root = join(import.meta.dirname, '..');

describe('package exports', () => {
  it('binlog-codec gives the reader, the writer and the errors', async () => {
    const lib = await import('binlog-codec');
    for (const name of [
      'readBinlog',
      'decodeBinlog',
      'encodeBinlog',
      'BinlogError',
      'ChecksumError',
      'Reader',
      'Writer',
      'toJsonLine',
      'BinlogWriter',
      'followBinlog',
    ]) {
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
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const imported = new Set<string>();
    for (const file of readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    )) {
      for (const [, spec] of readFileSync(join(root, 'dist', file), 'utf8').matchAll(
        // `from` is a keyword only before white space: `'from' in v` is code, not an import.
        /(?:\bfrom\s+|\bimport\(\s*|\brequire\(\s*)['"]([^'"]+)['"]/g,
      )) {
        if (spec!.startsWith('.') || spec!.startsWith('node:')) continue;
        imported.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
      }
    }
    expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });
});

/**
 * The package as npm packs it, put where `npm install binlog-codec-0.1.0.tgz` puts it (unpacked into a
 * scratch project's node_modules, its dependencies linked from ours: installing them would need the
 * registry), and the README's examples type-checked and run against it.
 */
describe('the packed package', { timeout: 180_000 }, () => {
  const packDir = mkdtempSync(join(tmpdir(), 'binlog-pack-'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  // dist is built (pretest); the prepare script would build it again.
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], {
    cwd: root,
    encoding: 'utf8',
  });
  const tarball = join(packDir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  const project = userProject((target) => {
    mkdirSync(target);
    execFileSync('tar', ['xzf', tarball, '-C', target, '--strip-components=1']);
  }, Object.keys(pkg.dependencies));
  afterAll(() => {
    project.dispose();
    rmSync(packDir, { recursive: true, force: true });
  });
  const readme = tsBlocks('README.md');
  const generated = {
    file: 'README.md',
    lang: 'ts',
    flags: [],
    code: "import { EventTypes } from 'binlog-codec/generated';\n\nconsole.log(EventTypes.GTID_EVENT);\n",
  };
  // The README's examples, then an import of the generated codecs.
  const files = writeBlocks(project.dir, 'readme', [...readme, generated]);

  // Nothing at run time reads the schemas: like the TypeScript sources, they are the repository's, and
  // source maps would point at files the package does not hold.
  it(
    'holds the compiled code, the command and the docs: no tests, ' +
      'no benchmarks, no sources, no schemas, no source maps',
    () => {
      const entries = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((e) => e.replace(/^package\//, ''));
      expect(entries).toEqual(
        expect.arrayContaining([
          'package.json',
          'README.md',
          'LICENSE',
          'bin/binlog',
          'dist/index.js',
          'dist/index.d.ts',
          'docs/events.md',
        ]),
      );
      expect(entries.filter((e) => !/^(dist|docs)\/|^(bin\/binlog|package\.json|README\.md|LICENSE)$/.test(e))).toEqual(
        [],
      );
      expect(entries.filter((e) => (e.endsWith('.ts') && !e.endsWith('.d.ts')) || e.endsWith('.map'))).toEqual([]);
      // Nor a map inlined or named by a comment: it would name sources the package does not hold.
      const shipped = join(project.dir, 'node_modules', 'binlog-codec');
      expect(
        entries.filter(
          (e) => /\.[cm]?[jt]s$/.test(e) && readFileSync(join(shipped, e), 'utf8').includes('sourceMappingURL'),
        ),
      ).toEqual([]);
    },
  );

  it('exports what docs/library.md documents and no internal module; CommonJS require()s it', () => {
    const node = (file: string, code: string) => {
      writeFileSync(join(project.dir, file), code);
      return spawnSync(process.execPath, [file], { cwd: project.dir, encoding: 'utf8' });
    };
    const esm = node(
      'entry-points.mjs',
      `
      const tryImport = (spec) => import(spec).then((m) => Object.keys(m).length, (e) => e.code);
      console.log(JSON.stringify(await Promise.all(['binlog-codec', 'binlog-codec/generated', ` +
        `'binlog-codec/runtime/core/reader.js', 'binlog-codec/dist/index.js'].map(tryImport))));`,
    );
    const [main, generated, internal, dist] = JSON.parse(esm.stdout) as [number, number, string, string];
    expect([main > 10, generated > 10, internal, dist]).toEqual([
      true,
      true,
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
    ]);
    // Both entry points through require(): the sample's row events as the repository's decoder counts them.
    const cjs = node(
      'require.cjs',
      `
      const { decodeBinlog } = require('binlog-codec');
      const { EventTypes } = require('binlog-codec/generated');
      const events = decodeBinlog(require('node:fs').readFileSync('test/fixtures/sample.bin'));
      console.log(JSON.stringify([events.filter((e) => e.type.startsWith('WRITE_ROWS')).length, ` +
        `EventTypes.GTID_EVENT]));`,
    );
    expect([cjs.status, cjs.stderr.replace(/^.*ExperimentalWarning.*\n|^\(Use .*\n/gm, '')]).toEqual([0, '']);
    const writeRows = decodeBinlog(readFileSync(join(root, 'test', 'fixtures', 'sample.bin'))).filter((e) =>
      e.type.startsWith('WRITE_ROWS'),
    ).length;
    expect(writeRows).toBeGreaterThan(0);
    expect(JSON.parse(cjs.stdout)).toEqual([writeRows, 162]);
  });

  it.each(['nodenext', 'bundler'] as const)(
    "the README's examples and binlog-codec/generated type-check against it (moduleResolution %s)",
    (resolution) => {
      expect(compile(project.dir, files, resolution)).toEqual([]);
    },
  );

  it("the README's examples run against it on the bundled sample", () => {
    compile(project.dir, files);
    const outputs = files.map((f) => runJs(project.dir, f));
    expect(outputs.map((o) => [o.status, o.stderr])).toEqual(files.map(() => [0, '']));
    expect(outputs[0]!.stdout).toContain(
      'sample.people {"after":{"id":1,"name":"Ada","score":"91.50","born":"1815-12-10","note":null}}',
    );
    expect(existsSync(join(project.dir, 'synthetic.bin')) && existsSync(join(project.dir, 'edited.bin'))).toBe(true);
    expect(outputs.at(-1)!.stdout).toBe('162\n');
  });

  it("its command runs the README's first shell example", () => {
    const example = blocksOf('README.md').find((b) => b.flags.includes('run') && b.output !== undefined)!;
    const r = runSh(project.dir, example.code);
    expect([r.status, r.stderr, r.stdout]).toEqual([0, '', example.output]);
  });
});
