/** `binlog encode`: the binlog that JSON Lines in dump's format describe. */
import { BinlogError } from '../runtime/core/errors.js';
import { ASSUMED_FORMAT, BinlogEncoder } from '../runtime/events/binlog-encoder.js';
import {
  encryptionOptions,
  jsonLineEvents,
  openOutput,
  parseCommand,
  reportFailure,
  schemaHistory,
  write,
} from './options.js';
import { ENCODE_OPTIONS, EXIT, UsageError } from './usage.js';

/** `binlog encode [FILE | -] -o OUT`; the exit status. */
export async function encodeCommand(args: string[], help: string): Promise<number> {
  const { values, positionals } = parseCommand(args, ENCODE_OPTIONS);
  if (values.help) {
    process.stdout.write(help);
    return EXIT.ok;
  }
  if (!values.output) throw new UsageError('encode needs -o OUT, the binlog file to write (- for standard output)');
  if (positionals.length > 1) throw new UsageError('encode reads one input (a FILE, or - for standard input)');
  const input = positionals[0] ?? '-';
  const encryption = encryptionOptions(values);
  const out = openOutput(values.output);
  const encoder = new BinlogEncoder({
    schemaHistory: schemaHistory(values),
    assumeFormat: values['assume-format'],
    encryption,
  });
  const read = { lineNo: 0 };
  try {
    for await (const { event, source } of jsonLineEvents(input, read))
      for (const bytes of encoder.push(event, source)) await write(out.stream, bytes);
    for (const bytes of encoder.end()) await write(out.stream, bytes);
    await out.commit();
    if (encoder.assumedFormat)
      process.stderr.write(
        `binlog: ${input}: the first event is no FORMAT_DESCRIPTION_EVENT: the events were written as a reader takes ` +
          `a binlog without one (${ASSUMED_FORMAT})\n`,
      );
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
