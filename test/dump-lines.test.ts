/**
 * bin/dump-lines.ts: the dump's batches are written into buffers the stream gave back, and none is written
 * into again before the stream's write callback says it is done with it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DumpLines } from '../bin/dump-lines.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog } from '../runtime/io/stream.js';

const sample = new Uint8Array(readFileSync(join(import.meta.dirname, 'fixtures', 'sample.bin')));
/** Enough copies of the sample's events (about 17 KB of lines each) for many batches of 512 KB. */
const REPEATS = 400;

describe('DumpLines', () => {
  it('reuses its buffers only after the write callback, and writes every line as it is', async () => {
    const received: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let changedBeforeDone = 0;
    // Like a pipe, the stream is done with a chunk some time after write returns.
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const copy = Buffer.from(chunk);
        received.push(copy);
        buffers.add(chunk.buffer);
        setImmediate(() => {
          if (!chunk.equals(copy)) changedBeforeDone++;
          done();
        });
      },
    });
    const lines = new DumpLines(out);
    const expected: string[] = [];
    for (let i = 0; i < REPEATS; i++) {
      for (const e of decodeBinlog(sample)) {
        expected.push(toJsonLine(e) + '\n');
        await lines.event(e);
      }
    }
    await lines.end();
    expect(Buffer.concat(received).toString('utf8')).toBe(expected.join(''));
    expect(received.length).toBeGreaterThan(4);
    expect(changedBeforeDone).toBe(0);
    // A new buffer for each batch would make as many as there are batches.
    expect(buffers.size).toBeLessThanOrEqual(3);
  });
});
