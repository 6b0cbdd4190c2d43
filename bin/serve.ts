/**
 * `binlog serve`: server/'s serveBinlog on the command line, for binlog files and folders, or for the
 * events of dump-format JSON lines (`--from-jsonl`), until SIGINT or SIGTERM.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { serveBinlog, UnservableError, type ServeOptions, type ServedBinlogs } from '../server/serve.js';
import { EXIT, jsonLineEvents, parseCommand, reportFailure, TABLE_DEF_OPTIONS, tableDefinitions, UsageError } from './options.js';

export const SERVE_HELP = `Options for serve (binlog serve [options] FILE|DIR... or --from-jsonl FILE|-):
  --port=N                   TCP port (default 3306; 0: any free one, said on standard error).
  --host=H                   The address to listen on (default 127.0.0.1: this machine only).
  --user=U --password=PW     The account replicas must give (mysql_native_password); without
                             --user any account is let in.
  --server-id=N              The source's server id (default: the first binlog's, whose events carry
                             it); replicas must have another.
  --ssl-cert=PEM --ssl-key=PEM
                             A certificate and its key: TLS is offered, for clients and replicas
                             that ask for it (MASTER_SSL=1); others are served in the clear.
  --follow                   At the end of the last binlog, wait for it to grow and for new files in
                             a folder (a folder's *.index names its binlogs), as for a live server.
  --from-jsonl FILE|-        Serve the events of dump-format JSON lines (an edited dump), encoded as
                             encode writes them, each binlog named by its events' "file" (default
                             binlog.000001), log_pos computed; the table definitions options apply.
serve answers what replicas and CDC clients ask before a dump (SELECT UNIX_TIMESTAMP(), @@server_id,
@@version, @@global.binlog_checksum, SHOW MASTER STATUS, SHOW BINARY LOGS, SET @...), then
COM_REGISTER_SLAVE and COM_BINLOG_DUMP from a file and position or a MariaDB GTID state
(MASTER_USE_GTID=slave_pos), as a primary sends: a fake ROTATE, the FORMAT_DESCRIPTION, the events,
heartbeats when idle; a MariaDB GTID start per domain, and what older replicas can read. Any other
statement gets an error quoting it. See docs/serve.md.
`;

export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  'server-id': { type: 'string' },
  'ssl-cert': { type: 'string' },
  'ssl-key': { type: 'string' },
  follow: { type: 'boolean' },
  'from-jsonl': { type: 'string' },
  ...TABLE_DEF_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export async function serveCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(args, SERVE_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  const jsonl = values['from-jsonl'];
  if (jsonl === undefined && positionals.length === 0) throw new UsageError('serve needs binlog FILEs or folders (or --from-jsonl FILE)');
  if (jsonl !== undefined && positionals.length > 0) throw new UsageError('serve takes either FILEs or --from-jsonl, not both');
  if (values.password !== undefined && values.user === undefined) throw new UsageError('--password is for --user');
  if ((values['ssl-cert'] === undefined) !== (values['ssl-key'] === undefined)) throw new UsageError('--ssl-cert and --ssl-key go together');
  const options: ServeOptions = {
    port: number(values.port, '--port') ?? 3306,
    host: values.host,
    user: values.user,
    password: values.password,
    serverId: number(values['server-id'], '--server-id'),
    follow: values.follow,
    tls: values['ssl-cert'] !== undefined ? { cert: readFileSync(values['ssl-cert']), key: readFileSync(values['ssl-key']!) } : undefined,
    tableDefinitions: tableDefinitions(values),
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

function number(v: string | undefined, option: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`${option} takes a number`);
  return Number(v);
}
