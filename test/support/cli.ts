/**
 * The built CLI (dist/, `npm run build` first) run by tests: its output collected, and killed after 60 s so that a run
 * that never ends fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BINLOG = join(import.meta.dirname, '..', '..', 'bin', 'binlog');

export type Run = { status: number | null; stdout: string; stderr: string };

/** The CLI started with `input` on its standard input (none given: closed at once): the process, and its end. */
export function startBinlog(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BINLOG, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  child.stdin!.end(options.input ?? '');
  const done = new Promise<Run>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => (clearTimeout(timer), resolve({ status, stdout, stderr })));
  });
  return { child, done };
}

/** The CLI run to its end. */
export const runBinlog = (args: string[], options?: { input?: string; env?: NodeJS.ProcessEnv }): Promise<Run> =>
  startBinlog(args, options).done;
