/** The consistent snapshot capability: a server's tables as of one binlog position. */
export { DEFAULT_CHUNK, takeSnapshot, type SnapshotOptions, type SnapshotReader } from './consistent.js';
