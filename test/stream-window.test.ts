/**
 * The window of unacknowledged messages (sinks/window.ts): acknowledgements by sequence number in any
 * order, a checkpoint durable only once every message before it is acknowledged, and a refusal or a
 * missing acknowledgement failing the window with the message it belongs to.
 */
import { expect, it } from 'vitest';
import type { Checkpoint } from '../protocol/checkpoint.js';
import type { SinkMessage } from '../sinks/sink.js';
import { AckWindow } from '../sinks/window.js';

const message = (n: number): SinkMessage => ({
  subject: `binlog.d.t${n % 2}`,
  id: `1/0-1-9/${n}`,
  body: new Uint8Array(),
});
const checkpoint = (position: number) => ({ file: 'binlog.000001', position, gtid: '' }) as Checkpoint;

function window(limit: number, timeout = 60_000) {
  const durable: number[] = [];
  const failures: Error[] = [];
  const w = new AckWindow(
    limit,
    timeout,
    (c, _at, n) => durable.push(c.position, n),
    (e) => failures.push(e),
  );
  return { w, durable, failures };
}

it('makes a checkpoint durable once the messages before it are acknowledged, in whatever order they come', () => {
  const { w, durable } = window(4);
  for (let n = 0; n < 3; n++) expect(w.take(message(n))).toBe(n);
  w.mark(checkpoint(100), 0);
  w.take(message(3));
  w.mark(checkpoint(200), 0);
  w.acked(2, false);
  w.acked(1, true);
  expect([durable, w.inFlight]).toEqual([[], 4]);
  w.acked(0, false);
  expect([durable, w.inFlight, w.duplicates]).toEqual([[100, 1], 1, 1]);
  // An acknowledgement again, or of a number never sent, changes nothing.
  w.acked(1, true);
  w.acked(9, false);
  w.acked(3, false);
  expect([durable, w.inFlight, w.duplicates]).toEqual([[100, 1, 200, 1], 0, 1]);
  w.close();
});

it('holds the reader at the limit and lets it on a quarter below', async () => {
  const { w } = window(8);
  for (let n = 0; n < 8; n++) w.take(message(n));
  expect(w.full).toBe(true);
  let roomy = false;
  const room = w.room().then(() => (roomy = true));
  w.acked(0, false);
  await new Promise((r) => setImmediate(r));
  expect([roomy, w.inFlight]).toEqual([false, 7]);
  w.acked(1, false);
  await room;
  expect([roomy, w.inFlight]).toEqual([true, 6]);
  w.close();
});

it('fails with the refused message named, and takes no more', async () => {
  const { w, failures } = window(4);
  for (let n = 0; n < 3; n++) w.take(message(n));
  w.acked(0, false);
  w.lost(new Error('JetStream refused it: maximum messages exceeded (10077)'), 2);
  expect(failures.map((e) => e.message)).toEqual([
    'JetStream refused it: maximum messages exceeded (10077), for the message 1/0-1-9/2 on binlog.d.t0',
  ]);
  expect(() => w.take(message(3))).toThrow(/maximum messages/);
  await expect(w.drain()).rejects.toThrow(/maximum messages/);
  w.close();
});

it('fails when the oldest message waits longer than the timeout for its acknowledgement, naming it', async () => {
  const { w, failures } = window(4, 100);
  w.take(message(0));
  w.take(message(1));
  w.acked(1, false);
  const started = Date.now();
  await expect(w.drain()).rejects.toThrow('no acknowledgement of the message 1/0-1-9/0 on binlog.d.t0 within 0.1 s');
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(failures.length).toBe(1);
  w.close();
});
