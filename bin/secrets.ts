/**
 * Passwords on the command line: where one is taken from (the option, a prompt, a file or MYSQL_PWD), and
 * how it is kept out of `ps`. The mariadb client overwrites a given password in its argv; Node cannot
 * reach argv's memory, but setting process.title writes over the whole block that /proc/PID/cmdline shows,
 * so the title is set to the command line with the password masked.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from './usage.js';

/** What stands for `--password` given without a value, which parseArgs cannot take: the prompt asks for it. */
const ASK = '\u0000ask';

/** The text that replaces a password's value in the process title. */
const MASK = '***';

/** The arguments with a bare --password (no value: the mariadb client then asks for it) made parseable. */
export function withPasswordPrompt(args: string[]): string[] {
  return args.map((a) => (a === '--password' ? `--password=${ASK}` : a));
}

/**
 * Masks every `--password=VALUE` in what `ps` shows of this process. A command line without one keeps the
 * title Node gave it, so that nothing changes for commands that carry no secret.
 */
export function hidePasswordFromPs(args: string[]): void {
  if (!args.some(isPasswordArgument)) return;
  process.title = ['binlog', ...args.map((a) => (isPasswordArgument(a) ? `--password=${MASK}` : a))].join(' ');
}

function isPasswordArgument(arg: string): boolean {
  return arg.startsWith('--password=');
}

export interface PasswordValues {
  password?: string;
  'password-file'?: string;
}

/**
 * The password the options give: `--password=PW`, `--password` alone (asked for on the terminal),
 * `--password-file=FILE` (its first line), or else the MYSQL_PWD environment variable; undefined when none
 * of them is there.
 */
export async function givenPassword(values: PasswordValues): Promise<string | undefined> {
  if (values.password !== undefined && values['password-file'] !== undefined) {
    throw new UsageError('--password and --password-file exclude each other');
  }
  if (values.password === ASK) return askPassword();
  if (values.password !== undefined) return values.password;
  if (values['password-file'] !== undefined) return passwordFromFile(values['password-file']);
  return process.env.MYSQL_PWD;
}

/** A password file's first line, without its line end: what `echo PW > FILE` leaves there. */
function passwordFromFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--password-file: cannot read ${path} (${(e as Error).message})`);
  }
  return text.split(/\r?\n/, 1)[0]!;
}

/** The prompt was ended by Ctrl-C: the command stops, as the mariadb client does, with nothing sent. */
export class PasswordPromptInterrupted extends Error {
  constructor() {
    super('interrupted at the password prompt');
  }
}

/** What has been typed at the prompt so far, and whether the line is over. */
export interface PromptState {
  typed: string;
  done: boolean;
}

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const BACKSPACES = new Set(['\u0008', '\u007f']);
const LINE_ENDS = new Set(['\r', '\n', CTRL_D]);

/** An escape sequence a key sends (an arrow, a function key): ESC, then [ or O, then up to a final letter. */
const ESCAPE_SEQUENCE = /\u001b(?:[[O][0-9;]*[@-~]?)?/g;

/**
 * Applies what the terminal sent to the prompt's state, as a line editor in raw mode would: Backspace
 * removes the last character typed, Ctrl-U the whole line, Enter or Ctrl-D ends it, and Ctrl-C throws.
 * Other control characters and the escape sequences of arrow and function keys are not part of a password,
 * and are dropped.
 */
export function typeAtPrompt(state: PromptState, input: string): PromptState {
  let typed = state.typed;
  for (const c of input.replace(ESCAPE_SEQUENCE, '')) {
    if (c === CTRL_C) throw new PasswordPromptInterrupted();
    if (LINE_ENDS.has(c)) return { typed, done: true };
    if (BACKSPACES.has(c)) typed = [...typed].slice(0, -1).join('');
    else if (c === CTRL_U) typed = '';
    else if (c >= ' ') typed += c;
  }
  return { typed, done: false };
}

/** Reads a password from the terminal without echoing it (a line of standard input when it is no terminal). */
async function askPassword(): Promise<string> {
  const input = process.stdin;
  process.stderr.write('Enter password: ');
  const raw = input.isTTY === true;
  if (raw) input.setRawMode(true);
  let state: PromptState = { typed: '', done: false };
  try {
    for await (const chunk of input) {
      state = typeAtPrompt(state, String(chunk));
      if (state.done) break;
    }
  } finally {
    if (raw) input.setRawMode(false);
    input.pause();
    process.stderr.write('\n');
  }
  return state.typed;
}
