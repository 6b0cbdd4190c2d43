/**
 * `binlog`: the command line. `binlog dump` writes a binlog as JSON Lines, one event per line.
 * Exit codes: 0 success, 1 the input is not a valid binlog (the error names where), 2 usage, 3 I/O, 4 events
 * skipped, 5 a name filter matched nothing, 6 the server refused or the connection failed, 7 row images kept
 * as bytes.
 */
import { fstatSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BinlogError } from '../runtime/core/errors.js';
import { connectBinlog, connectBinlogFrames, type LiveOptions } from '../replication/client.js';
import { RawArchive, REMOTE_OPTIONS, remoteOptions, withPasswordPrompt, type RemoteValues } from './remote.js';
import { DumpLines, type OutputForm } from './dump-lines.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { EventSelection } from '../runtime/io/filter.js';
import { followBinlog } from '../runtime/io/follow.js';
import { readBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { ASSUMED_FORMAT, BinlogEncoder } from '../runtime/events/binlog-encoder.js';
import { completionScript } from './completion.js';
import { Progress } from './progress.js';
import { EXIT, eventFilter, jsonLineEvents, sayUnmatched, FILTER_OPTIONS, openOutput, parseCommand, reportFailure, TABLE_DEF_OPTIONS, tableDefinitions, UsageError, write } from './options.js';
import { FLASHBACK_OPTIONS, flashbackCommand, SQL_HELP, SQL_OPTIONS, sqlCommand } from './sql.js';
import { SERVE_HELP, SERVE_OPTIONS, serveCommand } from './serve.js';
import { STREAM_HELP, STREAM_OPTIONS, streamCommand } from './stream.js';

export { EXIT };

// The help, in parts: `binlog --help` shows them all, `binlog COMMAND --help` the parts of its command.
const USAGE = `binlog: read and write MySQL and MariaDB binary logs exactly.

Usage:
  binlog dump [options] FILE...   Write each event of each binlog as one line of JSON.
  binlog dump [options] -         Read the binlog from standard input.
  binlog encode [FILE | -] -o OUT Write the binlog that JSON Lines in dump's format describe.
  binlog sql [options] FILE...    Write the row changes as SQL statements (--flashback: their undo).
  binlog flashback [options] FILE... -o UNDO.bin
                                  Write an undo binlog: the changes reversed, last to first.
  binlog serve [options] FILE|DIR...
                                  Serve binlogs to replicas and CDC clients, as a primary does.
  binlog stream -R [options] LOGNAME --to=nats://HOST:PORT
                                  Publish a server's row changes to NATS JetStream, exactly once.
  binlog --help                   Show this help (also COMMAND --help).
  binlog --version                Show the version.
  binlog completion               Print a bash completion script: source <(binlog completion).

`;
const DUMP_HELP = `Options for dump:
  --no-verify-checksum       Do not check events' CRC32 (a mismatch is otherwise an error).
  --on-error=stop|skip       On an event that cannot be decoded: stop (the default), or report it on
                             stderr, print it as raw bytes and go on (exit status 4 at the end).
  --start-position=N         Begin with the first transaction that begins at or after byte offset N
                             of the first FILE; every later event is kept.
  --stop-position=N          Stop at the first event at or after offset N of the last FILE.
  --start-datetime=T         Begin with the first transaction whose first event is at or after T
                             ('YYYY-MM-DD HH:MM:SS', UTC unless T gives an offset, where mariadb-binlog
                             takes its local time); every later event is kept, as mariadb-binlog does.
  --stop-datetime=T          Stop at the first event at or after T.
                             The transaction a stop falls in is left out whole, and one begun before a
                             start too: what is kept is whole transactions (GTID or BEGIN to COMMIT, XID
                             or XA PREPARE; a DDL statement; a compressed TRANSACTION_PAYLOAD).
  --database=DB              Only the transactions that touch database DB, and of those only their
                             frame (GTID, BEGIN, XA END, COMMIT, XID, XA PREPARE) and DB's events:
                             TABLE_MAP, rows, ANNOTATE_ROWS and ROWS_QUERY, and the statements (DDL,
                             statement-based changes) whose default database is DB, as mariadb-binlog
                             --database keeps them. Give it more than once for more databases.
  --table=[DB.]TABLE         The same for a table: its TABLE_MAP, rows, ANNOTATE_ROWS and ROWS_QUERY.
                             Statements are left out, since only their SQL says what tables they touch.
  --case-insensitive-names   Compare database and table names without regard to case, as a server with
                             lower_case_table_names=1 or 2 does (by default they compare exactly, as
                             with 0, Linux's default).
  --max-transaction-size=N   Bytes of events the filters may hold of one transaction (default 64M; K,
                             M, G). A stop filter holds each transaction until its end, to tell whether
                             the stop falls in it; past the limit dump stops with an error.
  --follow                   Keep reading a binlog the server is still writing, waiting for new
                             events and going on to the next file at a ROTATE (one FILE).
  --payloads=nested|flat     A TRANSACTION_PAYLOAD's events (MySQL 8 compressed transactions): inside
                             its line, as "events" (the default), or each on a line of its own after
                             it, with "inPayload": the payload's pos. encode takes either.
  --format=jsonl|json        One JSON object per line (the default), or one JSON array of them all.
  --pretty                   With --format=json: indented.
  --progress                 Show a progress line on stderr (by default, when stderr is a terminal
                             and stdout is not): bytes and events read, and the share and time left.
The FORMAT_DESCRIPTION event (and START_EVENT_V3, START_ENCRYPTION) passes every filter but the stops.
A --database or --table that no event read names is said on stderr, and the exit status is then 5.

`;
const REMOTE_HELP = `Reading a running server's binlog, as a replica (mariadb-binlog's names):
  binlog dump -R [options] LOGNAME
  -R, --read-from-remote-server  Connect to a server and read its binlog LOGNAME (a file's base name)
                             from --start-position (default 4), or after --start-gtid, to LOGNAME's
                             end; the lines are the file dump's, pos being the offset in the server's
                             file. Events the server sends beside its files' (the ROTATE that names
                             the file a dump starts in, the FORMAT_DESCRIPTION it resends, MariaDB's
                             GTID_LIST of the start, heartbeats) carry "notInFile"; encode leaves them
                             out. The filters above apply (--start-position is where the dump starts).
  --host=H --port=P          TCP (default localhost:3306); --socket=S, a unix socket instead.
  --user=U --password[=PW]   The account (it needs REPLICATION SLAVE; REPLICATION CLIENT, or MariaDB's
                             BINLOG MONITOR, for a GTID start's position). --password without a value
                             asks for it; MYSQL_PWD is taken when neither is given.
  --server-id=N              The replica's server id (default 65535): unique among the server's
                             replicas, and not the server's own.
  --start-gtid=SET           Start after a GTID state: MariaDB's 0-1-100,1-2-7 or a MySQL GTID set.
  --to-last-log              Go on through the later binlogs to the end of the last one.
  --stop-never               Go on, and wait for new events, until interrupted.
  --heartbeat-period=S       Seconds between the heartbeats of an idle server (default 30). Nothing
                             from the server for twice that (at least 1 s) is a lost connection.
  --use-information-schema   For tables whose TABLE_MAP has no column names (binlog_row_metadata
                             NO_LOG or MINIMAL), read names, UNSIGNED, charsets and ENUM/SET members
                             from information_schema.COLUMNS over a second connection: the tables as
                             they are now (read again after a DDL passes), not as they were.
  --reconnect                When the connection is lost or cannot be made (the server restarting,
                             the dump thread killed, the network cut), connect again and go on from the
                             end of the last transaction read; a transaction cut by the loss is written
                             once (with --raw: from the end of the last event written, into the
                             same file). Without it, the loss ends the dump (exit 6).
  --retry-count=N            With --reconnect: attempts in a row before giving up (default 10).
  --retry-delay=S            With --reconnect: seconds before the first attempt (default 1), doubled
                             after each failed one, up to 30.
  --retry-timeout=S          With --reconnect: give up S seconds after the loss (default: no limit).
                             Giving up is exit 6, saying the attempts made and the last error.
  --raw --result-file=PREFIX Write the server's binlog files, byte for byte, as PREFIX + each name,
                             instead of JSON (with --stop-never: a continuous archive). A file begun
                             past its start holds the magic and its FORMAT_DESCRIPTION before. A file
                             is written as NAME.partial until whole (its ROTATE, the next file, or the
                             end of the server's binlog); a failure leaves it so, whole events only.

`;
const ENCODE_HELP = `Options for encode:
  -o, --output OUT       The binlog file to write (required; - for standard output). It appears only
                         when every line was valid.
  --assume-format        Write a dump whose first line is no FORMAT_DESCRIPTION_EVENT as a reader takes
                         a binlog without one (${ASSUMED_FORMAT}), rather than refuse it.

`;
const TABLE_DEF_HELP = `
Options for dump, encode, sql, flashback and serve --from-jsonl:
  --schema-file [DB=]FILE.sql  The definitions of the tables a mysqldump --no-data (or mariadb-dump) file
                             or any script of CREATE TABLE statements creates, in the database of the USE
                             before each, else the one the dump's header names, else DB. They give rows
                             the column names, signedness, character sets and ENUM/SET members that a
                             TABLE_MAP without full metadata leaves out (binlog_row_metadata=NO_LOG or
                             MINIMAL, MySQL 5.x), and rows v0 their values; each is checked against the
                             TABLE_MAP (another table is an error naming the column). A table this tool
                             cannot describe is said on stderr and read as without a definition. Repeat
                             it for more files.
  --table-def DB.TABLE=SQL   One table's definition, the same way: its CREATE TABLE statement or its
                             column list ('a int, b char(50) not null'), or @FILE holding either. Repeat it
                             for more tables. encode needs the definitions the dump was made with.
  --table-defs FILE.json     Definitions as a JSON object: {"DB.TABLE": "SQL" or {"columns": [...],
                             "engine", "rowFormat", "charset", "packRecord"}, ...}.
                             For the same table, --table-def overrides --table-defs, which overrides
                             --schema-file.
Without any of them, an integer column whose signedness no TABLE_MAP metadata gives reads as
{"signed": N, "unsigned": M} when its high bit is set (both readings, as mariadb-binlog -v prints them).

`;
const ENCODE_NOTES = `encode computes every derived field from the content (eventSize, the checksum, lengths, counts), so
an edited value of another length just works; header.logPos is computed when it is absent, null, or
the source's own pos + eventSize, and kept as given otherwise. A line that does not describe a valid
event is refused with its line number, the JSON path and the reason.

`;
const LINES_HELP = `Each line has: file (the binlog file's name, absent when reading standard input; encode ignores it),
pos (the event's file offset), header (timestamp in Unix seconds, typeCode, serverId, eventSize,
logPos, flags; the last two absent in a MySQL 3.23 binlog v1 file), type (the server's name for the
type code, UNKNOWN_<code> for a code no server defines, UNDECODED_EVENT for an event --on-error=skip
kept undecoded), the body's fields, and checksum (when the event has one); on encode typeCode may be
left out, as type implies it. An event whose body is not decoded carries "raw": {"hex": "..."}.
64-bit integers are JSON numbers when safe, decimal strings otherwise; bytes that are not valid UTF-8
are {"hex": "..."}. docs/json-format.md describes the lines, docs/events.md every event's fields.

`;
const EXIT_HELP = `On bad input every event before the fault is printed, then one line on stderr names the byte offset,
the event and the cause. Exit status: 0 success, 1 invalid binlog, 2 usage error, 3 cannot read input,
4 events were skipped (--on-error=skip), 5 a --database or --table named nothing that was read, 6 the
server refused (its words are quoted: a wrong password, a missing privilege, log_bin off, an unknown
or purged binlog or GTID, a position inside an event) or the connection failed or was lost, 7 every
event was read but some row events kept their images as bytes (rowImagesUndecoded says why).
`;
const HELP = [USAGE, DUMP_HELP, REMOTE_HELP, ENCODE_HELP, SQL_HELP, SERVE_HELP, TABLE_DEF_HELP, ENCODE_NOTES, LINES_HELP, EXIT_HELP].join('');

/** `binlog COMMAND --help`: the usage, the command's options, and what they share (sql's part holds flashback's too). */
const COMMAND_HELP = {
  dump: [USAGE, DUMP_HELP, REMOTE_HELP, TABLE_DEF_HELP, LINES_HELP, EXIT_HELP].join(''),
  encode: [USAGE, ENCODE_HELP, TABLE_DEF_HELP, ENCODE_NOTES, LINES_HELP, EXIT_HELP].join(''),
  sql: [USAGE, SQL_HELP, TABLE_DEF_HELP, EXIT_HELP].join(''),
  serve: [USAGE, SERVE_HELP, TABLE_DEF_HELP, EXIT_HELP].join(''),
  stream: [USAGE, STREAM_HELP, REMOTE_HELP, EXIT_HELP].join(''),
} as const;

export async function main(argv: string[]): Promise<number> {
  try {
    const [command, ...rest] = argv;
    // Alone, the command is a usage error: its help goes where errors go.
    if (command === undefined) return (process.stderr.write(HELP), EXIT.usage);
    if (command === '--help' || command === '-h' || command === 'help') return (process.stdout.write(HELP), EXIT.ok);
    if (command === '--version' || command === '-V') return (process.stdout.write(`${packageVersion()}\n`), EXIT.ok);
    if (command === 'dump') return await dump(rest);
    if (command === 'encode') return await encode(rest);
    if (command === 'sql') return await sqlCommand(rest, COMMAND_HELP.sql);
    if (command === 'flashback') return await flashbackCommand(rest, COMMAND_HELP.sql);
    if (command === 'serve') return await serveCommand(rest, COMMAND_HELP.serve);
    if (command === 'stream') return await streamCommand(rest, COMMAND_HELP.stream);
    if (command === 'completion') {
      const commands = { dump: DUMP_OPTIONS, encode: ENCODE_OPTIONS, sql: SQL_OPTIONS, flashback: FLASHBACK_OPTIONS, serve: SERVE_OPTIONS, stream: STREAM_OPTIONS };
      return (process.stdout.write(completionScript(commands)), EXIT.ok);
    }
    throw new UsageError(`unknown command '${command}'`);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`binlog: ${(e as Error).message}\nRun 'binlog --help' for usage.\n`);
      return EXIT.usage;
    }
    throw e;
  }
}

const DUMP_OPTIONS = {
  'no-verify-checksum': { type: 'boolean' },
  'on-error': { type: 'string', default: 'stop' },
  ...FILTER_OPTIONS,
  follow: { type: 'boolean' },
  progress: { type: 'boolean' },
  payloads: { type: 'string', default: 'nested' },
  format: { type: 'string', default: 'jsonl' },
  pretty: { type: 'boolean' },
  ...TABLE_DEF_OPTIONS,
  ...REMOTE_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

async function dump(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), DUMP_OPTIONS);
  if (values.help) {
    process.stdout.write(COMMAND_HELP.dump);
    return EXIT.ok;
  }
  const remote = values['read-from-remote-server'] === true;
  if (positionals.length === 0 && !remote) throw new UsageError('dump needs a FILE (or - for standard input)');
  if (values['on-error'] !== 'stop' && values['on-error'] !== 'skip') throw new UsageError('--on-error is stop or skip');
  if (values.follow && positionals[0] === '-') throw new UsageError('--follow reads a FILE the server is writing, not standard input');
  if (values.follow && positionals.length !== 1) throw new UsageError('--follow reads one FILE');
  if (values.payloads !== 'nested' && values.payloads !== 'flat') throw new UsageError('--payloads is nested or flat');
  const form = outputForm(values);
  const filter = eventFilter(values, positionals);
  const selection = new EventSelection(filter);
  let skipped = 0;
  let undecoded = 0;
  // Rows are written as JSON from their bytes (DumpLines), none decoded into a row object first.
  const options: ReadOptions = {
    rows: 'json',
    verifyChecksum: !values['no-verify-checksum'],
    tableDefinitions: tableDefinitions(values),
    filter: selection,
    payloads: values.payloads,
    onError:
      values['on-error'] === 'skip'
        ? (e) => {
            skipped++;
            process.stderr.write(`binlog: skipped: ${e.message}\n`);
            return 'skip';
          }
        : undefined,
  };
  if (remote) {
    // --start-position is where the dump starts: no filter.
    const selection = new EventSelection({ ...filter, startPosition: undefined });
    return remoteDump(values, positionals, filter.startPosition, { ...options, filter: selection }, () => skipped, form);
  }
  const out = new DumpLines(process.stdout, form);
  let read = 0; // bytes of the files read to their end
  let written = 0;
  const progress = showsProgress(values.progress)
    ? new Progress(process.stderr, () => ({ bytes: read + selection.position, events: selection.read, written }), values.follow ? undefined : inputSize(positionals))
    : undefined;
  const finish = async (code: number) => {
    await out.end();
    progress?.done();
    return code;
  };
  for (const file of positionals) {
    try {
      for await (const event of values.follow ? followBinlog(file, options) : readBinlog(file === '-' ? process.stdin : file, options)) {
        if (keptImages(await out.event(event))) undecoded++;
        written++;
        if (values.follow) await out.flush();
      }
    } catch (e) {
      return finish(reportFailure(e, file));
    }
    if (selection.stopped) break;
    read += selection.position;
    selection.position = 0;
  }
  const code = await finish(outcome(skipped, undecoded));
  return code === EXIT.ok && sayUnmatched(selection) ? EXIT.unmatched : code;
}

/** --read-from-remote-server: the server's binlog as JSON lines, or (--raw) as its files. */
async function remoteDump(values: RemoteValues & { raw?: boolean; 'result-file'?: string }, positionals: string[], start: number | undefined, read: ReadOptions, skipped: () => number, form: OutputForm): Promise<number> {
  if (positionals.length > 1) throw new UsageError('--read-from-remote-server reads one LOGNAME');
  if (values.raw && values['result-file'] === undefined) throw new UsageError('--raw needs --result-file=PREFIX, what the files written are named after');
  let live: LiveOptions;
  try {
    live = await remoteOptions(values, positionals[0], start, (m) => new UsageError(m));
    if (values.raw) return await archive(live, values['result-file']!);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    return reportFailure(e, positionals[0] ?? 'the server');
  }
  const out = new DumpLines(process.stdout, form);
  let undecoded = 0;
  try {
    for await (const event of connectBinlog({ ...read, ...live })) {
      if (keptImages(await out.event(event))) undecoded++;
      // Waiting for new events: what came so far is out.
      if (live.until === 'never') await out.flush();
    }
  } catch (e) {
    await out.end();
    return reportFailure(e, positionals[0] ?? 'the server');
  }
  await out.end();
  return outcome(skipped(), undecoded);
}

/** Whether a row event, or one inside a TRANSACTION_PAYLOAD, kept its row images as bytes (rowImagesUndecoded says why). */
function keptImages(e: BinlogEvent): boolean {
  return (e as { rowImagesUndecoded?: string }).rowImagesUndecoded !== undefined || ('events' in e && Array.isArray(e.events) && (e.events as BinlogEvent[]).some(keptImages));
}

/** A dump's status once every event is out: events skipped (4), else row images kept as bytes (7), said on stderr. */
function outcome(skipped: number, undecoded: number): number {
  if (undecoded) process.stderr.write(`binlog: ${undecoded} row event${undecoded === 1 ? '' : 's'} kept their row images as bytes, not split into rows (rowImagesUndecoded says why).\n`);
  return skipped ? EXIT.skipped : undecoded ? EXIT.undecoded : EXIT.ok;
}

/** --raw: the server's files written byte for byte, each as the prefix and its name. */
async function archive(live: LiveOptions, prefix: string): Promise<number> {
  const files = new RawArchive(prefix);
  try {
    for await (const frame of connectBinlogFrames(live)) await files.add(frame);
  } catch (e) {
    await files.abandon();
    throw e;
  }
  await files.close();
  return EXIT.ok;
}

/** The progress line is for people: on when stderr is a terminal and stdout is not, or when asked for. */
function showsProgress(asked: boolean | undefined): boolean {
  return asked ?? (process.stderr.isTTY === true && !process.stdout.isTTY);
}

/** The bytes of the inputs, when they are all files (standard input too, when it is one). */
function inputSize(files: string[]): number | undefined {
  let total = 0;
  for (const f of files) {
    try {
      const st = f === '-' ? fstatSync(0) : statSync(f);
      if (!st.isFile()) return undefined;
      total += st.size;
    } catch {
      return undefined; // reading it will say why
    }
  }
  return total;
}

const ENCODE_OPTIONS = { output: { type: 'string', short: 'o' }, 'assume-format': { type: 'boolean' }, ...TABLE_DEF_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

async function encode(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, ENCODE_OPTIONS);
  if (values.help) {
    process.stdout.write(COMMAND_HELP.encode);
    return EXIT.ok;
  }
  if (!values.output) throw new UsageError('encode needs -o OUT, the binlog file to write (- for standard output)');
  if (positionals.length > 1) throw new UsageError('encode reads one input (a FILE, or - for standard input)');
  const input = positionals[0] ?? '-';
  const out = openOutput(values.output);
  const encoder = new BinlogEncoder({ tableDefinitions: tableDefinitions(values), assumeFormat: values['assume-format'] });
  const read = { lineNo: 0 };
  try {
    for await (const { event, source } of jsonLineEvents(input, read)) for (const bytes of encoder.push(event, source)) await write(out.stream, bytes);
    for (const bytes of encoder.end()) await write(out.stream, bytes);
    await out.commit();
    if (encoder.assumedFormat) process.stderr.write(`binlog: ${input}: the first event is no FORMAT_DESCRIPTION_EVENT: the events were written as a reader takes a binlog without one (${ASSUMED_FORMAT})\n`);
    return EXIT.ok;
  } catch (e) {
    out.abandon();
    if (e instanceof BinlogError) {
      const where = e.schemaPath?.startsWith('line ') ? e.schemaPath : `line ${read.lineNo}: ${e.schemaPath ?? ''}`;
      process.stderr.write(`binlog: ${input}: ${where}: ${e.problem}\n`);
      return EXIT.badInput;
    }
    return reportFailure(e, input);
  }
}

/** The version of package.json, found above this file (bin/ in the sources, dist/bin/ built). */
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

function outputForm(values: { format?: string; pretty?: boolean; follow?: boolean; 'stop-never'?: boolean }): OutputForm {
  if (values.format !== 'jsonl' && values.format !== 'json') throw new UsageError('--format is jsonl (one JSON object per line, the default) or json (one array)');
  if (values.pretty && values.format !== 'json') throw new UsageError('--pretty is for --format=json: JSON Lines hold each event on one line');
  const endless = values.follow ? '--follow' : values['stop-never'] ? '--stop-never' : undefined;
  if (values.format === 'json' && endless) throw new UsageError(`--format=json writes one array, which ${endless} would never close: use JSON Lines`);
  return { array: values.format === 'json', pretty: values.pretty === true };
}

