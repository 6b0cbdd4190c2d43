/**
 * The command's bundle, the build's second step (`npm run build`, after tsc): dist/bin/cli.js as tsc compiled
 * it, and every module it reaches, put into a few ES module files under dist/cli/, which bin/binlog runs.
 *
 * Node's ES module loader resolves, reads, compiles and links each file on its own, 0.5–1 ms a module:
 * `binlog dump FILE` loaded some 90 files of dist/ before its first event. esbuild's splitting keeps
 * cli.ts's dynamic imports as files of their own, so a command still loads only its modules (a file's
 * dump neither the replication client, the server nor NATS): `cli.js`, one file per command, and the
 * chunks the commands share. Packages stay outside (imported by name, from node_modules), as in dist/.
 *
 * `modules.json` beside the files lists the modules of dist/ each file holds: test/cli-startup.test.ts
 * reads it to tell which of them a command loaded.
 */
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'cli');

// The chunks' names change with their content: the files of an earlier build would stay beside the new ones.
rmSync(OUT, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: [join(ROOT, 'dist', 'bin', 'cli.js')],
  absWorkingDir: ROOT,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
});
const modules = Object.fromEntries(
  Object.entries(metafile.outputs).map(([file, output]) => [
    relative(OUT, join(ROOT, file)),
    Object.keys(output.inputs).sort(),
  ]),
);
writeFileSync(join(OUT, 'modules.json'), JSON.stringify(modules, null, 1) + '\n');
