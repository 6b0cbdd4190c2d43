/** Binlogs from operations that arrive one by one, as a stream of bytes or into a file. */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { BinlogWriter } from './binlog-writer.js';
import type { RowInput } from './row-values.js';
import type { BinlogOp, BinlogWriterOptions, Rows } from './writer-options.js';

/**
 * A binlog from operations that arrive one by one (an array, a generator, an async generator), as byte
 * chunks: the magic and header events first, then each event as soon as it is complete. Only the
 * current event is held, however many operations and rows there are, and nothing is made before the
 * consumer asks for it. It ends with an error if a transaction is left open.
 */
export async function* writeBinlog(
  ops: Iterable<BinlogOp> | AsyncIterable<BinlogOp>,
  options: Omit<BinlogWriterOptions, 'sink'> = {},
): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  const w = new BinlogWriter({ ...options, sink: (c) => queue.push(c) });
  const drain = function* () {
    while (queue.length) yield queue.shift()!;
  };
  yield* drain();
  for await (const op of ops) {
    if (op.op === 'insert' || op.op === 'update' || op.op === 'delete') {
      const s = w.startRows(op.op, op.table, { statement: op.statement });
      for await (const row of op.rows as Rows<RowInput | readonly [RowInput, RowInput]>) {
        s.add(row);
        yield* drain();
      }
      s.end();
    } else {
      w.apply(op);
    }
    yield* drain();
  }
  w.end();
}

/** `writeBinlog` into a file, with the file stream's backpressure. Resolves with the file's size. */
export async function writeBinlogFile(
  path: string,
  ops: Iterable<BinlogOp> | AsyncIterable<BinlogOp>,
  options: Omit<BinlogWriterOptions, 'sink'> = {},
): Promise<number> {
  let size = 0;
  const counted = async function* () {
    for await (const chunk of writeBinlog(ops, options)) {
      size += chunk.length;
      yield chunk;
    }
  };
  await pipeline(counted, createWriteStream(path));
  return size;
}
