/** binlog dump's progress line: its figures, and a last drawing that is the final count. */
import { describe, expect, it } from 'vitest';
import { clock, Progress, progressLine, size } from '../bin/progress.js';

describe('the progress line', () => {
  it('sizes in decimal units, times in seconds or m:ss', () => {
    expect([size(999), size(1000), size(63_200_000), size(2.5e9)]).toEqual(['999 B', '1.0 kB', '63.2 MB', '2.5 GB']);
    expect([clock(0.04), clock(12.34), clock(75), clock(3725)]).toEqual(['0.0 s', '12.3 s', '1:15', '1:02:05']);
  });

  it('with the size known: the share and the time left, at the rate so far', () => {
    const line = progressLine({ bytes: 25e6, events: 1000, written: 1000 }, 100e6, 5, false);
    expect(line).toBe('25.0 MB of 100.0 MB (25%), 1000 events, 5.0 MB/s, ETA 15.0 s');
    expect(progressLine({ bytes: 25e6, events: 1000, written: 10 }, undefined, 5, false)).toBe(
      '25.0 MB, 1000 events, 10 written, 5.0 MB/s',
    );
  });

  it('done() draws the figures as they are at the end, and ends the line', () => {
    const writes: string[] = [];
    let count = { bytes: 12_345_678, events: 123456, written: 123456 };
    const p = new Progress({ write: (s: string) => writes.push(s) }, () => count, 63_200_000, 3_600_000);
    count = { bytes: 63_200_000, events: 8042, written: 8042 };
    p.done();
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\r63\.2 MB of 63\.2 MB \(100%\), 8042 events, [\d.]+ [kMG]?B\/s, in [\d.]+ s\n$/);
  });
});
