/**
 * One measurement, in its own process so that each starts from a cold heap and no JIT state is shared:
 *   tsx bench/measure.ts KIND FILE RUNS
 * prints one JSON line: the seconds of each run and what was counted. KIND is one of
 *   frame   frameBinlog over the file in memory: every event framed and its CRC32 checked, bodies not decoded
 *   decode  iterateBinlog over the file in memory: every event and every row cell decoded
 *   lazy    iterateBinlog with rows: 'lazy' over the file in memory: every event decoded, one cell (the first
 *           column) of each row change read, as a CDC consumer reading a key does
 *   encode  EventEncoder.encode of every decoded event (what encodeBinlog does), timed apart from decoding
 *   stream  readBinlog(FILE) from disk, with the peak RSS
 *   zongji  @vlasky/zongji's parser over the same events as replication packets (see zongji.ts)
 *   (with BENCH_HISTORY=1, decode and lazy read with a schema history, as binlog dump does: the file's DDL
 *   replayed and each TABLE_MAP checked against it; the result says how many tables it held at the end)
 *   text    only the strings of the text cells: each one's UTF-8 bytes through Buffer#toString, as the
 *           decoder makes them (what no decoder in Node can skip: a bound on the full decode)
 */
import { readFileSync } from 'node:fs';
import { type BinlogEvent, EventEncoder } from '../runtime/events/event-codec.js';
import { CellLayouts } from '../generated/columns.js';
import { ColumnType, type ColumnTypeName } from '../generated/rows.js';
import { frameBinlog, iterateBinlog, readBinlog } from '../runtime/io/stream.js';
import { SchemaHistory } from '../runtime/tables/history.js';
import { packets, zongjiDecoder } from './zongji.js';
import { batchesOf, readAll } from './inputs.js';

export interface Result {
  kind: string;
  secs: number[];
  events?: number;
  rows?: number;
  /** text: how many strings, and their UTF-8 bytes. */
  strings?: number;
  textBytes?: number;
  /** encode: whether the output was the input, byte for byte. */
  identical?: boolean;
  /** decode, lazy with BENCH_HISTORY=1: the tables the history held at the end of the last run. */
  historyTables?: number;
  /** stream: RSS after start-up, and the peak while streaming (sampled and the kernel's VmHWM), bytes. */
  rssBase?: number;
  rssPeak?: number;
}

/** A new history per run under BENCH_HISTORY=1 (each run replays the file's DDL from nothing), else none. */
function withHistory(): { schemaHistory?: SchemaHistory } {
  return process.env.BENCH_HISTORY === '1' ? { schemaHistory: new SchemaHistory() } : {};
}

const rowsOf = (e: BinlogEvent) => ('rows' in e && Array.isArray(e.rows) ? e.rows.length : 0);

function time(f: () => void): number {
  const t0 = performance.now();
  f();
  return (performance.now() - t0) / 1000;
}

function frame(bytes: Uint8Array, runs: number): Result {
  let events = 0;
  const secs: number[] = [];
  for (let i = 0; i < runs; i++) {
    secs.push(
      time(() => {
        events = 0;
        for (const _ of frameBinlog(bytes)) events++;
      }),
    );
  }
  return { kind: 'frame', secs, events };
}

function decode(bytes: Uint8Array, runs: number): Result {
  let events = 0;
  let rows = 0;
  const secs: number[] = [];
  let options: { schemaHistory?: SchemaHistory } = {};
  for (let i = 0; i < runs; i++) {
    options = withHistory();
    secs.push(
      time(() => {
        events = rows = 0;
        for (const e of iterateBinlog(bytes, options)) {
          events++;
          rows += rowsOf(e);
        }
      }),
    );
  }
  return { kind: 'decode', secs, events, rows, ...historySize(options) };
}

const historySize = (o: { schemaHistory?: SchemaHistory }) =>
  o.schemaHistory ? { historyTables: o.schemaHistory.size } : {};

function lazy(bytes: Uint8Array, runs: number): Result {
  let events = 0;
  let rows = 0;
  const secs: number[] = [];
  let keys = 0;
  let options: { schemaHistory?: SchemaHistory } = {};
  for (let i = 0; i < runs; i++) {
    options = withHistory();
    secs.push(
      time(() => {
        events = rows = 0;
        for (const e of iterateBinlog(bytes, { rows: 'lazy', ...options })) {
          events++;
          if (!('rows' in e) || !e.rows) continue;
          for (const change of e.rows) if ((change.after ?? change.before)?.get(0) != null) keys++;
          rows += e.rows.length;
        }
      }),
    );
  }
  // Read, so that no engine could leave the reads out.
  if (keys < 0) throw new Error('unreachable');
  return { kind: 'lazy', secs, events, rows, ...historySize(options) };
}

/**
 * Whether a column of this TABLE_MAP type (and real type, for STRING) holds text: a charset type of CellLayouts, not
 * ENUM or SET.
 */
function holdsText(type: ColumnTypeName | number, realType: unknown): boolean {
  const code = typeof type === 'number' ? type : ColumnType[type];
  const layout = CellLayouts[code as keyof typeof CellLayouts] as { character?: string } | undefined;
  return layout?.character !== undefined && realType !== 'ENUM' && realType !== 'SET';
}

/**
 * The UTF-8 bytes of every text cell of the file (decoded untimed), back to back in one buffer; timed:
 * making each one's string again, as Reader.text does. Every UPDATE's before and after images count, as
 * the row images hold them (the decoder gives back a column's before-image string where the after image
 * repeats its bytes, so it makes a little fewer).
 */
function text(bytes: Uint8Array, runs: number): Result {
  const parts: Buffer[] = [];
  // Which columns of each table hold text (CHAR, VARCHAR, TEXT; not the ENUM and SET that STRING also
  // stands for, nor the strings of DECIMAL and temporal values), by position: the bench's images are FULL.
  const textColumns = new Map<number, boolean[]>();
  for (const e of iterateBinlog(bytes)) {
    if (e.type === 'TABLE_MAP_EVENT') {
      textColumns.set(
        e.tableId,
        e.columnTypes.map((type, k) => holdsText(type, (e.columnMetadata?.[k] as { realType?: unknown })?.realType)),
      );
    }
    if (!('rows' in e) || !e.rows) continue;
    const isText = textColumns.get(e.tableId) ?? [];
    for (const change of e.rows) {
      for (const row of [change.before, change.after]) {
        Object.values(row ?? {}).forEach((v, k) => isText[k] && typeof v === 'string' && parts.push(Buffer.from(v)));
      }
    }
  }
  const all = Buffer.concat(parts);
  const ends: number[] = [];
  for (const p of parts) ends.push((ends.at(-1) ?? 0) + p.length);
  const secs: number[] = [];
  let chars = 0;
  for (let i = 0; i < runs; i++) {
    secs.push(
      time(() => {
        chars = 0;
        let at = 0;
        for (const end of ends) {
          chars += all.toString('utf8', at, end).length;
          at = end;
        }
      }),
    );
  }
  if (chars === 0 && parts.length) throw new Error('no text was made');
  return { kind: 'text', secs, strings: parts.length, textBytes: all.length };
}

/**
 * Events are decoded (untimed) in batches of ~64 MB, each batch then encoded (timed) by one EventEncoder
 * that lives for the whole file, into one output buffer: encodeBinlog's work without holding every
 * decoded event of a large file at once.
 */
function encode(bytes: Uint8Array, runs: number): Result {
  const secs: number[] = [];
  let identical = true;
  // One output buffer for every run, zeroed between them: a new one of the file's size each run made V8
  // collect everything held (its size counts as external memory) inside the timed part.
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < runs; i++) {
    const encoder = new EventEncoder();
    out.fill(0);
    out.set(bytes.subarray(0, 4));
    let offset = 4;
    let spent = 0;
    for (const batch of batchesOf(iterateBinlog(bytes))) {
      spent += time(() => {
        for (const e of batch) {
          const b = encoder.encode(e, offset);
          if (offset + b.length > out.length) throw new Error('the encoding is longer than the input');
          out.set(b, offset);
          offset += b.length;
        }
      });
    }
    identical &&= offset === bytes.length && Buffer.compare(out, bytes) === 0;
    secs.push(spent);
  }
  return { kind: 'encode', secs, identical };
}

function vmHwm(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

async function stream(file: string, runs: number): Promise<Result> {
  const rssBase = process.memoryUsage.rss();
  let peak = rssBase;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  let events = 0;
  let rows = 0;
  const secs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    events = rows = 0;
    for await (const e of readBinlog(file)) {
      events++;
      rows += rowsOf(e);
    }
    secs.push((performance.now() - t0) / 1000);
  }
  clearInterval(timer);
  return { kind: 'stream', secs, events, rows, rssBase, rssPeak: Math.max(peak, vmHwm()) };
}

async function zongji(bytes: Uint8Array, runs: number): Promise<Result> {
  const p = packets(bytes);
  const decoder = await zongjiDecoder();
  let rows = 0;
  const secs: number[] = [];
  for (let i = 0; i < runs; i++) secs.push(time(() => (rows = decoder.run(p))));
  return { kind: 'zongji', secs, events: p.count, rows };
}

async function main(): Promise<void> {
  const [kind, file, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg ?? 1);
  if (!file || !(runs >= 1)) throw new Error('usage: measure.ts frame|decode|lazy|encode|stream|zongji|text FILE RUNS');
  const load = () => readAll(file);
  let result: Result;
  switch (kind) {
    case 'frame':
      result = frame(load(), runs);
      break;
    case 'decode':
      result = decode(load(), runs);
      break;
    case 'lazy':
      result = lazy(load(), runs);
      break;
    case 'encode':
      result = encode(load(), runs);
      break;
    case 'stream':
      result = await stream(file, runs);
      break;
    case 'zongji':
      result = await zongji(load(), runs);
      break;
    case 'text':
      result = text(load(), runs);
      break;
    default:
      throw new Error(`unknown measurement ${kind}`);
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

await main();
