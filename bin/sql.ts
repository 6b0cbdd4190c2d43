/**
 * `binlog sql` (row events as SQL, or with --flashback the SQL that undoes them) and `binlog flashback`
 * (an undo binlog): tools/ on the command line, over the dump's filters.
 */
import { EventFlags } from '../generated/header.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { EventSelection } from '../runtime/io/filter.js';
import { encodeBinlog, readBinlog, type ReadOptions } from '../runtime/io/stream.js';
import type { SchemaHistory } from '../runtime/tables/history.js';
import { flashback } from '../tools/flashback.js';
import { SqlScript } from '../tools/sql-script.js';
import { EncryptedEvents } from './encrypted.js';
import { showsProgress } from './progress.js';
import { remoteOptions, type RemoteValues } from './remote.js';
import {
  snapshotRequest,
  snapshotSql,
  snapshotThenBinlog,
  type SnapshotRequest,
  type SnapshotValues,
  type SnapshotWriter,
} from './snapshot.js';
import { withPasswordPrompt } from './secrets.js';
import {
  encryptionKeys,
  eventFilter,
  keyringOption,
  openOutput,
  parseCommand,
  reportFailure,
  sayUnmatched,
  schemaHistory,
  write,
} from './options.js';
import { EXIT, FLASHBACK_OPTIONS, SQL_OPTIONS, UsageError } from './usage.js';

type ReadValues = Parameters<typeof eventFilter>[0] &
  Parameters<typeof schemaHistory>[0] &
  Parameters<typeof encryptionKeys>[0] &
  Parameters<typeof keyringOption>[0] &
  RemoteValues &
  SnapshotValues & { 'no-verify-checksum'?: boolean; 'read-from-remote-server'?: boolean };

/**
 * The selected events of the files (or with -R, of the server's binlog), in order, to `each`, read with
 * the schema history `history` (which the reader changes as DDL passes); the exit status (1 for what
 * `each` refuses, 7 when encrypted events could not be read or a definition was contradicted, said on
 * stderr).
 */
async function readSelected(
  files: string[],
  values: ReadValues,
  history: SchemaHistory,
  each: (e: BinlogEvent) => Promise<void>,
  snapshot?: SnapshotFirst,
): Promise<number> {
  const encrypted = new EncryptedEvents();
  const code = await readEach(files, values, history, (e) => (encrypted.see(e), each(e)), snapshot);
  return code === EXIT.ok && encrypted.count + history.contradictions ? EXIT.undecoded : code;
}

async function readEach(
  files: string[],
  values: ReadValues,
  history: SchemaHistory,
  each: (e: BinlogEvent) => Promise<void>,
  snapshot: SnapshotFirst | undefined,
): Promise<number> {
  if (values['read-from-remote-server']) return readRemote(files, values, history, each, snapshot);
  const selection = new EventSelection(eventFilter(values, files));
  const options: ReadOptions = {
    verifyChecksum: !values['no-verify-checksum'],
    schemaHistory: history,
    keys: encryptionKeys(values),
    keyring: keyringOption(values),
    filter: selection,
  };
  for (const file of files) {
    try {
      for await (const event of readBinlog(file === '-' ? process.stdin : file, options)) await each(event);
    } catch (e) {
      return reportFailure(e, file);
    }
    if (selection.stopped) break;
  }
  return sayUnmatched(selection) ? EXIT.unmatched : EXIT.ok;
}

/** What sql -R --snapshot writes before the changes, and the history its definitions seed. */
interface SnapshotFirst {
  request: SnapshotRequest;
  writer: SnapshotWriter;
  history: SchemaHistory;
}

/**
 * -R: the events of the server's binlog from LOGNAME (or --start-gtid) on, as `binlog dump -R` reads them;
 * with `snapshot`, the snapshot first and the binlog from its point.
 */
async function readRemote(
  names: string[],
  values: ReadValues,
  history: SchemaHistory,
  each: (e: BinlogEvent) => Promise<void>,
  snapshot?: SnapshotFirst,
): Promise<number> {
  if (names.length > 1) throw new UsageError('--read-from-remote-server reads one LOGNAME');
  const filter = eventFilter(values, names);
  // --start-position is where the server starts sending: no filter.
  const selection = new EventSelection({ ...filter, startPosition: undefined });
  const source = names[0] ?? 'the server';
  let live: LiveOptions;
  try {
    live = await remoteOptions(values, names[0], filter.startPosition, (m) => new UsageError(m), !snapshot);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    return reportFailure(e, source);
  }
  try {
    if (snapshot) {
      const progress = showsProgress(undefined);
      const { request, writer, history: seeded } = snapshot;
      live = (await snapshotThenBinlog(live, values, request, writer, seeded, progress, selection)).live;
    }
    for await (const event of connectBinlog({
      verifyChecksum: !values['no-verify-checksum'],
      schemaHistory: history,
      filter: selection,
      ...live,
    }))
      await each(event);
  } catch (e) {
    return reportFailure(e, source);
  }
  return sayUnmatched(selection) ? EXIT.unmatched : EXIT.ok;
}

/**
 * A file the server was still writing (or that it did not close) says so in its FORMAT_DESCRIPTION's flags:
 * warned as mariadb-binlog warns, as its undo covers only the changes written so far. The undo binlog
 * itself is whole, and its FORMAT_DESCRIPTION goes without the flag (flashback.ts).
 */
function warnInUse(e: BinlogEvent): void {
  if (e.type !== 'FORMAT_DESCRIPTION_EVENT') return;
  if (((e.header.flags ?? 0) & EventFlags.LOG_EVENT_BINLOG_IN_USE_F) === 0) return;
  const file = e.file ? `${e.file}: ` : '';
  const warning = 'this binlog is either in use or was not closed properly: the undo covers the changes written so far';
  process.stderr.write(`binlog: warning: ${file}${warning}\n`);
}

/** Whether what was read is still written: all of it read, or all but what is said on stderr (exit 5, 7). */
function goesOn(code: number): boolean {
  return code === EXIT.ok || code === EXIT.unmatched || code === EXIT.undecoded;
}

/** FILE... is needed unless -R reads the server. */
function needFiles(command: string, positionals: string[], values: { 'read-from-remote-server'?: boolean }): void {
  if (positionals.length === 0 && !values['read-from-remote-server'])
    throw new UsageError(`${command} needs a FILE (or - for standard input), or -R and LOGNAME`);
}

export async function sqlCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), SQL_OPTIONS);
  if (values.help) return (process.stdout.write(help), EXIT.ok);
  needFiles('sql', positionals, values);
  const request = snapshotRequest(values, positionals[0]);
  if (request && !values['read-from-remote-server']) throw new UsageError('--snapshot reads a running server: give -R');
  if (request && values.flashback) throw new UsageError('--snapshot builds a copy, which --flashback does not undo');
  if (values['no-create-info'] && !request) throw new UsageError('--no-create-info is for --snapshot');
  const history = schemaHistory(values);
  // The script reads each event's tables with the reader's history, as it stands at that event.
  const script = new SqlScript({
    flashback: values.flashback,
    rowsOnly: values['rows-only'],
    primaryKeyOnly: values['primary-key-only'],
    schemaHistory: history,
  });
  const out = (text: string) => (text ? write(process.stdout, Buffer.from(text)) : Promise.resolve());
  const writer = snapshotSql(out, () => script.header(), !values['no-create-info']);
  const snapshot = request && { request, writer, history };
  const code = await readSelected(positionals, values, history, (e) => out(script.push(e)), snapshot);
  if (!goesOn(code)) return code;
  await out(script.end());
  return code;
}

export async function flashbackCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), FLASHBACK_OPTIONS);
  if (values.help) return (process.stdout.write(help), EXIT.ok);
  if (!values.output) throw new UsageError('flashback needs -o UNDO.bin, the undo binlog to write');
  needFiles('flashback', positionals, values);
  const events: BinlogEvent[] = [];
  const history = schemaHistory(values);
  const code = await readSelected(positionals, values, history, async (e) => (warnInUse(e), void events.push(e)));
  if (!goesOn(code)) return code;
  const out = openOutput(values.output);
  try {
    // The undo's rows are encoded against the definitions they were read with: those the history has after the
    // last event, as a DDL among the undone events is refused (flashback.ts) and those before them shaped it.
    const knowledge = { tableDefinitions: Object.fromEntries(history.definitions()) };
    await write(out.stream, encodeBinlog(flashback(events, knowledge), knowledge));
    await out.commit();
  } catch (e) {
    out.abandon();
    return reportFailure(e, positionals.join(', '));
  }
  return code;
}
