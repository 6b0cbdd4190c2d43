/** The generator's layout step: comment lines wrapped to the print width before Prettier lays out the code. */
import { describe, expect, it } from 'vitest';
import { wrappedComments } from '../../generator/format.js';

describe('wrappedComments', () => {
  it('makes a one-line doc comment longer than the width a block, its words in lines under the width', () => {
    const text = `  /** ${'word '.repeat(12).trim()} */`;
    expect(wrappedComments(text, 40).split('\n')).toEqual([
      '  /**',
      '   * word word word word word word word',
      '   * word word word word word',
      '   */',
    ]);
  });

  it('wraps a doc comment line and a line comment under their own prefixes; leaves short lines and code', () => {
    const code = `const s = '${'x'.repeat(60)}';`;
    const text = [
      ' * alpha beta gamma delta epsilon zeta eta',
      '    // one two three four five six seven',
      'short',
      code,
    ];
    expect(wrappedComments(text.join('\n'), 30).split('\n')).toEqual([
      ' * alpha beta gamma delta',
      ' * epsilon zeta eta',
      '    // one two three four five',
      '    // six seven',
      'short',
      code,
    ]);
  });

  it('puts a word longer than the width on a line of its own', () => {
    expect(wrappedComments(`// a ${'b'.repeat(40)} c`, 20).split('\n')).toEqual([
      '// a',
      `// ${'b'.repeat(40)}`,
      '// c',
    ]);
  });
});
