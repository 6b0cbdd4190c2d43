/**
 * bin/snapshot.ts's writers against an output that cannot keep up: a piece of rows is not done until its
 * text is taken, so that the snapshot reads no further rows while the output is full and memory does not
 * grow with the table (bench/README.md, "A snapshot (issue 40)").
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DumpLines } from '../bin/dump-lines.js';
import { snapshotLines, snapshotSql } from '../bin/snapshot.js';
import { ColumnType } from '../generated/rows.js';
import type { SnapshotRow, SnapshotTable } from '../protocol/snapshot-rows.js';

const table: SnapshotTable = {
  schema: 'd',
  name: 't',
  qualified: 'd.t',
  createSql: '',
  columns: [
    { name: 'id', columnType: ColumnType.LONG, flags: 0, characterSet: 63, decimals: 0 },
    { name: 's', columnType: ColumnType.VAR_STRING, flags: 0, characterSet: 45, decimals: 0 },
  ],
  key: ['id'],
};

/** A piece of 1000 rows of about 620 bytes: more than one of the outputs' batches (DumpLines writes 512 KB). */
const piece: SnapshotRow[] = Array.from({ length: 1000 }, (_, i) => [Buffer.from(String(i)), Buffer.alloc(600, 'a')]);

/** Lets pending callbacks and promise reactions run. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/** Whether `p` has settled after the event loop ran a while. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await settle();
  return done;
}

describe('snapshot output under backpressure', () => {
  it("dump's SNAPSHOT_ROWS line waits for a full output to drain", async () => {
    const held: (() => void)[] = [];
    const written: Buffer[] = [];
    // Like a pipe whose reader is asleep: every chunk is taken only when the test lets it go.
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        written.push(Buffer.from(chunk));
        held.push(done);
      },
    });
    const lines = new DumpLines(out);
    const rows = snapshotLines(lines).rows(table, piece);
    expect(await settled(rows)).toBe(false);
    expect(held).toHaveLength(1);
    while (held.length) held.shift()!();
    expect(await settled(rows)).toBe(true);
    // The line is written whole: its 1000 rows, the last id 999.
    const line = JSON.parse(Buffer.concat(written).toString('utf8')) as { rows: { after: { id: number } }[] };
    expect(line.rows).toHaveLength(1000);
    expect(line.rows.at(-1)!.after.id).toBe(999);
  });

  it("sql's INSERTs are written one at a time, each waiting for the output", async () => {
    const waiting: (() => void)[] = [];
    const statements: string[] = [];
    const out = (text: string) => {
      statements.push(text);
      return new Promise<void>((r) => waiting.push(r));
    };
    // Rows of about 2.4 MB of SQL in all (each text cell in hex): INSERTs cut past 1 MB make three.
    const big: SnapshotRow[] = piece.map(([id]) => [id!, Buffer.alloc(1200, 'b')]);
    const rows = snapshotSql(out, () => '', true).rows(table, big);
    for (let taken = 1; taken <= 3; taken++) {
      expect(await settled(rows)).toBe(false);
      expect(statements).toHaveLength(taken);
      waiting.shift()!();
    }
    expect(await settled(rows)).toBe(true);
    expect(statements.every((s) => s.startsWith('INSERT INTO `d`.`t` (`id`,`s`) VALUES ('))).toBe(true);
  });
});
