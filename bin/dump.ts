/**
 * `binlog dump`: each event of binlog files, standard input or (-R) a running server's binlog as a line of
 * JSON. The replication client is loaded only for -R.
 */
import { fstatSync, statSync } from 'node:fs';
import type { LiveOptions } from '../replication/client.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { EventSelection } from '../runtime/io/filter.js';
import type { SchemaHistory } from '../runtime/tables/history.js';
import { followBinlog } from '../runtime/io/follow.js';
import { readBinlog, type ReadOptions } from '../runtime/io/stream.js';
import { DumpLines, type OutputForm } from './dump-lines.js';
import { eventFilter, parseCommand, reportFailure, sayUnmatched, schemaHistory } from './options.js';
import { Progress } from './progress.js';
import { RawArchive, remoteOptions, type RemoteValues } from './remote.js';
import { withPasswordPrompt } from './secrets.js';
import { DUMP_OPTIONS, EXIT, UsageError } from './usage.js';

/** `binlog dump [options] FILE...` (or `-`, or -R LOGNAME); the exit status. */
export async function dumpCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(withPasswordPrompt(args), DUMP_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
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
  const history = schemaHistory(values);
  // Rows are written as JSON from their bytes (DumpLines), none decoded into a row object first.
  const options: ReadOptions = {
    rows: 'json',
    verifyChecksum: !values['no-verify-checksum'],
    schemaHistory: history,
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
    return remoteDump(values, positionals, filter.startPosition, { ...options, filter: selection }, () => skipped, form, history);
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
      // The events before the fault are written out before the fault is said, whatever the fault is.
      await finish(EXIT.ok);
      return reportFailure(e, file);
    }
    if (selection.stopped) break;
    read += selection.position;
    selection.position = 0;
  }
  const code = await finish(outcome(skipped, undecoded, history.contradictions));
  return code === EXIT.ok && sayUnmatched(selection) ? EXIT.unmatched : code;
}

/** --read-from-remote-server: the server's binlog as JSON lines, or (--raw) as its files. */
async function remoteDump(values: RemoteValues & { raw?: boolean; 'result-file'?: string }, positionals: string[], start: number | undefined, read: ReadOptions, skipped: () => number, form: OutputForm, history: SchemaHistory): Promise<number> {
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
  const { connectBinlog } = await import('../replication/client.js');
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
  return outcome(skipped(), undecoded, history.contradictions);
}

/** Whether a row event, or one inside a TRANSACTION_PAYLOAD, kept its row images as bytes (rowImagesUndecoded says why). */
function keptImages(e: BinlogEvent): boolean {
  return (e as { rowImagesUndecoded?: string }).rowImagesUndecoded !== undefined || ('events' in e && Array.isArray(e.events) && (e.events as BinlogEvent[]).some(keptImages));
}

/**
 * A dump's status once every event is out: events skipped (4), else row images kept as bytes or tables
 * whose definition a TABLE_MAP contradicted (7, each said on stderr).
 */
function outcome(skipped: number, undecoded: number, contradicted: number): number {
  if (undecoded) process.stderr.write(`binlog: ${undecoded} row event${undecoded === 1 ? '' : 's'} kept their row images as bytes, not split into rows (rowImagesUndecoded says why).\n`);
  return skipped ? EXIT.skipped : undecoded || contradicted ? EXIT.undecoded : EXIT.ok;
}

/** --raw: the server's files written byte for byte, each as the prefix and its name. */
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

function outputForm(values: { format?: string; pretty?: boolean; follow?: boolean; 'stop-never'?: boolean }): OutputForm {
  if (values.format !== 'jsonl' && values.format !== 'json') throw new UsageError('--format is jsonl (one JSON object per line, the default) or json (one array)');
  if (values.pretty && values.format !== 'json') throw new UsageError('--pretty is for --format=json: JSON Lines hold each event on one line');
  const endless = values.follow ? '--follow' : values['stop-never'] ? '--stop-never' : undefined;
  if (values.format === 'json' && endless) throw new UsageError(`--format=json writes one array, which ${endless} would never close: use JSON Lines`);
  return { array: values.format === 'json', pretty: values.pretty === true };
}

