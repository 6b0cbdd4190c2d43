/** The shape of the workload, shared by the server (data.ts) and the builder (builder-data.ts). */

/** Orders per round: each is inserted, updated (half of them twice) and deleted. */
export const ROUND_ROWS = 100_000;
/** Orders per INSERT … SELECT transaction. */
export const TX_ROWS = 25_000;
/** audit rows per insert transaction, less one. */
export const AUDIT_PER_TX = TX_ROWS / 5;
/** Single-row autocommit UPDATEs per round: what an OLTP server mostly writes. */
export const SMALL_TX = 500;
