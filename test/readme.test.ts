/**
 * The examples of the README and docs/*.md, as a user copies them: the TypeScript ones type-checked by tsc
 * against the built package (imported by its name) and run on the bundled sample, the shell ones run
 * and their output compared; and every link between the documents leads somewhere.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBinlog } from '../runtime/io/stream.js';
import {
  blocksOf,
  compile,
  documents,
  linkCheckout,
  ROOT,
  runJs,
  runSh,
  SAMPLE,
  tsBlocks,
  userProject,
  writeBlocks,
  type Block,
} from './support/examples.js';
import { FIXTURES, fixturesAvailable } from './support/fixtures.js';

const project = userProject(linkCheckout);
const dir = project.dir;
afterAll(project.dispose);

const readme = tsBlocks('README.md');
const readmeFiles = writeBlocks(dir, 'readme', readme);
const docs = documents()
  .filter((d) => d !== 'README.md')
  .flatMap((d) => {
    const blocks = tsBlocks(d);
    const files = writeBlocks(dir, d.replace(/\W/g, '-'), blocks);
    return blocks.map((b, i) => ({ b, file: files[i]! }));
  });

function run(file: string): string {
  const r = runJs(dir, file);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

const rowsOf = (bytes: Uint8Array) => decodeBinlog(bytes).flatMap((e) => ('rows' in e ? (e.rows ?? []) : []));

describe("the README's TypeScript examples", () => {
  it('are the reading loop, the writer and the edit', () => {
    expect(readme).toHaveLength(3);
    expect(readme[0]!.code).toContain('switch (event.type)');
    expect(readme[0]!.code).toContain('toJsonLine');
    expect(readme[1]!.code).toContain('new BinlogWriter');
    expect(readme[2]!.code).toContain('encodeBinlog');
  });

  it('type-check against the package, with those of docs/', { timeout: 120_000 }, () => {
    expect(compile(dir, [...readmeFiles, ...docs.map((d) => d.file)])).toEqual([]);
  });

  it('the reading loop narrows by type and writes bigints and rows as JSON', () => {
    const lines = run(readmeFiles[0]!).trim().split('\n');
    expect(lines).toContain('{"gtid":[0,1,3]}');
    expect(lines).toContain('next file: binlog.000002');
    expect(lines).toContain(
      'sample.people {"after":{"id":1,"name":"Ada","score":"91.50","born":"1815-12-10","note":null}}',
    );
    expect(lines.filter((l) => l.startsWith('query:'))).not.toEqual([]);
  });

  it.runIf(fixturesAvailable)(
    'the reading loop finds the row of a MySQL 8 compressed transaction',
    { timeout: 60_000 },
    () => {
      const compressed = join(
        FIXTURES,
        'binlogs',
        'blackbeam__rust_mysql_common',
        'test-data__binlogs__transaction_compression.000001',
      );
      const file = join(dir, 'compressed.ts');
      writeFileSync(file, readme[0]!.code.replace(`'${SAMPLE}'`, JSON.stringify(compressed)));
      expect(compile(dir, [file])).toEqual([]);
      expect(run(file).trim().split('\n')).toContain('test.tb1 {"nullSpare":{"after":0},"after":{"@1":1}}');
    },
  );

  it('the writer writes the rows it was given', () => {
    run(readmeFiles[1]!);
    expect(rowsOf(readFileSync(join(dir, 'synthetic.bin')))).toEqual([
      { after: { id: 1, name: 'pen', price: '1.50' } },
      { before: { id: 1, name: 'pen', price: '1.50' }, after: { id: 1, name: 'pen', price: '1.75' } },
    ]);
  });

  it('the edit changes the one value and nothing else', () => {
    run(readmeFiles[2]!);
    const edited = rowsOf(readFileSync(join(dir, 'edited.bin')));
    const original = rowsOf(readFileSync(join(ROOT, SAMPLE)));
    expect(edited[0]!.after).toEqual({ ...original[0]!.after, name: 'Ada Lovelace' });
    expect(edited.slice(1)).toEqual(original.slice(1));
  });
});

describe('the TypeScript examples of docs/', () => {
  it('are there: the library, with the live reader type-checked only', () => {
    expect(docs.filter((d) => d.b.file === 'docs/library.md').length).toBeGreaterThanOrEqual(3);
    expect(docs.find((d) => d.b.code.includes('connectBinlog'))?.b.flags).toContain('no-run');
  });

  it.each(
    docs.filter((d) => !d.b.flags.includes('no-run')).map((d) => [`${d.b.file}: ${d.b.code.split('\n')[0]}`, d.file]),
  )('%s runs', (_, file) => {
    run(file);
  });

  it('the whole-file round trip gives the same bytes', () => {
    const roundTrip = docs.find((d) => d.b.code.includes('same bytes:'))!;
    expect(run(roundTrip.file).trim()).toBe('same bytes: true');
  });
});

const shell = documents().flatMap((d) => blocksOf(d).filter((b) => b.lang === 'sh' && b.flags.includes('run')));

describe('the shell examples marked `sh run`', () => {
  it('are there, with their output, in the README and json-format.md', () => {
    expect(shell.filter((b) => b.output !== undefined).map((b) => b.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/json-format.md']),
    );
  });

  it.each(shell.map((b): [string, Block] => [`${b.file}: ${b.code.split('\n')[0]}`, b]))(
    '%s prints what the page shows',
    (_, b) => {
      const r = runSh(dir, b.code);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (b.output !== undefined) expect(r.stdout).toBe(b.output);
    },
  );
});

/** The anchors GitHub gives a page's headings (lower case, punctuation but - and _ dropped, spaces as -). */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  return new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the links of the README and docs/', () => {
  const links = documents().flatMap((d) =>
    [
      ...readFileSync(join(ROOT, d), 'utf8')
        .replace(/^```[\s\S]*?^```$/gm, '')
        .matchAll(/\]\(([^)\s]+)\)/g),
    ]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l))
      .map((l) => ({ from: d, link: l })),
  );

  it('are many, within and between the pages', () => {
    expect(links.length).toBeGreaterThan(100);
  });

  it('each lead to a file that is there, and to a heading of it', () => {
    const broken = links.filter(({ from, link }) => {
      const [path, anchor] = link.split('#');
      const target = path ? join(ROOT, dirname(from), path) : join(ROOT, from);
      if (!existsSync(target)) return true;
      return anchor !== undefined && !anchors(target).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

describe('docs/cli.md', () => {
  it('names every flag of `binlog --help` (the pages of newer commands may hold theirs)', () => {
    const help = runSh(dir, './bin/binlog --help');
    const flags = (text: string) => new Set(text.match(/--[a-z][a-z-]*/g));
    const documented = flags(
      documents()
        .filter((d) => d.startsWith('docs/'))
        .map((d) => readFileSync(join(ROOT, d), 'utf8'))
        .join('\n'),
    );
    expect(flags(help.stdout).size).toBeGreaterThan(40);
    expect([...flags(help.stdout)].filter((f) => !documented.has(f))).toEqual([]);
    expect(readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')).toContain('--read-from-remote-server');
  });
});
