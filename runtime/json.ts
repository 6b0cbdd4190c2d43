/**
 * The dump's JSON form of decoded values: 64-bit integers as numbers when they are safe and as decimal
 * strings otherwise, bytes as `{ "hex": "…" }`, negative zero as "-0". Everything else is plain JSON.
 */

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function replacer(this: Record<string, unknown>, key: string, v: unknown): unknown {
  // A Buffer has already become { type, data } through its toJSON; the holder still has the bytes.
  const raw = this[key];
  if (raw instanceof Uint8Array) return { hex: toHex(raw) };
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return v;
}

/** One value as a line of JSON. */
export function toJsonLine(value: unknown): string {
  return JSON.stringify(value, replacer);
}
