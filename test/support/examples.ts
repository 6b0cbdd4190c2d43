/**
 * The code blocks of the README and docs/*.md, as a user copies them, and a project of the user's to
 * type-check and run them in: the package under its name in node_modules, the bundled sample where the
 * examples read it, and the command at ./bin/binlog.
 *
 * A block's info string says what is done with it: ```ts blocks are type-checked and run (```ts no-run:
 * type-checked only, e.g. a server is needed); ```sh run blocks are run by bash, and a ```… output block
 * right after one is what they print.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

export const ROOT = join(import.meta.dirname, '..', '..');
export const SAMPLE = 'test/fixtures/sample.bin';

export interface Block {
  /** The file it is in, relative to the root. */
  file: string;
  lang: string;
  flags: string[];
  code: string;
  /** For a `sh run` block: the output block right after it, if any. */
  output?: string;
}

/** The documents whose examples are held to what they say: the README and every page of docs/. */
export function documents(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

export function blocksOf(file: string): Block[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const blocks: Block[] = [];
  for (const m of text.matchAll(/^```(\S*)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const flags = m[2]!.trim().split(/\s+/).filter(Boolean);
    const block: Block = { file, lang: m[1]!, flags, code: m[3]! };
    const last = blocks.at(-1);
    if (flags.includes('output') && last?.flags.includes('run')) last.output = block.code;
    else blocks.push(block);
  }
  return blocks;
}

export const tsBlocks = (file: string) => blocksOf(file).filter((b) => b.lang === 'ts');

/**
 * A scratch project: `install` puts the package at the path it is given (node_modules/binlog-codec),
 * `deps` are linked beside it from ours; removed by `dispose`.
 */
export function userProject(
  install: (target: string) => void,
  deps: string[] = [],
): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'binlog-examples-'));
  const pkg = join(dir, 'node_modules', 'binlog-codec');
  mkdirSync(join(dir, 'node_modules'));
  install(pkg);
  for (const d of deps) {
    mkdirSync(join(dir, 'node_modules', d, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', d), join(dir, 'node_modules', d));
  }
  mkdirSync(join(dir, 'test', 'fixtures'), { recursive: true });
  symlinkSync(join(ROOT, SAMPLE), join(dir, SAMPLE));
  symlinkSync(join(pkg, 'bin'), join(dir, 'bin'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The package as this checkout is: linked. */
export const linkCheckout = (target: string) => symlinkSync(ROOT, target);

/** Writes each block as NAME-i.ts in `dir`; the paths. */
export function writeBlocks(dir: string, name: string, blocks: Block[]): string[] {
  return blocks.map((b, i) => {
    const file = join(dir, `${name}-${i + 1}.ts`);
    writeFileSync(file, b.code);
    return file;
  });
}

/** Type-checks and compiles `files` as a user's strict NodeNext project would; the diagnostics. */
export function compile(dir: string, files: string[], moduleResolution: 'nodenext' | 'bundler' = 'nodenext'): string[] {
  const bundler = moduleResolution === 'bundler';
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2023,
    module: bundler ? ts.ModuleKind.ESNext : ts.ModuleKind.NodeNext,
    moduleResolution: bundler ? ts.ModuleResolutionKind.Bundler : ts.ModuleResolutionKind.NodeNext,
    strict: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    skipLibCheck: true,
    outDir: dir,
    noEmit: bundler,
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

export function runJs(dir: string, tsFile: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [tsFile.replace(/\.ts$/, '.js')], { cwd: dir, encoding: 'utf8' });
}

export function runSh(dir: string, code: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('bash', ['-euo', 'pipefail', '-c', code], {
    // Node's pipes are socket pairs, and Debian's bash reads /etc/bash.bashrc (which fails under -u) when
    // its standard input is a socket at the first shell level, as it would under sshd: an example reads none.
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
}
