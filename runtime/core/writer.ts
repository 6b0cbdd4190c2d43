import { EncodeError } from './errors.js';
import { HALF, varintWidth, type Text } from './reader.js';

const utf8 = new TextEncoder();

/**
 * A lone surrogate (possible in a JSON string, never in decoded text) has no UTF-8: TextEncoder and
 * Buffer#write would put U+FFFD in its place, a value nobody gave.
 */
export function checkWellFormed(v: string, path: string): void {
  if (!v.isWellFormed())
    throw new EncodeError(`${JSON.stringify(v).slice(0, 60)} has a lone surrogate, which no charset can store`, path);
}

/** A text value's UTF-8 (bytes pass through). */
export function textToBytes(v: Text, path = ''): Uint8Array {
  if (typeof v !== 'string') return v;
  checkWellFormed(v, path);
  return utf8.encode(v);
}

/** Strings up to this many UTF-16 units are written to UTF-8 by a loop, longer ones by Buffer's native code. */
const SHORT_TEXT = 32;

/**
 * A growable byte buffer. Length prefixes that precede their payload are written by reserving their bytes
 * (`reserve`) and patching them once the payload is written (`patchU16` …), so nothing is encoded twice.
 */
/** The bytes of Writer.packed's form of v: 1 below 251, then 3, 4 or 9. */
export function packedWidth(v: number | bigint): number {
  return v < 0xfb ? 1 : v <= 0xffff ? 3 : v <= 0xffffff ? 4 : 9;
}

/** BIGINT's ranges, made once rather than by bigint powers per value. */
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64 = [0n, 2n ** 64n - 1n] as const;
/** The 7-byte integers' ends, which MySQL's packed temporals and the 56-bit fields use. */
const UINT56_MAX = 2n ** 56n - 1n;
const INT56_MIN = -(2n ** 55n);

/** 2^(8n) by n (0 to 6): the first value an unsigned integer of n bytes cannot hold. */
const UINT_LIMIT = [1, 2 ** 8, 2 ** 16, 2 ** 24, 2 ** 32, 2 ** 40, 2 ** 48];

/** Refuses what an unsigned integer of `n` bytes (0 to 6) cannot hold. */
function checkUint(v: number, n: number, path: string): void {
  if (!(v >= 0 && v < UINT_LIMIT[n]!) || !Number.isInteger(v))
    throw new EncodeError(`${v} does not fit ${n} bytes`, path);
}

/**
 * Refuses what `n` bytes (1 to 6) hold in neither reading, signed or unsigned: a signed field's writer
 * also takes the same bits given as unsigned, which callers that mask values rely on.
 */
function checkBits(v: number, n: number, path: string | undefined): void {
  if (!(v >= -UINT_LIMIT[n]! / 2 && v < UINT_LIMIT[n]!) || !Number.isInteger(v)) doesNotFit(v, n, path);
}

/** The error of a value too large for its field: what would otherwise be written is the value cut short. */
function doesNotFit(v: number | bigint, n: number, path: string | undefined): never {
  throw new EncodeError(`${v} does not fit ${n} bytes`, path ?? `an integer of ${n} bytes`);
}

export class Writer {
  buf: Uint8Array;
  dv: DataView;
  /** `buf` as a Node Buffer, whose `utf8Write` encodes UTF-8 in place without a view or a result object per string. */
  private node: Buffer & { utf8Write(v: string, offset: number): number };
  pos = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.dv = new DataView(this.buf.buffer);
    this.node = Buffer.from(this.buf.buffer) as Writer['node'];
  }

  /** The bytes written so far (a view: valid until the next write). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** A copy of the bytes written so far. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = Math.max(1, this.buf.length * 2);
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.dv = new DataView(next.buffer);
    this.node = Buffer.from(next.buffer) as Writer['node'];
  }

  /** Leaves `n` bytes to be patched later and returns where they are. */
  reserve(n: number): number {
    const at = this.claim(n);
    // A loop: fill's call costs more than it saves for the few bytes of a bitmap or a length.
    for (let i = at; i < at + n; i++) this.buf[i] = 0;
    return at;
  }

  /** Leaves `n` bytes that the caller writes every one of (so not zeroed first) and returns where they are. */
  claim(n: number): number {
    this.ensure(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  bytes(v: Uint8Array): void {
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  /** Bytes that must have exactly `n` bytes. */
  fixed(v: Uint8Array, n: number, path: string): void {
    if (v.length !== n) throw new EncodeError(`expected ${n} bytes, got ${v.length}`, path);
    this.bytes(v);
  }

  /** A NUL-padded fixed-size field. */
  padded(v: Text, n: number, path: string): void {
    const b = textToBytes(v);
    if (b.length > n) throw new EncodeError(`${b.length} bytes do not fit in ${n}`, path);
    this.bytes(b);
    this.reserve(n - b.length);
  }

  /** The serialization varint (see Reader.varint), in its shortest form. */
  varint(v: number | bigint, path: string): void {
    if (typeof v === 'number' && (!Number.isSafeInteger(v) || v < 0)) throw new EncodeError(`not a varint: ${v}`, path);
    const big = BigInt(v);
    if (big < 0n || big >= 1n << 64n) throw new EncodeError(`not a varint: ${v}`, path);
    const n = varintWidth(big);
    if (n === 9) {
      this.u8(0xff);
      return this.u64(big);
    }
    let raw = (big << BigInt(n)) | ((1n << BigInt(n - 1)) - 1n);
    for (let i = 0; i < n; i++, raw >>= 8n) this.u8(Number(raw & 0xffn));
  }

  /** A signed serialization varint (see Reader.zigzag). */
  zigzag(v: bigint, path: string): void {
    if (v < -(1n << 63n) || v >= 1n << 63n) throw new EncodeError(`${v} is not a signed 64-bit integer`, path);
    this.varint(v < 0n ? ((-v - 1n) << 1n) | 1n : v << 1n, path);
  }

  /** Bytes one serialization varint each; exactly `n` of them. */
  varintBytes(v: Uint8Array, n: number, path: string): void {
    if (v.length !== n) throw new EncodeError(`expected ${n} bytes, got ${v.length}`, path);
    for (const b of v) this.varint(b, path);
  }

  /**
   * A string's UTF-8 after its `width`-byte (1 to 4) little-endian length, encoded straight into the
   * buffer (no intermediate bytes): the length slot is reserved, then patched.
   */
  prefixedUtf8(v: string, width: number, path: string): void {
    this.ensure(width + v.length * 3); // a UTF-16 unit is at most 3 bytes of UTF-8
    const at = this.pos;
    const n = v.length <= SHORT_TEXT ? this.utf8(v, at + width) : this.utf8Call(v, at + width, path);
    if (n < 0) checkWellFormed(v, path); // a lone surrogate: it throws
    if (n >= 2 ** (8 * width)) throw new EncodeError(`${n} bytes do not fit a ${width}-byte length`, path);
    for (let i = 0; i < width; i++) this.buf[at + i] = n >>> (8 * i);
    this.pos = at + width + n;
  }

  /** A well-formed string's UTF-8 at `at` through Buffer's native code, with room for it; its byte count. */
  private utf8Call(v: string, at: number, path: string): number {
    checkWellFormed(v, path);
    // utf8Write is what Buffer#write calls after checking its arguments and looking up the encoding.
    return this.node.utf8Write(v, at);
  }

  /**
   * A short string's UTF-8 at `at`, with room for it, by a loop (a call into native code costs more than
   * the few characters): its byte count, or -1 where it has a lone surrogate.
   */
  private utf8(v: string, at: number): number {
    const b = this.buf;
    let p = at;
    for (let i = 0; i < v.length; i++) {
      let c = v.charCodeAt(i);
      if (c < 0x80) b[p++] = c;
      else if (c < 0x800) {
        b[p++] = 0xc0 | (c >> 6);
        b[p++] = 0x80 | (c & 63);
      } else if (c < 0xd800 || c >= 0xe000) {
        b[p++] = 0xe0 | (c >> 12);
        b[p++] = 0x80 | ((c >> 6) & 63);
        b[p++] = 0x80 | (c & 63);
      } else {
        const low = v.charCodeAt(++i); // NaN past the end
        if (c >= 0xdc00 || !(low >= 0xdc00 && low < 0xe000)) return -1;
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        b[p++] = 0xf0 | (c >> 18);
        b[p++] = 0x80 | ((c >> 12) & 63);
        b[p++] = 0x80 | ((c >> 6) & 63);
        b[p++] = 0x80 | (c & 63);
      }
    }
    return p - at;
  }

  /** Bytes after their length: `width` bytes little-endian, 0 for a packed integer, -1 for a varint. */
  prefixed(v: Uint8Array, width: number, path: string): void {
    if (width === -1) this.varint(v.length, path);
    else if (width === 0) this.packed(v.length, path);
    else if (v.length >= 2 ** (8 * width))
      throw new EncodeError(`${v.length} bytes do not fit a ${width}-byte length`, path);
    else if (width === 1) this.u8(v.length);
    else if (width === 2) this.u16(v.length);
    else if (width === 3) this.u24(v.length);
    else this.u32(v.length);
    this.bytes(v);
  }

  cstring(v: Text, path: string): void {
    const b = textToBytes(v);
    if (b.includes(0)) throw new EncodeError('a NUL-terminated string cannot contain NUL', path);
    this.bytes(b);
    this.u8(0);
  }

  /** MySQL's length-encoded integer in its shortest form. */
  packed(v: number | bigint, path: string): void {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || v < 0) throw new EncodeError(`not a packed integer: ${v}`, path);
      if (v < 0xfb) return this.u8(v);
      if (v <= 0xffff) return (this.u8(0xfc), this.u16(v));
      if (v <= 0xffffff) return (this.u8(0xfd), this.u24(v));
      return (this.u8(0xfe), this.u64(BigInt(v)));
    }
    if (v < 0n || v > 0xffff_ffff_ffff_ffffn) throw new EncodeError(`not a packed integer: ${v}`, path);
    if (v <= 0xffffffn) return this.packed(Number(v), path);
    this.u8(0xfe);
    this.u64(v);
  }

  /** A bitmap of exactly `n` bits, least (or, with `msb`, most) significant bit first. */
  bitmap(bits: boolean[], n: number, path: string, msb = false, spare = 0): void {
    if (bits.length !== n) throw new EncodeError(`bitmap has ${bits.length} bits, expected ${n}`, path);
    const at = this.reserve((n + 7) >>> 3);
    for (let i = 0; i < n; i++) if (bits[i]) this.buf[at + (i >>> 3)]! |= msb ? 0x80 >>> (i & 7) : 1 << (i & 7);
    if (spare) this.buf[at + ((n - 1) >>> 3)]! |= msb ? spare : spare << (n & 7);
  }

  /** An unsigned big-endian integer of `n` bytes (0 to 6). */
  uintBe(v: number, n: number, path: string): void {
    checkUint(v, n, path);
    const at = this.claim(n);
    const b = this.buf;
    if (n <= 4) for (let i = at + n - 1; i >= at; i--, v >>>= 8) b[i] = v;
    else for (let i = at + n - 1; i >= at; i--, v = Math.floor(v / 256)) b[i] = v % 256;
  }
  /** An unsigned big-endian integer of `n` bytes (0 to 8), given as a bigint. */
  bigBe(v: bigint, n: number, path: string): void {
    if (v < 0n || v >> BigInt(8 * n)) throw new EncodeError(`${v} does not fit ${n} bytes`, path);
    const at = this.claim(n);
    for (let i = at + n - 1; i >= at; i--, v >>= 8n) this.buf[i] = Number(v & 0xffn);
  }
  /** An unsigned little-endian integer of `n` bytes (0 to 8), given as a bigint. */
  bigLe(v: bigint, n: number, path: string): void {
    if (v < 0n || v >> BigInt(8 * n)) throw new EncodeError(`${v} does not fit ${n} bytes`, path);
    const at = this.claim(n);
    for (let i = at; i < at + n; i++, v >>= 8n) this.buf[i] = Number(v & 0xffn);
  }
  /**
   * A little-endian integer of `n` bytes (1 to 4, or 8 given as a bigint), two's complement when
   * `signed`; one outside the range of its width and signedness is refused.
   */
  intLe(v: number | bigint, n: number, signed: boolean, path: string): void {
    if (n === 8) {
      const b = typeof v === 'bigint' ? v : BigInt(v);
      const [lo, hi] = signed ? INT64 : UINT64;
      if (b < lo || b > hi) throw new EncodeError(`${b} is out of range`, path);
      return this.u64(b);
    }
    const x = v as number;
    const half = HALF[n]!;
    if (!Number.isInteger(x) || x < (signed ? -half : 0) || x >= (signed ? half : 2 * half))
      throw new EncodeError(`${x} is out of range`, path);
    const u = x < 0 ? x + 2 * half : x;
    if (n === 1) this.u8(u);
    else if (n === 2) this.u16(u);
    else if (n === 3) this.u24(u);
    else this.u32(u);
  }

  /** An unsigned little-endian integer of `n` bytes (1 to 6). */
  uint(v: number, n: number, path: string): void {
    checkUint(v, n, path);
    const at = this.claim(n);
    const b = this.buf;
    if (n <= 4) for (let i = at; i < at + n; i++, v >>>= 8) b[i] = v;
    else for (let i = at; i < at + n; i++, v = Math.floor(v / 256)) b[i] = v % 256;
  }

  // The fixed-width writers refuse a value their bytes cannot hold, rather than write it cut short; `path`
  // names the field in the error. The masks test the range and that the value is an integer at once.
  u8(v: number, path?: string): void {
    if ((v & 0xff) !== v) doesNotFit(v, 1, path);
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  i8(v: number, path?: string): void {
    checkBits(v, 1, path);
    this.u8(v & 0xff);
  }
  u16(v: number, path?: string): void {
    if ((v & 0xffff) !== v) doesNotFit(v, 2, path);
    this.ensure(2);
    this.dv.setUint16(this.pos, v, true);
    this.pos += 2;
  }
  i16(v: number, path?: string): void {
    checkBits(v, 2, path);
    this.u16(v & 0xffff);
  }
  u24(v: number, path?: string): void {
    if ((v & 0xffffff) !== v) doesNotFit(v, 3, path);
    this.ensure(3);
    const b = this.buf;
    b[this.pos] = v;
    b[this.pos + 1] = v >>> 8;
    b[this.pos + 2] = v >>> 16;
    this.pos += 3;
  }
  i24(v: number, path?: string): void {
    checkBits(v, 3, path);
    this.u24(v & 0xffffff);
  }
  u32(v: number, path?: string): void {
    if (v >>> 0 !== v) doesNotFit(v, 4, path);
    this.ensure(4);
    this.dv.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  i32(v: number, path?: string): void {
    checkBits(v, 4, path);
    this.u32(v >>> 0);
  }
  u40(v: number, path?: string): void {
    checkUint(v, 5, path ?? 'an integer of 5 bytes');
    this.u32(v % 0x1_0000_0000);
    this.u8(Math.floor(v / 0x1_0000_0000));
  }
  i40(v: number, path?: string): void {
    checkBits(v, 5, path);
    this.u40(v < 0 ? v + 2 ** 40 : v);
  }
  u48(v: number, path?: string): void {
    checkUint(v, 6, path ?? 'an integer of 6 bytes');
    this.u32(v % 0x1_0000_0000);
    this.u16(Math.floor(v / 0x1_0000_0000));
  }
  i48(v: number, path?: string): void {
    checkBits(v, 6, path);
    this.u48(v < 0 ? v + 2 ** 48 : v);
  }
  u56(v: bigint, path?: string): void {
    if (v < 0n || v > UINT56_MAX) doesNotFit(v, 7, path);
    this.u32(Number(v & 0xffff_ffffn));
    this.u24(Number(v >> 32n));
  }
  i56(v: bigint, path?: string): void {
    if (v < INT56_MIN || v > UINT56_MAX) doesNotFit(v, 7, path);
    this.u56(BigInt.asUintN(56, v));
  }
  // The eight-byte writers take either reading, as BIGINT's cell is one layout for signed and unsigned
  // columns; setBigUint64 stores a negative value as its two's complement.
  u64(v: bigint, path?: string): void {
    if (v < INT64[0] || v > UINT64[1]) doesNotFit(v, 8, path);
    this.ensure(8);
    this.dv.setBigUint64(this.pos, v, true);
    this.pos += 8;
  }
  i64(v: bigint, path?: string): void {
    this.u64(v, path);
  }

  u16be(v: number, path?: string): void {
    if ((v & 0xffff) !== v) doesNotFit(v, 2, path);
    this.ensure(2);
    this.dv.setUint16(this.pos, v, false);
    this.pos += 2;
  }
  i16be(v: number, path?: string): void {
    checkBits(v, 2, path);
    this.u16be(v & 0xffff);
  }
  u24be(v: number, path?: string): void {
    if ((v & 0xffffff) !== v) doesNotFit(v, 3, path);
    this.u8(v >>> 16);
    this.u16be(v & 0xffff);
  }
  i24be(v: number, path?: string): void {
    checkBits(v, 3, path);
    this.u24be(v & 0xffffff);
  }
  u32be(v: number, path?: string): void {
    if (v >>> 0 !== v) doesNotFit(v, 4, path);
    this.ensure(4);
    this.dv.setUint32(this.pos, v, false);
    this.pos += 4;
  }
  i32be(v: number, path?: string): void {
    checkBits(v, 4, path);
    this.u32be(v >>> 0);
  }
  u40be(v: number, path?: string): void {
    checkUint(v, 5, path ?? 'an integer of 5 bytes');
    this.u8(Math.floor(v / 0x1_0000_0000));
    this.u32be(v % 0x1_0000_0000);
  }
  i40be(v: number, path?: string): void {
    checkBits(v, 5, path);
    this.u40be(v < 0 ? v + 2 ** 40 : v);
  }
  u48be(v: number, path?: string): void {
    checkUint(v, 6, path ?? 'an integer of 6 bytes');
    this.u16be(Math.floor(v / 0x1_0000_0000));
    this.u32be(v % 0x1_0000_0000);
  }
  i48be(v: number, path?: string): void {
    checkBits(v, 6, path);
    this.u48be(v < 0 ? v + 2 ** 48 : v);
  }
  u56be(v: bigint, path?: string): void {
    if (v < 0n || v > UINT56_MAX) doesNotFit(v, 7, path);
    this.u24be(Number(v >> 32n));
    this.u32be(Number(v & 0xffff_ffffn));
  }
  i56be(v: bigint, path?: string): void {
    if (v < INT56_MIN || v > UINT56_MAX) doesNotFit(v, 7, path);
    this.u56be(BigInt.asUintN(56, v));
  }
  u64be(v: bigint, path?: string): void {
    if (v < INT64[0] || v > UINT64[1]) doesNotFit(v, 8, path);
    this.ensure(8);
    this.dv.setBigUint64(this.pos, v, false);
    this.pos += 8;
  }
  i64be(v: bigint, path?: string): void {
    this.u64be(v, path);
  }

  f32(v: number): void {
    this.ensure(4);
    this.dv.setFloat32(this.pos, v, true);
    this.pos += 4;
  }
  f64(v: number): void {
    this.ensure(8);
    this.dv.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  // A patched value is refused as a written one is when its bytes cannot hold it.
  patchU8(at: number, v: number, path?: string): void {
    if ((v & 0xff) !== v) doesNotFit(v, 1, path);
    this.buf[at] = v;
  }
  patchU16(at: number, v: number, path?: string): void {
    if ((v & 0xffff) !== v) doesNotFit(v, 2, path);
    this.dv.setUint16(at, v, true);
  }
  patchU32(at: number, v: number, path?: string): void {
    if (v >>> 0 !== v) doesNotFit(v, 4, path);
    this.dv.setUint32(at, v, true);
  }
}
