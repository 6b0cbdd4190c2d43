/**
 * `binlog schema FILE... [--at=FILE:POS]`: the definitions of the tables at a point of the binlogs, as CREATE
 * TABLE statements. The schema history (runtime/tables/history.ts) is seeded as dump's is (--schema-file,
 * or a kept --schema-history file) and follows the files' DDL up to the position, or to their end.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readBinlog } from '../runtime/io/stream.js';
import { createTableSql, SchemaHistory, type HistoryPosition } from '../runtime/tables/history.js';
import { parseCommand, reportFailure, schemaHistory } from './options.js';
import { EXIT, SCHEMA_OPTIONS, UsageError } from './usage.js';

/** `binlog schema [options] FILE...`; the exit status. */
export async function schemaCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(args, SCHEMA_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  const at = values.at === undefined ? undefined : position(values.at);
  const kept = values['schema-history'];
  if (positionals.length === 0 && kept === undefined) {
    throw new UsageError('schema needs binlog FILEs (or --schema-history=FILE)');
  }
  // A kept history is read, not appended to: the files' DDL (if any files are given) follows it.
  const history = kept === undefined ? schemaHistory(values) : loadHistory(kept, at);
  for (const file of positionals) {
    if (at && at.file !== undefined && basename(file) > at.file) break;
    if (at && at.file === undefined && file !== positionals[0]) break;
    const stop = at && (at.file === undefined || at.file === basename(file)) ? at.pos : Infinity;
    try {
      // The reading stops after the event that ends where the one at POS begins: that one is never read.
      for await (const event of readBinlog(file, { schemaHistory: history })) {
        if (event.pos + event.header.eventSize >= stop) break;
      }
    } catch (e) {
      return reportFailure(e, file);
    }
  }
  const tables = [...history.definitions()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  process.stdout.write(tables.map(([name, def]) => `${createTableSql(name, def)};\n`).join('\n'));
  return EXIT.ok;
}

/** `FILE:POS` or `POS` (in the first file). */
function position(text: string): HistoryPosition {
  const m = /^(?:(.+):)?(\d+)$/.exec(text);
  if (!m) throw new UsageError(`--at takes FILE:POS or POS, not '${text}'`);
  return { ...(m[1] === undefined ? {} : { file: basename(m[1]) }), pos: Number(m[2]) };
}

function loadHistory(file: string, at: HistoryPosition | undefined): SchemaHistory {
  try {
    const report = (line: string) => process.stderr.write(`binlog: ${line}\n`);
    return SchemaHistory.load(readFileSync(file, 'utf8'), at, { report });
  } catch (e) {
    throw new UsageError(`--schema-history ${file}: ${(e as Error).message}`);
  }
}
