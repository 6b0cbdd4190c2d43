/** `binlog encode`: the binlog that JSON Lines in dump's format describe. */
import { BinlogError } from '../runtime/core/errors.js';
import { ASSUMED_FORMAT, BinlogEncoder } from '../runtime/events/binlog-encoder.js';
import {
  encryptionOptions,
  jsonLineEvents,
  keyringOption,
  openOutput,
  parseCommand,
  reportFailure,
  schemaHistory,
  write,
} from './options.js';
import { ENCODE_OPTIONS, EXIT, UsageError } from './usage.js';
import { isMysqlHeaderLine, mysqlHeaderOf } from './mysql-header.js';
import { EncodeError } from '../runtime/core/errors.js';
import { MysqlFileEncryption, mysqlEncryptionOf, type Keyring } from '../runtime/io/mysql-encryption.js';

/**
 * A dump's MYSQL_ENCRYPTION_HEADER line: with a keyring, the file is written encrypted under the header's
 * file password and IV, as the file was; without one it is written in clear, and `ignored` says so.
 */
class MysqlHeaderTaker {
  ignored = false;
  private encryption: MysqlFileEncryption | undefined;
  private written = false;

  constructor(private readonly keyring: Keyring | undefined) {}

  /** Whether the line is the header's (then it is taken, before any event). */
  take(json: unknown, source: string): boolean {
    if (!isMysqlHeaderLine(json)) return false;
    if (this.written || this.encryption || this.ignored) {
      throw new EncodeError('a MYSQL_ENCRYPTION_HEADER line comes before every event, once', `${source}.type`);
    }
    const fields = mysqlHeaderOf(json, source);
    if (this.keyring) this.encryption = new MysqlFileEncryption(mysqlEncryptionOf(fields, this.keyring));
    else this.ignored = true;
    return true;
  }

  /** The bytes of the file for the next plain bytes. */
  output(bytes: Uint8Array): Uint8Array[] {
    if (!this.written && this.keyring && !this.encryption) {
      throw new EncodeError(
        '--keyring writes a MySQL encrypted binlog from the MYSQL_ENCRYPTION_HEADER line that dump --keyring ' +
          'writes before the first event; the input has none',
        '$',
      );
    }
    this.written = true;
    return this.encryption ? this.encryption.push(bytes) : [bytes];
  }
}

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
  const mysql = new MysqlHeaderTaker(keyringOption(values));
  const out = openOutput(values.output);
  const encoder = new BinlogEncoder({
    schemaHistory: schemaHistory(values),
    assumeFormat: values['assume-format'],
    encryption,
  });
  const read = { lineNo: 0 };
  try {
    const take = (json: unknown, source: string) => mysql.take(json, source);
    for await (const { event, source } of jsonLineEvents(input, read, take)) {
      for (const bytes of encoder.push(event, source)) for (const b of mysql.output(bytes)) await write(out.stream, b);
    }
    for (const bytes of encoder.end()) for (const b of mysql.output(bytes)) await write(out.stream, b);
    await out.commit();
    if (mysql.ignored)
      process.stderr.write(
        `binlog: ${input}: the dump is of a MySQL encrypted binlog; without --keyring the file was written in clear\n`,
      );
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
