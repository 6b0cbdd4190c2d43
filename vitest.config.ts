import { defineConfig } from 'vitest/config';

// A guard against hangs, not a speed check: the default 5 s is too close on a loaded 2-core CI machine
// for the larger real-binlog round trips (one takes ~4.5 s there).
export default defineConfig({ test: { testTimeout: 30_000 } });
