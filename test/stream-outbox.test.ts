/**
 * The messages rendered ahead of the window (sinks/outbox.ts): sent in order as the window has room, the
 * reader let on while fewer than `ahead` wait, each transaction's end marked after its messages, the
 * window's failure given to the reader, nothing sent once closed, and what was sent let go of.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect, it } from 'vitest';
import type { Checkpoint } from '../protocol/checkpoint.js';
import { Outbox } from '../sinks/outbox.js';
import type { SinkMessage } from '../sinks/sink.js';
import { AckWindow } from '../sinks/window.js';

const message = (n: number): SinkMessage => ({ subject: 'binlog.d.t', id: `1/0-1-9/${n}`, body: new Uint8Array() });
const checkpoint = (position: number) => ({ file: 'binlog.000001', position, gtid: '' }) as Checkpoint;
const turn = () => new Promise((r) => setImmediate(r));

/** An outbox over a window of `limit`, `ahead` held at most; what was published (ids, in order) and made durable. */
function outbox(limit: number, ahead: number) {
  const published: string[] = [];
  const durable: number[] = [];
  const failures: Error[] = [];
  const window = new AckWindow(
    limit,
    60_000,
    (c) => durable.push(c.position),
    (e) => failures.push(e),
  );
  const sink = { publish: (m: SinkMessage) => void published.push(m.id) };
  let sent = 0;
  const box = new Outbox(sink, window, ahead, () => sent++);
  return { box, window, published, durable, failures, sent: () => sent };
}

it('sends what the window has room for at once, holds the rest in order, lets the reader on below ahead', async () => {
  const { box, window, published, durable, sent } = outbox(4, 3);
  box.add([0, 1].map(message));
  expect(published).toEqual(['1/0-1-9/0', '1/0-1-9/1']);
  box.end(checkpoint(100), 0);
  box.add([2, 3, 4, 5].map(message));
  box.end(checkpoint(200), 0);
  expect([published.length, window.inFlight, sent()]).toEqual([4, 4, 4]);
  // Two held, fewer than three: the reader goes on.
  await box.room();
  box.add([6, 7].map(message));
  box.end(checkpoint(300), 0);
  let roomy = false;
  const room = box.room().then(() => (roomy = true));
  await turn();
  expect(roomy).toBe(false);
  // The window lets the sending on a quarter below its limit: one acknowledgement frees one slot.
  window.acked(0, false);
  window.acked(1, false);
  await room;
  expect(published).toEqual([0, 1, 2, 3, 4, 5].map((n) => `1/0-1-9/${n}`));
  // The first transaction's end was marked after its two messages, so it is durable once they are.
  expect(durable).toEqual([100]);
  for (let seq = 2; seq < 6; seq++) window.acked(seq, false);
  await box.flush();
  expect(published).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => `1/0-1-9/${n}`));
  expect(durable).toEqual([100, 200]);
  window.acked(7, false);
  expect(durable).toEqual([100, 200]);
  window.acked(6, false);
  expect(durable).toEqual([100, 200, 300]);
  window.close();
});

it("gives the window's failure to the reader, waiting or adding, and sends nothing after it", async () => {
  const { box, window, published } = outbox(2, 2);
  box.add([0, 1, 2, 3].map(message));
  const room = box.room();
  window.lost(new Error('JetStream refused it: maximum messages exceeded (10077)'), 1);
  await expect(room).rejects.toThrow('maximum messages exceeded (10077), for the message 1/0-1-9/1 on binlog.d.t');
  expect(() => box.add([message(4)])).toThrow('maximum messages exceeded');
  await expect(box.flush()).rejects.toThrow('maximum messages exceeded');
  expect(published).toEqual(['1/0-1-9/0', '1/0-1-9/1']);
  window.close();
});

it('sends nothing more once closed, even when the window has room again', async () => {
  const { box, window, published } = outbox(2, 10);
  box.add([0, 1, 2, 3].map(message));
  box.close();
  window.acked(0, false);
  window.acked(1, false);
  await turn();
  expect(published).toEqual(['1/0-1-9/0', '1/0-1-9/1']);
  window.close();
});

it('lets go of the messages it sent while the reader keeps it busy, never empty', async () => {
  // A collection on demand, for WeakRefs to say what is still kept.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const { box, window, published } = outbox(10, 100_000);
  const first: WeakRef<SinkMessage>[] = [];
  let acked = 0;
  for (let event = 0; event < 500; event++) {
    const messages = Array.from({ length: 20 }, (_, k) => message(event * 20 + k));
    if (event < 5) first.push(...messages.map((m) => new WeakRef(m)));
    box.add(messages);
    // What is in flight acknowledged each turn (ten), twenty added: the outbox holds more and more, never empty.
    while (acked < published.length) window.acked(acked++, false);
    await turn();
  }
  expect(published.length).toBeGreaterThan(4000);
  gc();
  expect(first.filter((r) => r.deref() !== undefined).length).toBe(0);
  box.close();
  window.close();
});
