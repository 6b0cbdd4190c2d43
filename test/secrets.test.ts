/**
 * Passwords on the command line (bin/secrets.ts): what `ps` shows of a running `binlog` that was given
 * one, where serve takes one from (a file, a prompt on a real terminal), and how the prompt edits a line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordPromptInterrupted, typeAtPrompt, type PromptState } from '../bin/secrets.js';

const root = join(import.meta.dirname, '..');
const BIN = join(root, 'bin', 'binlog');
const SAMPLE = join(root, 'test', 'fixtures', 'sample.bin');
const WAIT_MS = 30_000;
const SECRET = 'topsecret-4711';

const typed = (...inputs: string[]) =>
  inputs.reduce<PromptState>((state, input) => typeAtPrompt(state, input), { typed: '', done: false });

describe('the password prompt edits a line as a terminal does', () => {
  it('Backspace (DEL or ^H) removes the last character, a multi-byte one whole', () => {
    expect(typed('ab\u007fc\r')).toEqual({ typed: 'ac', done: true });
    expect(typed('pä\u0008ss', '\n')).toEqual({ typed: 'pss', done: true });
    expect(typed('\u007f\u007fx\r').typed).toBe('x');
  });

  it('Ctrl-U clears the line; arrow keys and other control characters are no part of it', () => {
    expect(typed('wrong\u0015right\r').typed).toBe('right');
    expect(typed('a\u001b[Db\u001bOAc\u0001\r').typed).toBe('abc');
  });

  it('a line ends at Enter, newline or Ctrl-D, and what follows is not read', () => {
    expect(typed('pw\u0004more')).toEqual({ typed: 'pw', done: true });
    expect(typed('p', 'w')).toEqual({ typed: 'pw', done: false });
  });

  it('Ctrl-C stops the prompt', () => {
    expect(() => typed('pw\u0003')).toThrow(PasswordPromptInterrupted);
  });
});

/** The command line ps shows for a process (its /proc/PID/cmdline, NUL-separated). */
function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const ended = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await ended;
}

const withProc = existsSync('/proc/self/cmdline') ? describe : describe.skip;

withProc('a password on the command line is masked in ps', () => {
  let silent: Server;
  let silentPort: number;
  let connected: Promise<void>;
  beforeAll(async () => {
    // A server that accepts and never answers holds dump -R in its handshake while ps is read.
    let accepted!: () => void;
    connected = new Promise((r) => (accepted = r));
    silent = createServer(() => accepted());
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => silent.close(() => r())));

  it('binlog dump -R', async () => {
    const args = ['dump', '-R', '--host=127.0.0.1', `--port=${silentPort}`, '--user=u', `--password=${SECRET}`];
    const child = spawn(process.execPath, [BIN, ...args, 'binlog.000001'], { stdio: 'ignore' });
    try {
      await connected;
      const shown = commandLine(child.pid!);
      expect(shown).not.toContain(SECRET);
      expect(shown).toContain('dump -R --host=127.0.0.1');
      expect(shown).toContain('--password=***');
    } finally {
      await stop(child);
    }
  });

  it('binlog serve', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port=0', '--user=repl', `--password=${SECRET}`, SAMPLE], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await saidOn(child.stderr!, / on 127\.0\.0\.1:\d+\n/);
      expect(commandLine(child.pid!)).toBe(`binlog serve --port=0 --user=repl --password=*** ${SAMPLE}`);
    } finally {
      await stop(child);
    }
  });
});

describe('binlog serve takes its password from a file or a prompt', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'secrets-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Whether a client logs in to the served port with this password. */
  async function logsIn(port: number, password: string): Promise<boolean> {
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'repl', password });
      await c.end();
      return true;
    } catch {
      return false;
    }
  }

  it('--password-file: the first line of the file, on no command line', async () => {
    const file = join(dir, 'pw');
    writeFileSync(file, `${SECRET}\nignored second line\n`);
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--port=0', '--user=repl', `--password-file=${file}`, SAMPLE],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      const port = Number((await saidOn(child.stderr!, / on 127\.0\.0\.1:(\d+)\n/))[1]);
      expect(await logsIn(port, SECRET)).toBe(true);
      expect(await logsIn(port, 'ignored second line')).toBe(false);
    } finally {
      await stop(child);
    }
  });

  it('--password and --password-file together, or without --user, are usage errors', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'serve', ...args, SAMPLE], { encoding: 'utf8' });
    const both = run('--user=repl', '--password=a', `--password-file=${join(dir, 'pw')}`);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--password and --password-file exclude each other');
    const noUser = run(`--password-file=${join(dir, 'pw')}`);
    expect(noUser.status).toBe(2);
    expect(noUser.stderr).toContain('--password and --password-file are for --user');
  });

  // util-linux's script gives the command a real terminal, so that the prompt runs in raw mode as it does
  // for a person; what the test writes to script's input is typed at that terminal.
  const withTerminal = existsSync('/usr/bin/script') ? it : it.skip;

  /** `binlog serve --user=repl --password` on a terminal, whose screen is script's standard output. */
  function servedAtTerminal(): ChildProcess {
    const command = [process.execPath, BIN, 'serve', '--port=0', '--user=repl', '--password', SAMPLE].join(' ');
    return spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
  }

  withTerminal('at the prompt, Backspace edits the password and Enter ends it', async () => {
    const child = servedAtTerminal();
    try {
      await saidOn(child.stdout!, /Enter password: /);
      child.stdin!.write('sx\u007fecret\r');
      const port = Number((await saidOn(child.stdout!, / on 127\.0\.0\.1:(\d+)/))[1]);
      expect(await logsIn(port, 'secret')).toBe(true);
      expect(await logsIn(port, 'sx\u007fecret')).toBe(false);
    } finally {
      await stop(child);
    }
  });

  withTerminal('Ctrl-C at the prompt ends the command with status 130, serving nothing', async () => {
    const child = servedAtTerminal();
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await saidOn(child.stdout!, /Enter password: /);
      child.stdin!.write('abc\u0003');
      expect(await exited).toBe(130);
    } finally {
      await stop(child);
    }
  });
});

/** Resolves when a stream's text so far matches `pattern`, with the match. */
function saidOn(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`not said in time: ${JSON.stringify(text)}`)), WAIT_MS);
    const onData = (d: Buffer | string) => {
      text += String(d);
      const m = pattern.exec(text);
      if (m) (clearTimeout(timer), stream.off('data', onData), resolve(m));
    };
    stream.on('data', onData);
  });
}
