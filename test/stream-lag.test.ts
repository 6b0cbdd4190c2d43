/** sinks/lag.ts: the stream's lag behind the server, on a clock the test moves. */
import { expect, it } from 'vitest';
import { Lag } from '../sinks/lag.js';

function clocked(start: number) {
  const clock = { now: start };
  return { clock, lag: new Lag(() => clock.now) };
}

it('is 0 before anything is read', () => {
  expect(clocked(100).lag.seconds(true)).toBe(0);
});

it('grows while messages wait for a broker that does not acknowledge', () => {
  const { clock, lag } = clocked(1000);
  lag.read(1000);
  expect(lag.seconds(true)).toBe(0);
  clock.now = 1012.5;
  expect(lag.seconds(true)).toBe(12.5);
  lag.acknowledged(1000);
  lag.read(1010);
  clock.now = 1020;
  expect(lag.seconds(true)).toBe(20); // behind the newest acknowledged transaction, not the newest read
  lag.acknowledged(1010);
  expect(lag.seconds(true)).toBe(10);
});

it('keeps the lag of old events caught up on until a heartbeat says the server has nothing newer', () => {
  const { clock, lag } = clocked(5000);
  lag.read(1400); // an hour and some behind
  lag.acknowledged(1400);
  clock.now = 5030;
  expect(lag.seconds(false)).toBe(3600); // as acknowledged, not growing while idle
  lag.heartbeat();
  expect(lag.seconds(false)).toBe(0);
  lag.read(5030);
  expect(lag.seconds(false)).toBe(3600); // an event after the heartbeat: caught up no longer known
  lag.acknowledged(5030);
  expect(lag.seconds(false)).toBe(0);
});

it('reads a server clock ahead of the reader as no lag', () => {
  const { lag } = clocked(100);
  lag.read(160);
  lag.acknowledged(160);
  expect([lag.seconds(true), lag.seconds(false)]).toEqual([0, 0]);
});
