import { defineConfig } from 'vitest/config';

// The timeout is a guard against hangs, not a speed check: the default 5 s is too close on a loaded 2-core CI
// machine for the larger real-binlog round trips (one takes ~4.5 s there). The global setup gathers what the
// suites could not run into one line at the end (test/support/skips.ts).
export default defineConfig({ test: { testTimeout: 30_000, globalSetup: ['test/support/skips.ts'] } });
