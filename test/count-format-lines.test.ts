/** The counters of scripts/count-format-lines.ts (issues 13 and 38: how much of the format is data, one figure). */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countedModules, tsCodeLines, yamlRuleLines } from '../scripts/count-format-lines.js';

const ROOT = join(import.meta.dirname, '..');

describe('count-format-lines', () => {
  it('counts a schema line unless it is blank, a comment or part of a doc', () => {
    const yaml = [
      '# a comment',
      'Struct:',
      '  doc: >',
      '    two lines',
      '    of doc',
      '  fields:',
      '',
      '    - doc: one line',
      '      name: x',
      '      type: u8',
    ];
    expect(yamlRuleLines(yaml.join('\n'))).toBe(4);
  });

  it('counts a TypeScript line holding a token, a template spanning lines on each of them, and no comment', () => {
    const code = [
      '/** doc',
      ' * more */',
      'const a = 1; // trailing',
      '',
      '/* block */',
      'const t = `x',
      'y`;',
      '// alone',
    ];
    expect(tsCodeLines(code.join('\n'))).toBe(3);
  });

  it('counts the framing, encoder groups, format state, registry, SQL types and every row and value module', () => {
    const folder = (dir: string) =>
      readdirSync(join(ROOT, 'runtime', dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`);
    const events = ['events/event-codec.ts', 'events/binlog-encoder.ts', 'events/format-state.ts'];
    const wide = [...events, 'tables/registry.ts', 'tables/sqltypes.ts'];
    expect(countedModules().sort()).toEqual([...wide, ...folder('rows'), ...folder('values')].sort());
  });

  it('reports one share, below 100 % while runtime modules turn format facts into code', () => {
    const script = join(ROOT, 'scripts', 'count-format-lines.ts');
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    const shares = [...out.matchAll(/(\d+) %/g)].map((m) => Number(m[1]));
    expect(shares).toHaveLength(1);
    expect(shares[0]).toBeGreaterThan(0);
    expect(shares[0]).toBeLessThan(100);
  });
});
