/**
 * `binlog dump` writes each event of binlog files, of standard input or (-R) of a running server's binlog
 * as a line of JSON. The replication client is loaded only for -R.
 */
import { fstatSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { LiveOptions } from '../replication/client.js';
import type { DumpEvent } from '../runtime/events/event-dump-json.js';
import { EventSelection } from '../runtime/io/filter.js';
import type { SchemaHistory } from '../runtime/tables/history.js';
import { followBinlog } from '../runtime/io/follow.js';
import { readBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { DUMP_ROWS, type DumpRowsOption } from '../runtime/rows/row-tables.js';
import { DumpLines, type OutputForm } from './dump-lines.js';
import { EncryptedEvents } from './encrypted.js';
import { mysqlHeaderLine } from './mysql-header.js';
import type { MysqlHeaderFields } from '../runtime/io/mysql-encryption.js';
import {
  encryptionKeys,
  eventFilter,
  keyringOption,
  parseCommand,
  reportFailure,
  sayUnmatched,
  schemaHistory,
} from './options.js';
import { Progress, showsProgress } from './progress.js';
import { RawArchive, remoteOptions, type RemoteValues } from './remote.js';
import type { SnapshotValues } from './snapshot.js';
import { withPasswordPrompt } from './secrets.js';
import { DUMP_OPTIONS, EXIT, isWord, UsageError } from './usage.js';

/** Runs `binlog dump [options] FILE...` (or `-`, or -R LOGNAME) and returns the exit status. */
export async function dumpCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), DUMP_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  const remote = values['read-from-remote-server'] === true;
  if (positionals.length === 0 && !remote) throw new UsageError('dump needs a FILE (or - for standard input)');
  if (!isWord('on-error', values['on-error'])) throw new UsageError('--on-error is stop or skip');
  if (values.follow && positionals[0] === '-')
    throw new UsageError('--follow reads a FILE the server is writing, not standard input');
  if (values.follow && positionals.length !== 1) throw new UsageError('--follow reads one FILE');
  if (!isWord('payloads', values.payloads)) throw new UsageError('--payloads is nested or flat');
  const form = outputForm(values);
  const filter = eventFilter(values, positionals);
  const selection = new EventSelection(filter);
  let skipped = 0;
  let undecoded = 0;
  const encrypted = new EncryptedEvents();
  const history = schemaHistory(values);
  // A MySQL encrypted file's header, read before its first event and written as a line before it.
  let mysqlHeader: MysqlHeaderFields | undefined;
  // Rows are written as JSON from their bytes (DumpLines), none decoded into a row object first.
  const options: ReadOptions & DumpRowsOption = {
    [DUMP_ROWS]: true,
    verifyChecksum: !values['no-verify-checksum'],
    schemaHistory: history,
    keys: encryptionKeys(values),
    keyring: keyringOption(values),
    onMysqlHeader: (fields) => (mysqlHeader = fields),
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
    // The server starts sending at --start-position, so the filter does not apply it again.
    const selection = new EventSelection({ ...filter, startPosition: undefined });
    const read = { ...options, filter: selection };
    return remoteDump(values, positionals, filter.startPosition, read, () => skipped, form, encrypted, history);
  }
  const out = new DumpLines(process.stdout, form);
  let read = 0; // bytes of the files read to their end
  let written = 0;
  const progress = showsProgress(values.progress)
    ? new Progress(
        process.stderr,
        () => ({ bytes: read + selection.position, events: selection.read, written }),
        values.follow ? undefined : inputSize(positionals),
      )
    : undefined;
  const finish = async (code: number) => {
    await out.end();
    progress?.done();
    return code;
  };
  for (const file of positionals) {
    try {
      for await (const event of values.follow
        ? followBinlog(file, options)
        : readBinlog(file === '-' ? process.stdin : file, options)) {
        if (mysqlHeader) await out.line(mysqlHeaderLine(mysqlHeader, file === '-' ? undefined : basename(file)));
        mysqlHeader = undefined;
        if (keptImages(await out.event(event))) undecoded++;
        encrypted.see(event);
        written++;
        if (values.follow) await out.flush();
      }
    } catch (e) {
      // The events before the fault are written out before the fault is said, whatever the fault is.
      await finish(EXIT.ok);
      return reportFailure(e, file);
    }
    if (selection.stopped) break;
    read += selection.position;
    selection.position = 0;
  }
  const code = await finish(outcome(skipped, undecoded, encrypted.count + history.contradictions));
  return code === EXIT.ok && sayUnmatched(selection) ? EXIT.unmatched : code;
}

/** Dumps the server's binlog (--read-from-remote-server) as JSON lines, or (--raw) as its files. */
async function remoteDump(
  values: RemoteValues & SnapshotValues & { raw?: boolean; 'result-file'?: string; progress?: boolean },
  positionals: string[],
  start: number | undefined,
  read: ReadOptions,
  skipped: () => number,
  form: OutputForm,
  encrypted: EncryptedEvents,
  history: SchemaHistory,
): Promise<number> {
  if (positionals.length > 1) throw new UsageError('--read-from-remote-server reads one LOGNAME');
  // The snapshot's code loads with -R only, so that a dump of files starts without it.
  const { snapshotLines, snapshotRequest, snapshotThenBinlog } = await import('./snapshot.js');
  if (values.raw && values['result-file'] === undefined)
    throw new UsageError('--raw needs --result-file=PREFIX, what the files written are named after');
  const snapshot = snapshotRequest(values, positionals[0]);
  if (snapshot && values.raw) throw new UsageError('--snapshot writes rows as JSON lines, which --raw does not');
  let live: LiveOptions;
  try {
    live = await remoteOptions(values, positionals[0], start, (m) => new UsageError(m), !snapshot);
    if (values.raw) return await archive(live, values['result-file']!);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    return reportFailure(e, positionals[0] ?? 'the server');
  }
  const { connectBinlog } = await import('../replication/client.js');
  const out = new DumpLines(process.stdout, form);
  let undecoded = 0;
  try {
    if (snapshot) {
      const progress = showsProgress(values.progress);
      live = (await snapshotThenBinlog(live, values, snapshot, snapshotLines(out), history, progress)).live;
    }
    for await (const event of connectBinlog({ ...read, ...live })) {
      if (keptImages(await out.event(event))) undecoded++;
      encrypted.see(event);
      // The dump may now wait for new events, so what came so far is written out first.
      if (live.until === 'never') await out.flush();
    }
  } catch (e) {
    await out.end();
    return reportFailure(e, positionals[0] ?? 'the server');
  }
  await out.end();
  return outcome(skipped(), undecoded, encrypted.count + history.contradictions);
}

/**
 * Says whether a row event, or one inside a TRANSACTION_PAYLOAD, kept its row images as bytes
 * (rowImagesUndecoded says why).
 */
function keptImages(e: DumpEvent): boolean {
  const own = 'rowImagesUndecoded' in e && e.rowImagesUndecoded !== undefined;
  return own || (e.events !== undefined && e.events.some(keptImages));
}

/**
 * A dump's status once every event is out: events skipped (4), else row images kept as bytes, encrypted
 * events no key read, or tables whose definition a TABLE_MAP contradicted (7). The row images are said on
 * stderr here; the others were said as they came (EncryptedEvents, the schema history).
 */
function outcome(skipped: number, undecoded: number, unread: number): number {
  if (undecoded)
    process.stderr.write(
      `binlog: ${undecoded} row event${undecoded === 1 ? '' : 's'} kept their row images as bytes, ` +
        `not split into rows (rowImagesUndecoded says why).\n`,
    );
  return skipped ? EXIT.skipped : undecoded || unread ? EXIT.undecoded : EXIT.ok;
}

/** Writes the server's files byte for byte (--raw), each named by the prefix and its own name. */
async function archive(live: LiveOptions, prefix: string): Promise<number> {
  const { connectBinlogFrames } = await import('../replication/client.js');
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

/** Gives the bytes of the inputs when they are all files (standard input too, when it is one). */
function inputSize(files: string[]): number | undefined {
  let total = 0;
  for (const f of files) {
    try {
      const st = f === '-' ? fstatSync(0) : statSync(f);
      if (!st.isFile()) return undefined;
      total += st.size;
    } catch {
      return undefined; // Reading the input will say why it cannot be read.
    }
  }
  return total;
}

function outputForm(values: {
  format?: string;
  pretty?: boolean;
  follow?: boolean;
  'stop-never'?: boolean;
}): OutputForm {
  if (!isWord('format', values.format)) {
    throw new UsageError('--format is jsonl (one JSON object per line, the default) or json (one array)');
  }
  if (values.pretty && values.format !== 'json')
    throw new UsageError('--pretty is for --format=json: JSON Lines hold each event on one line');
  const endless = values.follow ? '--follow' : values['stop-never'] ? '--stop-never' : undefined;
  if (values.format === 'json' && endless)
    throw new UsageError(`--format=json writes one array, which ${endless} would never close: use JSON Lines`);
  return { array: values.format === 'json', pretty: values.pretty === true };
}
