/**
 * What `binlog` loads to start (issue 16: start-up): each command its own modules when it runs, so that
 * `--version`, `--help` and `completion` load nothing of the runtime, and `dump FILE` neither the
 * replication client, the server, the tools, NATS nor mysql2. The command runs the bundle of dist/cli/
 * (issue 45: start-up), whose modules.json names the modules of dist/ each of its files holds.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const sample = join(root, 'test', 'fixtures', 'sample.bin');
const bundle = join(root, 'dist', 'cli');
const bundled = JSON.parse(readFileSync(join(bundle, 'modules.json'), 'utf8')) as Record<string, string[]>;
const tmp = mkdtempSync(join(tmpdir(), 'binlog-startup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// A loader hook that appends each module's URL to the file BINLOG_LOADED names, registered by --import.
const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.BINLOG_LOADED, url + '\\n');
  return next(url, context);
}`;
const register =
  `import { register } from 'node:module'; ` +
  `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;

let runs = 0;

/**
 * `binlog ARGS`: its exit status, the files of this package it loaded (relative to the root), the modules
 * of dist/ those files hold (a file of the bundle stands for the modules it holds) and the packages (those
 * required through createRequire pass no loader hook: NODE_DEBUG=module names them).
 */
function loads(args: string[]): { code: number | null; loaded: string[]; files: string[]; packages: string[] } {
  const log = join(tmp, `loaded-${runs++}`);
  writeFileSync(log, '');
  const r = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, join(root, 'bin', 'binlog'), ...args],
    {
      env: { ...process.env, BINLOG_LOADED: log, NODE_DEBUG: 'module' },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    },
  );
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const paths = urls.filter((u) => u.startsWith('file:')).map((u) => relative(root, fileURLToPath(u)));
  const inPackages = [...paths, ...[...r.stderr.matchAll(/"([^"]*node_modules[^"]*)"/g)].map((m) => m[1]!)];
  const packages = new Set(inPackages.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []));
  const loaded = paths.filter((p) => !p.includes('node_modules'));
  const files = loaded.flatMap((p) => bundled[relative(bundle, join(root, p))] ?? [p]);
  return { code: r.status, loaded, files, packages: [...packages].sort() };
}

describe('binlog start-up', () => {
  it.each(['--version', '--help', 'completion'])('%s loads the command line alone, nothing of the runtime', (arg) => {
    const { code, files, packages } = loads([arg]);
    expect(code).toBe(0);
    expect(packages).toEqual([]);
    // The help names what encode assumes without a FORMAT_DESCRIPTION_EVENT: that one sentence of the runtime.
    expect(files.filter((f) => !f.startsWith('dist/bin/') && f !== 'bin/binlog')).toEqual([
      'dist/runtime/events/assumed-format.js',
    ]);
    expect(files.filter((f) => /^dist\/bin\/(dump|encode|sql|serve|stream|options|remote)\.js$/.test(f))).toEqual([]);
  });

  it(
    'dump FILE loads no package and none of the protocol layer, the replication client, the server, the tools, ' +
      'the builder or the sinks',
    () => {
      const { code, files, packages } = loads(['dump', sample]);
      expect(code).toBe(0);
      expect(packages).toEqual([]);
      expect(files.filter((f) => /^dist\/(protocol|replication|server|tools|builder|sinks)\//.test(f))).toEqual([]);
      expect(files).toContain('dist/runtime/io/stream.js');
    },
  );

  it('dump FILE runs the bundle: a few files of dist/cli/, and no module of dist/ on its own', () => {
    const { code, loaded } = loads(['dump', sample]);
    expect(code).toBe(0);
    expect(loaded.filter((f) => f !== 'bin/binlog' && !f.startsWith('dist/cli/'))).toEqual([]);
    expect(loaded.length).toBeLessThan(20);
  });

  it('stream and serve load NATS and mysql2 only when they run, not for a usage error', () => {
    for (const args of [['stream', '-R', '--raw', '--to=nats://localhost:4222'], ['serve']]) {
      const { code, files, packages } = loads(args);
      expect(code).toBe(2);
      expect(packages.filter((p) => p.startsWith('@nats-io/') || p === 'mysql2')).toEqual([]);
      expect(files).not.toContain('dist/sinks/nats.js');
    }
  });
});
