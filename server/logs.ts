/**
 * The binlogs a server serves, as byte stores a dump reads from any offset: files on disk (which may
 * grow, with `follow`: the server writing them is still running) or binlogs encoded in memory from
 * events (BinlogEncoder, the `encode` command's writer), which grow as the events arrive.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { BINLOG_MAGIC } from '../generated/header.js';
import { BinlogEncoder, type EncodeOptions } from '../runtime/events/binlog-encoder.js';
import type { BinlogEventInput } from '../runtime/events/event-codec.js';
import type { EncryptionKeys } from '../runtime/events/encryption.js';

/** One binlog as a dump reads it. */
export interface ServedLog {
  /** Its base name, as replicas ask for it (COM_BINLOG_DUMP's file). */
  readonly name: string;
  /** Its bytes now. */
  size(): Promise<number>;
  /** Up to `length` bytes from `offset` (fewer at the end), in a buffer of their own. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** The keys its events are decrypted with, when it is a MariaDB encrypt_binlog file: a dump sends them in clear. */
  readonly keys?: EncryptionKeys;
}

/** The binlogs served, oldest first; more may come (a followed folder, events still arriving). */
export interface ServedLogs {
  list(): Promise<ServedLog[]>;
  /** Whether the binlogs may grow, or more come, while served (a dump at their end then looks for more). */
  readonly growing: boolean;
  close(): Promise<void>;
}

/** A binlog file on disk, opened for each read (a followed file grows; a rotated one may be removed). */
class FileLog implements ServedLog {
  readonly name: string;
  constructor(
    private readonly path: string,
    readonly keys?: EncryptionKeys,
  ) {
    this.name = basename(path);
  }

  async size(): Promise<number> {
    return (await stat(this.path)).size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const handle = await open(this.path, 'r');
    try {
      const buf = new Uint8Array(length);
      const { bytesRead } = await handle.read(buf, 0, length, offset);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }
}

/**
 * Files and folders given on the command line: a folder serves its binlog files, those its index file
 * (`*.index`, a server's list) names when there is one, else every file that starts with the magic,
 * in name order. Listed again on each call, so that with `follow` a new file in a folder is served.
 */
export function fileLogs(paths: string[], follow: boolean, keys?: EncryptionKeys): ServedLogs {
  return {
    growing: follow,
    async list() {
      const out: ServedLog[] = [];
      for (const p of paths) {
        if ((await stat(p)).isDirectory()) out.push(...(await folderLogs(p)).map((f) => new FileLog(f, keys)));
        else out.push(new FileLog(p, keys));
      }
      return out;
    },
    close: async () => {},
  };
}

async function folderLogs(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).sort();
  const index = names.find((n) => n.endsWith('.index'));
  if (index) {
    const text = new TextDecoder().decode(await new FileLog(join(dir, index)).read(0, 1 << 20));
    return text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => join(dir, basename(l)));
  }
  const out: string[] = [];
  for (const n of names) if (await startsWithMagic(join(dir, n))) out.push(join(dir, n));
  return out;
}

async function startsWithMagic(path: string): Promise<boolean> {
  if (!(await stat(path)).isFile()) return false;
  const head = await new FileLog(path).read(0, BINLOG_MAGIC.length);
  return head.length === BINLOG_MAGIC.length && BINLOG_MAGIC.every((b, i) => head[i] === b);
}

/** A binlog being written in memory: its encoded pieces, and where each starts. */
class MemoryLog implements ServedLog {
  private readonly parts: Uint8Array[] = [];
  private readonly starts: number[] = [];
  private length = 0;
  constructor(readonly name: string) {}

  append(b: Uint8Array): void {
    this.parts.push(b);
    this.starts.push(this.length);
    this.length += b.length;
  }

  async size(): Promise<number> {
    return this.length;
  }

  /** The bytes asked for, copied from the pieces that hold them (found by bisection). */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(offset + length, this.length);
    if (offset >= end) return new Uint8Array(0);
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const out = new Uint8Array(end - offset);
    for (let k = lo, at = offset; at < end; k++) {
      const part = this.parts[k]!.subarray(at - this.starts[k]!, end - this.starts[k]!);
      out.set(part, at - offset);
      at += part.length;
    }
    return out;
  }
}

/** The name a binlog made of events gets when they do not say it (their `file`). */
export const DEFAULT_LOG_NAME = 'binlog.000001';

/**
 * Binlogs encoded from events as they arrive (dump-format JSON read back, or a BinlogWriter's): each
 * event written where this binlog puts it, its log_pos that place (a replica's position is an offset in
 * the served file), and a ROTATE starting the binlog it names. The first binlog is the first event's
 * `file`, or DEFAULT_LOG_NAME. A failure of the events (bad JSON, an event the encoder refuses) is
 * reported to `failed` and ends the binlogs there.
 */
export function eventLogs(
  events: AsyncIterable<BinlogEventInput>,
  options: EncodeOptions,
  failed: (e: unknown) => void,
): ServedLogs {
  const logs: MemoryLog[] = [];
  let stopped = false;
  let ended = false;
  void (async () => {
    let encoder: BinlogEncoder | undefined;
    let log: MemoryLog | undefined;
    // The binlog a ROTATE names, begun when an event comes for it (until then a dump waits at the ROTATE).
    let next: string | undefined;
    for await (const e of events) {
      if (stopped) return;
      if (e.notInFile !== undefined) continue;
      if (!log) logs.push((log = new MemoryLog(next ?? e.file ?? DEFAULT_LOG_NAME)));
      encoder ??= new BinlogEncoder(options);
      for (const b of encoder.push({ ...e, header: { ...e.header, logPos: null } })) log.append(b);
      if (e.type === 'ROTATE_EVENT') {
        for (const b of encoder.end()) log.append(b);
        const named = (e as { nextFile?: unknown }).nextFile;
        log = undefined;
        encoder = undefined;
        next = typeof named === 'string' ? named : undefined;
      }
    }
    if (encoder && log) for (const b of encoder.end()) log.append(b);
  })()
    .catch(failed)
    .finally(() => (ended = true));
  return {
    list: async () => [...logs],
    get growing() {
      return !ended;
    },
    close: async () => {
      // Events still to come (a pipe) are left unread; the encoding stops at the next.
      stopped = true;
    },
  };
}
