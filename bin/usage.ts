/**
 * What the command line is, with nothing of the runtime: exit statuses, usage errors, and each command's
 * options, so that `binlog --version`, `--help`, `completion` and a usage error load no more than this.
 */

/** The exit statuses (help.ts's EXIT_HELP says what each means). */
export const EXIT = {
  ok: 0,
  badInput: 1,
  usage: 2,
  io: 3,
  skipped: 4,
  unmatched: 5,
  server: 6,
  undecoded: 7,
  internal: 70,
  interrupted: 130,
} as const;

/** A command line that cannot be run: said with a pointer to --help, exit status 2. */
export class UsageError extends Error {}

/** The table definitions (dump, encode, sql, flashback, serve). */
export const TABLE_DEF_OPTIONS = {
  'table-def': { type: 'string', multiple: true },
  'table-defs': { type: 'string' },
  'schema-file': { type: 'string', multiple: true },
} as const;

/** These options give the keys of encrypted binlogs to dump, encode, sql, flashback and serve. */
export const KEY_OPTIONS = {
  'key-file': { type: 'string' },
  'key-file-key': { type: 'string' },
} as const;

/** This option gives the keyring of MySQL 8's encrypted binlogs to dump, sql, flashback and encode. */
export const KEYRING_OPTIONS = { keyring: { type: 'string' } } as const;

/** The dump's filters (their help is dump's). */
export const FILTER_OPTIONS = {
  'start-position': { type: 'string' },
  'stop-position': { type: 'string' },
  'start-datetime': { type: 'string' },
  'stop-datetime': { type: 'string' },
  database: { type: 'string', multiple: true },
  table: { type: 'string', multiple: true },
  'case-insensitive-names': { type: 'boolean' },
  'max-transaction-size': { type: 'string' },
} as const;

/** dump --read-from-remote-server (-R): mariadb-binlog's names, and --raw's archive. */
export const REMOTE_OPTIONS = {
  'read-from-remote-server': { type: 'boolean', short: 'R' },
  host: { type: 'string' },
  port: { type: 'string' },
  socket: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  'password-file': { type: 'string' },
  'server-id': { type: 'string' },
  'start-gtid': { type: 'string' },
  'to-last-log': { type: 'boolean' },
  'stop-never': { type: 'boolean' },
  'heartbeat-period': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'max-allowed-packet': { type: 'string' },
  'server-public-key-path': { type: 'string' },
  'get-server-public-key': { type: 'boolean' },
  'ssl-mode': { type: 'string' },
  'ssl-ca': { type: 'string' },
  'ssl-cert': { type: 'string' },
  'ssl-key': { type: 'string' },
  reconnect: { type: 'boolean' },
  'use-information-schema': { type: 'boolean' },
  'retry-count': { type: 'string' },
  'retry-delay': { type: 'string' },
  'retry-timeout': { type: 'string' },
  raw: { type: 'boolean' },
  'result-file': { type: 'string' },
} as const;

/** --snapshot: the tables first, then the binlog from where they stand (dump -R, sql -R, stream). */
export const SNAPSHOT_OPTIONS = {
  snapshot: { type: 'boolean' },
  'snapshot-chunk': { type: 'string' },
} as const;

/** The values of the options that take one of a few words, which the commands check and completion offers. */
export const OPTION_WORDS = {
  'on-error': ['stop', 'skip'],
  format: ['jsonl', 'json'],
  payloads: ['nested', 'flat'],
} as const;

/** Whether `v` is one of the words an option takes. */
export function isWord<K extends keyof typeof OPTION_WORDS>(
  option: K,
  v: string | undefined,
): v is (typeof OPTION_WORDS)[K][number] {
  return (OPTION_WORDS[option] as readonly string[]).includes(v ?? '');
}

export const DUMP_OPTIONS = {
  'no-verify-checksum': { type: 'boolean' },
  'on-error': { type: 'string', default: 'stop' },
  ...FILTER_OPTIONS,
  follow: { type: 'boolean' },
  progress: { type: 'boolean' },
  payloads: { type: 'string', default: 'nested' },
  format: { type: 'string', default: 'jsonl' },
  pretty: { type: 'boolean' },
  ...TABLE_DEF_OPTIONS,
  ...KEY_OPTIONS,
  ...KEYRING_OPTIONS,
  'schema-history': { type: 'string' },
  ...REMOTE_OPTIONS,
  ...SNAPSHOT_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export const SCHEMA_OPTIONS = {
  at: { type: 'string' },
  'schema-history': { type: 'string' },
  ...TABLE_DEF_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export const ENCODE_OPTIONS = {
  output: { type: 'string', short: 'o' },
  'assume-format': { type: 'boolean' },
  ...TABLE_DEF_OPTIONS,
  ...KEY_OPTIONS,
  ...KEYRING_OPTIONS,
  'encryption-algorithm': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** dump's --read-from-remote-server options, but --raw's: the events come as they do for dump. */
const { raw: _raw, 'result-file': _resultFile, ...LIVE_OPTIONS } = REMOTE_OPTIONS;

const READ_OPTIONS = {
  ...FILTER_OPTIONS,
  ...TABLE_DEF_OPTIONS,
  'schema-history': { type: 'string' },
  ...KEY_OPTIONS,
  ...KEYRING_OPTIONS,
  ...LIVE_OPTIONS,
  'no-verify-checksum': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
export const SQL_OPTIONS = {
  ...READ_OPTIONS,
  ...SNAPSHOT_OPTIONS,
  'no-create-info': { type: 'boolean' },
  flashback: { type: 'boolean' },
  'rows-only': { type: 'boolean' },
  'primary-key-only': { type: 'boolean' },
} as const;
export const FLASHBACK_OPTIONS = { ...READ_OPTIONS, output: { type: 'string', short: 'o' } } as const;

export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  'password-file': { type: 'string' },
  'server-id': { type: 'string' },
  'ssl-cert': { type: 'string' },
  'ssl-key': { type: 'string' },
  follow: { type: 'boolean' },
  'from-jsonl': { type: 'string' },
  'max-allowed-packet': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'wait-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'allow-anonymous': { type: 'boolean' },
  ...TABLE_DEF_OPTIONS,
  ...KEY_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export const STREAM_OPTIONS = {
  ...LIVE_OPTIONS,
  ...TABLE_DEF_OPTIONS,
  'start-position': { type: 'string' },
  to: { type: 'string' },
  stream: { type: 'string' },
  'subject-prefix': { type: 'string' },
  ddl: { type: 'boolean' },
  'in-flight': { type: 'string' },
  'ack-timeout': { type: 'string' },
  replicas: { type: 'string' },
  partitions: { type: 'string' },
  stats: { type: 'string' },
  progress: { type: 'boolean' },
  ...SNAPSHOT_OPTIONS,
  database: { type: 'string', multiple: true },
  table: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;
