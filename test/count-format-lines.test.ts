/** The counters of scripts/count-format-lines.ts (issue 13's measure of how much of the format is data). */
import { describe, expect, it } from 'vitest';
import { tsCodeLines, yamlRuleLines } from '../scripts/count-format-lines.js';

describe('count-format-lines', () => {
  it('counts a schema line unless it is blank, a comment or part of a doc', () => {
    const yaml = ['# a comment', 'Struct:', '  doc: >', '    two lines', '    of doc', '  fields:', '', '    - doc: one line', '      name: x', '      type: u8'];
    expect(yamlRuleLines(yaml.join('\n'))).toBe(4);
  });

  it('counts a TypeScript line holding a token, a template spanning lines on each of them, and no comment', () => {
    const code = ['/** doc', ' * more */', 'const a = 1; // trailing', '', '/* block */', 'const t = `x', 'y`;', '// alone'];
    expect(tsCodeLines(code.join('\n'))).toBe(3);
  });
});
