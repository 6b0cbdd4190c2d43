/**
 * `binlog dump --read-from-remote-server` (-R): the connection from the options mariadb-binlog names for it
 * (usage.ts's REMOTE_OPTIONS), the password (secrets.ts finds it), and `--raw`'s archive of the
 * server's files.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { EventTypes } from '../generated/events.js';
import { BINLOG_MAGIC } from '../generated/header.js';
import type { LiveFrame } from '../replication/replica-frames.js';
import type { LiveOptions } from '../replication/client.js';
import { givenPassword, type PasswordValues } from './secrets.js';

export interface RemoteValues extends PasswordValues {
  host?: string;
  port?: string;
  socket?: string;
  user?: string;
  'server-id'?: string;
  'start-gtid'?: string;
  'to-last-log'?: boolean;
  'stop-never'?: boolean;
  'heartbeat-period'?: string;
  'connect-timeout'?: string;
  'max-allowed-packet'?: string;
  'server-public-key-path'?: string;
  'get-server-public-key'?: boolean;
  'ssl-mode'?: string;
  'ssl-ca'?: string;
  'ssl-cert'?: string;
  'ssl-key'?: string;
  reconnect?: boolean;
  'use-information-schema'?: boolean;
  'retry-count'?: string;
  'retry-delay'?: string;
  'retry-timeout'?: string;
}

/**
 * The connection and dump the options ask for; a bad value is a usage error (`usage` makes it). Without
 * `startNeeded` (a caller with a start of its own) neither LOGNAME nor --start-gtid is required.
 */
export async function remoteOptions(
  values: RemoteValues,
  logName: string | undefined,
  startPosition: number | undefined,
  usage: (m: string) => Error,
  startNeeded = true,
): Promise<LiveOptions> {
  const number = (v: string | undefined, option: string) => {
    if (v === undefined) return undefined;
    if (!/^\d+(\.\d+)?$/.test(v)) throw usage(`${option} takes a number`);
    return Number(v);
  };
  if (startNeeded && logName === undefined && values['start-gtid'] === undefined)
    throw usage('--read-from-remote-server needs LOGNAME, the binlog file to read (or --start-gtid)');
  if (values['to-last-log'] && values['stop-never']) throw usage('--to-last-log and --stop-never exclude each other');
  const retries = ['retry-count', 'retry-delay', 'retry-timeout'] as const;
  const retry = retries.find((r) => values[r] !== undefined);
  if (retry && !values.reconnect) throw usage(`--${retry} is for --reconnect`);
  const password = await givenPassword(values);
  return {
    host: values.host,
    port: number(values.port, '--port'),
    socketPath: values.socket,
    user: values.user ?? process.env.USER,
    password,
    serverId: number(values['server-id'], '--server-id'),
    heartbeatPeriod: number(values['heartbeat-period'], '--heartbeat-period'),
    connectTimeout: seconds(number(values['connect-timeout'], '--connect-timeout')),
    maxAllowedPacket: bytes(values['max-allowed-packet'], usage),
    serverPublicKey: await publicKey(values['server-public-key-path'], usage),
    getServerPublicKey: values['get-server-public-key'],
    ssl: await tls(values, usage),
    columnNames: values['use-information-schema'] ? 'information_schema' : undefined,
    reconnect: values.reconnect && {
      retries: number(values['retry-count'], '--retry-count'),
      delay: number(values['retry-delay'], '--retry-delay'),
      giveUpAfter: number(values['retry-timeout'], '--retry-timeout'),
    },
    ...(values['start-gtid'] !== undefined
      ? { gtid: values['start-gtid'] }
      : { file: logName, position: startPosition }),
    // As mariadb-binlog: the named log only, unless told to go on to the last one, or never stop.
    until: values['stop-never'] ? 'never' : values['to-last-log'] ? 'logs' : 'file',
  };
}

/** Seconds as milliseconds, or undefined. */
function seconds(s: number | undefined): number | undefined {
  return s === undefined ? undefined : s * 1000;
}

/** The --ssl-mode values: the mariadb client's but PREFERRED, which would take a plain connection unseen. */
const SSL_MODES = ['DISABLED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'];

/**
 * TLS as --ssl-mode asks (by default VERIFY_CA when --ssl-ca is given, REQUIRED with only --ssl-cert or
 * --ssl-key, else DISABLED), with the files' contents: REQUIRED encrypts without checking the server's
 * certificate, VERIFY_CA checks it was signed by --ssl-ca's CA (or the system's), VERIFY_IDENTITY also
 * that it names the host.
 */
async function tls(values: RemoteValues, usage: (m: string) => Error): Promise<LiveOptions['ssl']> {
  const given = values['ssl-ca'] ? 'VERIFY_CA' : values['ssl-cert'] || values['ssl-key'] ? 'REQUIRED' : 'DISABLED';
  const mode = (values['ssl-mode'] ?? given).toUpperCase();
  if (mode === 'PREFERRED') throw usage('--ssl-mode=PREFERRED would fall back to plain TCP unseen: use REQUIRED');
  if (!SSL_MODES.includes(mode)) throw usage(`--ssl-mode is one of ${SSL_MODES.join(', ')}`);
  if (mode === 'DISABLED') {
    if (given !== 'DISABLED') throw usage('--ssl-mode=DISABLED leaves --ssl-ca, --ssl-cert and --ssl-key unused');
    return undefined;
  }
  const file = async (option: 'ssl-ca' | 'ssl-cert' | 'ssl-key') => {
    const path = values[option];
    if (path === undefined) return undefined;
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      throw usage(`--${option}: cannot read ${path}: ${(e as Error).message}`);
    }
  };
  const [ca, cert, key] = [await file('ssl-ca'), await file('ssl-cert'), await file('ssl-key')];
  const verify = mode !== 'REQUIRED';
  // VERIFY_CA trusts any name in a certificate its CA signed.
  const anyName = mode === 'VERIFY_CA' ? { checkServerIdentity: () => undefined } : {};
  return { ca, cert, key, rejectUnauthorized: verify, ...anyName };
}

/** --server-public-key-path's key, read as it is (PEM). */
async function publicKey(path: string | undefined, usage: (m: string) => Error): Promise<string | undefined> {
  if (path === undefined) return undefined;
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw usage(`--server-public-key-path: cannot read ${path}: ${(e as Error).message}`);
  }
}

const UNITS: Record<string, number> = { '': 1, K: 1 << 10, M: 1 << 20, G: 1 << 30 };

/** --max-allowed-packet's bytes: a number, or one with K, M or G after it, as the mariadb client takes it. */
function bytes(v: string | undefined, usage: (m: string) => Error): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)([KMG]?)$/i.exec(v);
  if (!m || Number(m[1]) === 0)
    throw usage('--max-allowed-packet takes a number of bytes, with K, M or G after it or not');
  return Number(m[1]) * UNITS[m[2]!.toUpperCase()]!;
}

/** What a file being archived is named until it is whole: PREFIX + its name + this. */
const PARTIAL_SUFFIX = '.partial';

/**
 * `--raw`: each of the server's files written as `PREFIX` + its name, byte for byte, events whole. A
 * file is written as that name + PARTIAL_SUFFIX and takes its name once whole: at its ROTATE, when the
 * dump goes on into another file (a restarted server's file ends with its STOP), or when the dump ends
 * at the end of the server's binlog. A dump that fails leaves the file it was in as `.partial`, holding
 * the whole events before the failure only. A dump that starts past a file's first event writes the
 * magic and the FORMAT_DESCRIPTION the server resends first, so that the file still reads.
 */
export class RawArchive {
  private out: WriteStream | undefined;
  private file: string | undefined;
  /** The FORMAT_DESCRIPTION resent before a start past it: the first event of a file begun mid-way. */
  private resentFormat: Uint8Array | undefined;
  /** The files written (their names once whole), in order. */
  readonly files: string[] = [];

  constructor(private readonly prefix: string) {}

  async add(frame: LiveFrame): Promise<void> {
    if (frame.notInFile) {
      if (frame.typeCode === EventTypes.FORMAT_DESCRIPTION_EVENT) this.resentFormat = frame.bytes;
      return;
    }
    if (frame.file !== this.file) await this.open(frame);
    await this.write(frame.bytes);
    if (frame.typeCode === EventTypes.ROTATE_EVENT) await this.complete();
  }

  private async open(frame: LiveFrame): Promise<void> {
    await this.complete();
    const path = this.prefix + frame.file;
    this.out = createWriteStream(path + PARTIAL_SUFFIX);
    this.file = frame.file;
    this.files.push(path);
    await this.write(BINLOG_MAGIC);
    if (frame.pos > BINLOG_MAGIC.length && this.resentFormat) await this.write(this.resentFormat);
  }

  private async write(bytes: Uint8Array): Promise<void> {
    if (!this.out!.write(bytes)) await once(this.out!, 'drain');
  }

  /** The dump ended where the server's binlog does: the file in progress is whole, as far as the server wrote it. */
  async close(): Promise<void> {
    await this.complete();
  }

  /** The dump failed: the file in progress is closed, and keeps its `.partial` name. */
  async abandon(): Promise<void> {
    await this.flush();
  }

  private async complete(): Promise<void> {
    const path = this.out && this.files.at(-1)!;
    await this.flush();
    if (path) await rename(path + PARTIAL_SUFFIX, path);
  }

  private async flush(): Promise<void> {
    const out = this.out;
    this.out = undefined;
    if (out) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  }
}
