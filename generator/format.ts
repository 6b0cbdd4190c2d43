/**
 * The layout of the emitted files: Prettier with the project's own configuration, so that generated code
 * reads like the code written by hand and a diff of it shows what the schema change meant, not the line
 * breaks ts-morph chose. Prettier leaves comments as they are, so a comment line longer than the print
 * width is wrapped here first (a schema's `doc:` becomes one line of a doc comment).
 */
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { EmittedFile } from './emit/print.js';

/** The files laid out as if they were at `dir` (where Prettier looks for the configuration). */
export async function formatted(files: EmittedFile[], dir: string): Promise<EmittedFile[]> {
  return Promise.all(
    files.map(async (f) => {
      const filepath = join(dir, f.path);
      const options = { ...(await resolveConfig(filepath)), filepath };
      const width = options.printWidth ?? 80;
      return { path: f.path, text: await format(wrappedComments(f.text, width), options) };
    }),
  );
}

/** A doc comment on one line, a line inside a doc comment, and a line comment: the forms a comment line has. */
const ONE_LINE_DOC = /^(\s*)\/\*\* (.*) \*\/$/;
const DOC_LINE = /^(\s*) \* (.*)$/;
const LINE_COMMENT = /^(\s*)\/\/ (.*)$/;

/** Each comment line longer than `width` made into several, its words kept in order. */
export function wrappedComments(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => (line.length <= width ? [line] : wrappedComment(line, width)))
    .join('\n');
}

function wrappedComment(line: string, width: number): string[] {
  let m = ONE_LINE_DOC.exec(line);
  if (m) return [`${m[1]}/**`, ...words(m[2]!, `${m[1]} * `, width), `${m[1]} */`];
  m = DOC_LINE.exec(line) ?? LINE_COMMENT.exec(line);
  if (m) return words(m[2]!, line.slice(0, line.length - m[2]!.length), width);
  return [line];
}

/** The words of `text` in lines that begin with `prefix` and end before `width` (a longer word alone). */
function words(text: string, prefix: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, prefix + line];
}
