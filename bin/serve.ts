/**
 * `binlog serve`: server/'s serveBinlog on the command line, for binlog files and folders, or for the
 * events of dump-format JSON lines (`--from-jsonl`), until SIGINT or SIGTERM.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { isLoopback, serveBinlog, UnservableError, type ServeOptions, type ServedBinlogs } from '../server/serve.js';
import { encryptionKeys, jsonLineEvents, parseCommand, reportFailure, tableDefinitions } from './options.js';
import { givenPassword, withPasswordPrompt } from './secrets.js';
import { EXIT, SERVE_OPTIONS, UsageError } from './usage.js';

export async function serveCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), SERVE_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  const jsonl = values['from-jsonl'];
  if (jsonl === undefined && positionals.length === 0)
    throw new UsageError('serve needs binlog FILEs or folders (or --from-jsonl FILE)');
  if (jsonl !== undefined && positionals.length > 0)
    throw new UsageError('serve takes either FILEs or --from-jsonl, not both');
  const password = values.user === undefined ? undefined : await givenPassword(values);
  if (values.user === undefined && (values.password ?? values['password-file']) !== undefined) {
    throw new UsageError('--password and --password-file are for --user');
  }
  if ((values['ssl-cert'] === undefined) !== (values['ssl-key'] === undefined))
    throw new UsageError('--ssl-cert and --ssl-key go together');
  const host = values.host ?? '127.0.0.1';
  if (values.user === undefined && !values['allow-anonymous'] && !isLoopback(host)) {
    const ways =
      'give --user (and a password), or listen on this machine only (--host=127.0.0.1), or ' +
      'serve anyone with --allow-anonymous';
    throw new UsageError(`--host=${host} is reachable from other machines: ${ways}`);
  }
  const options: ServeOptions = {
    port: number(values.port, '--port') ?? 3306,
    host,
    allowAnonymous: values['allow-anonymous'],
    maxAllowedPacket: positive(values['max-allowed-packet'], '--max-allowed-packet'),
    connectTimeout: positive(values['connect-timeout'], '--connect-timeout'),
    waitTimeout: positive(values['wait-timeout'], '--wait-timeout'),
    maxConnections: positive(values['max-connections'], '--max-connections'),
    user: values.user,
    password,
    serverId: number(values['server-id'], '--server-id'),
    follow: values.follow,
    tls:
      values['ssl-cert'] !== undefined
        ? { cert: readFileSync(values['ssl-cert']), key: readFileSync(values['ssl-key']!) }
        : undefined,
    tableDefinitions: tableDefinitions(values),
    keys: encryptionKeys(values),
  };
  const binlogs: ServedBinlogs = jsonl !== undefined ? { events: events(jsonl) } : { files: positionals };
  const what = jsonl ?? positionals.join(', ');
  let server;
  try {
    server = await serveBinlog(binlogs, options);
  } catch (e) {
    if (!(e instanceof UnservableError)) return reportFailure(e, what);
    process.stderr.write(`binlog: ${what}: ${e.message}\n`);
    return EXIT.badInput;
  }
  process.stderr.write(`binlog serve: serving ${what} on ${server.host}:${server.port}\n`);
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await server.close();
  return EXIT.ok;
}

async function* events(input: string) {
  for await (const { event } of jsonLineEvents(input)) yield event;
}

/** A limit: a number above 0, as a limit of 0 would let nothing through. */
function positive(v: string | undefined, option: string): number | undefined {
  const n = number(v, option);
  if (n === 0) throw new UsageError(`${option} takes a number above 0`);
  return n;
}

function number(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`${option} takes a number`);
  return Number(v);
}
