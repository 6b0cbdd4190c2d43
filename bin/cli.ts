/**
 * `binlog`: the command line. `binlog dump` writes a binlog as JSON Lines, one event per line.
 * Exit codes: 0 success, 1 the input is not a valid binlog (the error names where), 2 usage, 3 I/O, 4 events
 * skipped, 5 a name filter matched nothing, 6 the server refused or the connection failed, 7 row images kept
 * as bytes.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { completionScript } from './completion.js';
import { COMMAND_HELP, HELP } from './help.js';
import { PasswordPromptInterrupted } from './secrets.js';
import {
  DUMP_OPTIONS,
  ENCODE_OPTIONS,
  EXIT,
  FLASHBACK_OPTIONS,
  OPTION_WORDS,
  SCHEMA_OPTIONS,
  SERVE_OPTIONS,
  SQL_OPTIONS,
  STREAM_OPTIONS,
  UsageError,
} from './usage.js';

export { EXIT };
export { hidePasswordFromPs } from './secrets.js';

export async function main(argv: string[]): Promise<number> {
  try {
    const [command, ...rest] = argv;
    // Alone, the command is a usage error: its help goes where errors go.
    if (command === undefined) return (process.stderr.write(HELP), EXIT.usage);
    if (command === '--help' || command === '-h' || command === 'help') return (process.stdout.write(HELP), EXIT.ok);
    if (command === '--version' || command === '-V') return (process.stdout.write(`${packageVersion()}\n`), EXIT.ok);
    // Each command's modules are loaded when it runs: a file's dump loads neither the replication
    // client nor the server nor NATS, and --version, --help and completion none of the runtime.
    if (command === 'dump') return await (await import('./dump.js')).dumpCommand(rest, COMMAND_HELP.dump);
    if (command === 'encode') return await (await import('./encode.js')).encodeCommand(rest, COMMAND_HELP.encode);
    if (command === 'sql') return await (await import('./sql.js')).sqlCommand(rest, COMMAND_HELP.sql);
    if (command === 'flashback') return await (await import('./sql.js')).flashbackCommand(rest, COMMAND_HELP.sql);
    if (command === 'serve') return await (await import('./serve.js')).serveCommand(rest, COMMAND_HELP.serve);
    if (command === 'stream') return await (await import('./stream.js')).streamCommand(rest, COMMAND_HELP.stream);
    if (command === 'schema') return await (await import('./schema.js')).schemaCommand(rest, COMMAND_HELP.schema);
    if (command === 'completion') {
      const commands = {
        dump: DUMP_OPTIONS,
        encode: ENCODE_OPTIONS,
        sql: SQL_OPTIONS,
        flashback: FLASHBACK_OPTIONS,
        serve: SERVE_OPTIONS,
        stream: STREAM_OPTIONS,
        schema: SCHEMA_OPTIONS,
      };
      return (process.stdout.write(completionScript(commands, OPTION_WORDS)), EXIT.ok);
    }
    throw new UsageError(`unknown command '${command}'`);
  } catch (e) {
    // Ctrl-C at the prompt ends the command as SIGINT would have, had the terminal not been in raw mode.
    if (e instanceof PasswordPromptInterrupted)
      return (process.stderr.write(`binlog: ${e.message}\n`), EXIT.interrupted);
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`binlog: ${(e as Error).message}\nRun 'binlog --help' for usage.\n`);
      return EXIT.usage;
    }
    throw e;
  }
}

/** The version of package.json, found above this file (bin/ in the sources, dist/bin/ compiled, dist/cli/ bundled). */
function packageVersion(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dir === dirname(dir)) throw e;
    }
  }
}

/**
 * Ends the process quietly when the reader of standard output has gone (`binlog dump f | cmd`, cmd
 * exiting before it reads): the write's error would otherwise reach no listener and crash with a stack.
 */
export function endQuietlyWhenOutputCloses(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') process.stderr.write(`binlog: standard output: ${e.message}\n`);
    process.exit(e.code === 'EPIPE' ? EXIT.ok : EXIT.io);
  });
}
