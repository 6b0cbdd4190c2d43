import { InvalidValueError, LengthError, SchemaCheckError, TruncatedError } from './errors.js';

/** Bytes whose meaning is text when they are valid UTF-8, and raw bytes otherwise (so nothing is lost). */
export type Text = string | Uint8Array;

/** Bytes of the serialization varint of v: 7 bits a byte up to 8 bytes (56 bits), else 9. */
export function varintWidth(v: bigint): number {
  for (let n = 1; n <= 8; n++) if (v < 1n << BigInt(7 * n)) return n;
  return 9;
}

/** The smallest value each packed-integer width is used for. */
const PACKED_MIN: Record<number, bigint> = { 2: 0xfbn, 3: 0x1_0000n, 8: 0x100_0000n };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Node's UTF-8 decoding of b[start, end): Buffer's own utf8Slice, which toString('utf8', …) calls after
 * checking its arguments (ours are in range), where this Node has it.
 */
const utf8Slice: (b: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (b, start, end) => (b as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end)
    : (b, start, end) => b.toString('utf8', start, end);

/** Text of `b[start..end)` when it is valid UTF-8 (which then re-encodes to the same bytes), else undefined. */
function utf8Text(b: Buffer, start: number, end: number): string | undefined {
  const text = utf8Slice(b, start, end);
  // Node's slice marks invalid bytes with U+FFFD; only then (or for a real U+FFFD, or a BOM) does the
  // strict decoder decide.
  if (!text.includes('\uFFFD') && text.charCodeAt(0) !== 0xfeff) return text;
  try {
    return utf8.decode(b.subarray(start, end));
  } catch {
    return undefined;
  }
}

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The n bytes of `b` from `at` as a big-endian unsigned number (n up to 6). */
export function beUint(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + b[at + i]!;
  return v;
}

/** Text when the bytes are valid UTF-8, else the bytes themselves. */
export function bytesToText(bytes: Uint8Array): Text {
  return utf8Text(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.length) ?? bytes;
}

/** 2^(8n-1): where an n-byte integer's negative values start, by n (1 to 6). */
export const HALF = [0, 2 ** 7, 2 ** 15, 2 ** 23, 2 ** 31, 2 ** 39, 2 ** 47];

/** Readers made so far: each one's serial number. */
let readers = 0;

/**
 * A cursor over a bounded window of a byte array. Fixed-size reads (`u8` … `i64be`) do not check bounds:
 * generated decoders call `need` once for each run of fixed-size fields. Variable-size reads check
 * themselves and take the schema path to name in the error.
 */
export class Reader {
  readonly buf: Uint8Array;
  readonly dv: DataView;
  pos: number;
  end: number;
  /** Absolute file offset of `buf[0]`, so errors name positions in the file, not in this buffer. */
  readonly base: number;
  /** The unused bits of the last bitmap read, where they were kept rather than refused. */
  spare = 0;
  /** This reader's number, by which a cache can know it without keeping it (and its bytes) alive. */
  readonly serial = ++readers;
  /** A Node Buffer over `buf`, made on the first `text`: one native UTF-8 slice per value, no view each. */
  private node: Buffer | undefined = undefined;

  constructor(buf: Uint8Array, start = 0, end = buf.length, base = 0, dv?: DataView) {
    this.buf = buf;
    this.dv = dv ?? new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.end = end;
    this.base = base;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Absolute file offset of the cursor. */
  get offset(): number {
    return this.base + this.pos;
  }

  need(n: number, path: string): void {
    if (this.end - this.pos < n) {
      throw new TruncatedError(`need ${n} bytes, ${this.end - this.pos} left`, {
        offset: this.offset,
        schemaPath: path,
      });
    }
  }

  /** Checks a length read from the input before anything is allocated or looped over for it. */
  length(n: number, path: string): number {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new LengthError(`impossible length ${n}`, { offset: this.offset, schemaPath: path });
    }
    if (n > this.end - this.pos) {
      throw new LengthError(`length ${n} runs past the end (${this.end - this.pos} bytes left)`, {
        offset: this.offset,
        schemaPath: path,
      });
    }
    return n;
  }

  /** A child reader over the next `n` bytes; this reader moves past them. */
  sub(n: number, path: string): Reader {
    this.length(n, path);
    const child = new Reader(this.buf, this.pos, this.pos + n, this.base, this.dv);
    this.pos += n;
    return child;
  }

  bytes(n: number, path: string): Uint8Array {
    this.length(n, path);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The next `n` bytes as text, as `bytesToText` gives it, read in place. */
  text(n: number, path: string): Text {
    this.length(n, path);
    const start = this.pos;
    this.pos += n;
    const node = (this.node ??= Buffer.from(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
    return utf8Text(node, start, start + n) ?? this.buf.subarray(start, start + n);
  }

  /** A structure read from a window of its own must use all of it: a byte left over would be lost. */
  done(path: string): void {
    if (this.pos !== this.end) {
      throw new SchemaCheckError(`${this.end - this.pos} bytes left unread`, { offset: this.offset, schemaPath: path });
    }
  }

  rest(): Uint8Array {
    const out = this.buf.subarray(this.pos, this.end);
    this.pos = this.end;
    return out;
  }

  /** Bytes up to a NUL, which is consumed but not returned. */
  cstring(path: string): Uint8Array {
    const at = this.buf.indexOf(0, this.pos);
    if (at < 0 || at >= this.end) {
      throw new TruncatedError('no NUL terminator before the end', { offset: this.offset, schemaPath: path });
    }
    const out = this.buf.subarray(this.pos, at);
    this.pos = at + 1;
    return out;
  }

  /**
   * A fixed-size NUL-padded string. When everything after the first NUL is padding the value is the text
   * before it; otherwise the whole field is kept as bytes so that encoding gives it back exactly.
   */
  padded(n: number, path: string): Text {
    const raw = this.bytes(n, path);
    const nul = raw.indexOf(0);
    if (nul < 0) return bytesToText(raw);
    for (let i = nul + 1; i < n; i++) if (raw[i] !== 0) return raw;
    const text = bytesToText(raw.subarray(0, nul));
    return typeof text === 'string' ? text : raw;
  }

  /** MySQL's length-encoded integer, as a number: a larger value cannot be a length in a real event. */
  packed(path: string): number {
    const at = this.offset;
    const v = this.packedBig(path);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new LengthError(`packed integer ${v} is too large`, { offset: at, schemaPath: path });
    }
    return Number(v);
  }

  /** MySQL's length-encoded integer: < 0xFB itself; 0xFC + 2 bytes; 0xFD + 3; 0xFE + 8. 0xFB and 0xFF are invalid. */
  packedBig(path: string): bigint {
    this.need(1, path);
    const first = this.buf[this.pos]!;
    if (first < 0xfb) {
      this.pos++;
      return BigInt(first);
    }
    const width = first === 0xfc ? 2 : first === 0xfd ? 3 : first === 0xfe ? 8 : 0;
    if (width === 0) {
      throw new InvalidValueError(`0x${first.toString(16)} does not start a packed integer`, {
        offset: this.offset,
        schemaPath: path,
      });
    }
    this.need(1 + width, path);
    const at = this.offset;
    this.pos++;
    const v = width === 8 ? this.u64() : BigInt(width === 2 ? this.u16() : this.u24());
    // Servers write the shortest form; a longer one would not survive re-encoding, so it is refused.
    if (v < PACKED_MIN[width]!) {
      throw new InvalidValueError(`packed integer ${v} in a ${width + 1}-byte form`, { offset: at, schemaPath: path });
    }
    return v;
  }

  /**
   * MySQL 8.3's serialization varint: the trailing 1-bits of the first byte, plus one, are the byte
   * count n, and the n bytes little-endian hold (value << n) | (2^(n-1) - 1); 0xFF starts a raw 8-byte
   * value. (libs/mysql/serialization/variable_length_integers.h.)
   */
  varint(path: string): number {
    const at = this.offset;
    const v = this.varintBig(path);
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new LengthError(`varint ${v} is too large`, { offset: at, schemaPath: path });
    return Number(v);
  }

  /** The serialization varint as a bigint: any unsigned 64-bit value. */
  varintBig(path: string): bigint {
    this.need(1, path);
    const at = this.offset;
    const first = this.buf[this.pos]!;
    let n = 1;
    while (n < 9 && first & (1 << (n - 1))) n++;
    this.need(n, path);
    let v: bigint;
    if (n === 9) {
      this.pos++;
      v = this.u64();
    } else {
      // In bigints: seven or eight bytes hold more than a number keeps exactly.
      let raw = 0n;
      for (let i = n - 1; i >= 0; i--) raw = (raw << 8n) | BigInt(this.buf[this.pos + i]!);
      this.pos += n;
      v = raw >> BigInt(n);
    }
    if (varintWidth(v) !== n)
      throw new InvalidValueError(`varint ${v} in a ${n}-byte form`, { offset: at, schemaPath: path });
    return v;
  }

  /** A signed serialization varint: the sign in the lowest bit, the magnitude (less one if negative) above. */
  zigzag(path: string): bigint {
    const u = this.varintBig(path);
    return u & 1n ? -(u >> 1n) - 1n : u >> 1n;
  }

  /** Bytes stored one serialization varint each (a UUID in MySQL's serialization format). */
  varintBytes(n: number, path: string): Uint8Array {
    this.length(n, path);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const at = this.offset;
      const v = this.varint(path);
      if (v > 0xff) throw new InvalidValueError(`byte value ${v}`, { offset: at, schemaPath: path });
      out[i] = v;
    }
    return out;
  }

  /**
   * Whether the next field of an id-keyed list is field `id` (ids are packed integers, or serialization
   * varints when `serial`); it is consumed if so. Nothing left, or another id, means the field is absent.
   */
  key(id: number, serial: boolean, path: string): boolean {
    if (this.pos >= this.end) return false;
    const pos = this.pos;
    if ((serial ? this.varintBig(path) : this.packedBig(path)) === BigInt(id)) return true;
    this.pos = pos;
    return false;
  }

  u8(): number {
    return this.buf[this.pos++]!;
  }
  i8(): number {
    return (this.buf[this.pos++]! << 24) >> 24;
  }
  u16(): number {
    const v = this.dv.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  i16(): number {
    const v = this.dv.getInt16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u24(): number {
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 3;
    return b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
  }
  i24(): number {
    return (this.u24() << 8) >> 8;
  }
  u32(): number {
    const v = this.dv.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i32(): number {
    const v = this.dv.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u40(): number {
    const lo = this.u32();
    return lo + this.u8() * 0x1_0000_0000;
  }
  i40(): number {
    const lo = this.u32();
    return lo + this.i8() * 0x1_0000_0000;
  }
  u48(): number {
    const lo = this.u32();
    return lo + this.u16() * 0x1_0000_0000;
  }
  i48(): number {
    const lo = this.u32();
    return lo + this.i16() * 0x1_0000_0000;
  }
  u56(): bigint {
    const lo = this.u32();
    return BigInt(lo) | (BigInt(this.u24()) << 32n);
  }
  i56(): bigint {
    return BigInt.asIntN(56, this.u56());
  }
  u64(): bigint {
    const v = this.dv.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    const v = this.dv.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  u16be(): number {
    const v = this.dv.getUint16(this.pos, false);
    this.pos += 2;
    return v;
  }
  i16be(): number {
    const v = this.dv.getInt16(this.pos, false);
    this.pos += 2;
    return v;
  }
  u24be(): number {
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 3;
    return (b[p]! << 16) | (b[p + 1]! << 8) | b[p + 2]!;
  }
  i24be(): number {
    return (this.u24be() << 8) >> 8;
  }
  u32be(): number {
    const v = this.dv.getUint32(this.pos, false);
    this.pos += 4;
    return v;
  }
  i32be(): number {
    const v = this.dv.getInt32(this.pos, false);
    this.pos += 4;
    return v;
  }
  u40be(): number {
    const hi = this.u8();
    return hi * 0x1_0000_0000 + this.u32be();
  }
  i40be(): number {
    const hi = this.i8();
    return hi * 0x1_0000_0000 + this.u32be();
  }
  u48be(): number {
    const hi = this.u16be();
    return hi * 0x1_0000_0000 + this.u32be();
  }
  i48be(): number {
    const hi = this.i16be();
    return hi * 0x1_0000_0000 + this.u32be();
  }
  u56be(): bigint {
    const hi = this.u24be();
    return (BigInt(hi) << 32n) | BigInt(this.u32be());
  }
  i56be(): bigint {
    return BigInt.asIntN(56, this.u56be());
  }
  u64be(): bigint {
    const v = this.dv.getBigUint64(this.pos, false);
    this.pos += 8;
    return v;
  }
  i64be(): bigint {
    const v = this.dv.getBigInt64(this.pos, false);
    this.pos += 8;
    return v;
  }

  f32(): number {
    const v = this.dv.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64(): number {
    const v = this.dv.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  // Integers whose width a column's metadata gives: the caller has checked the bytes are there (need).

  /** An unsigned big-endian integer of `n` bytes (0 to 6). */
  uintBe(n: number): number {
    let v = 0;
    for (const end = this.pos + n; this.pos < end; this.pos++) v = v * 256 + this.buf[this.pos]!;
    return v;
  }
  /** An unsigned little-endian integer of `n` bytes (0 to 6). */
  uintLe(n: number): number {
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + this.buf[this.pos + i]!;
    this.pos += n;
    return v;
  }
  /** An unsigned big-endian integer of `n` bytes (0 to 8), as a bigint. */
  bigBe(n: number): bigint {
    let v = 0n;
    for (const end = this.pos + n; this.pos < end; this.pos++) v = (v << 8n) | BigInt(this.buf[this.pos]!);
    return v;
  }
  /** An unsigned little-endian integer of `n` bytes (0 to 8), as a bigint. */
  bigLe(n: number): bigint {
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.buf[this.pos + i]!);
    this.pos += n;
    return v;
  }
  /** A little-endian integer of `n` bytes (1 to 4, or 8 as a bigint), two's complement when `signed`. */
  intLe(n: number, signed: boolean): number | bigint {
    if (n === 8) return signed ? this.i64() : this.u64();
    const v = n === 1 ? this.u8() : n === 2 ? this.u16() : n === 3 ? this.u24() : this.u32();
    return signed && v >= HALF[n]! ? v - 2 * HALF[n]! : v;
  }

  /**
   * intLe, but an 8-byte value that is a safe integer as a number, which JSON writes as it writes the
   * bigint (the cells' JSON writers): no bigint made for most values.
   */
  intLeSafe(n: number, signed: boolean): number | bigint {
    if (n !== 8) return this.intLe(n, signed);
    const high = signed ? this.dv.getInt32(this.pos + 4, true) : this.dv.getUint32(this.pos + 4, true);
    // |high| below 2^21: the value is within ±(2^53 - 1).
    if (high <= -0x200000 || high >= 0x200000) return this.intLe(n, signed);
    const v = high * 0x100000000 + this.dv.getUint32(this.pos, true);
    this.pos += 8;
    return v;
  }

  /**
   * A value's length before it, little-endian in `width` bytes (1 to 6): the 1- and 2-byte lengths of strings without a
   * loop.
   */
  lengthBefore(width: number, path: string): number {
    if (width === 1 && this.pos < this.end) return this.buf[this.pos++]!;
    if (width === 2 && this.end - this.pos >= 2) return this.u16();
    return this.uint(width, path);
  }

  /** An unsigned little-endian integer of `n` bytes (1 to 6), `n` known only at run time. */
  uint(n: number, path: string): number {
    // The test is written so that a width the metadata did not give (undefined, NaN) fails it too.
    if (!(n >= 1 && n <= 6)) {
      throw new InvalidValueError(`an integer of ${n} bytes`, { offset: this.offset, schemaPath: path });
    }
    this.need(n, path);
    return this.uintLe(n);
  }

  /**
   * A bitmap of `bits` bits: by default the least significant bit of the first byte first, as the row
   * images' bitmaps are; `msb` for the most significant first, as TABLE_MAP's optional metadata has them.
   * Unused bits of the last byte must be clear, unless `keepSpare`: then they are left in `spare`.
   */
  bitmap(bits: number, path: string, msb = false, keepSpare = false): boolean[] {
    const n = this.length((bits + 7) >>> 3, path);
    const out = new Array<boolean>(bits);
    const b = this.buf;
    const p = this.pos;
    for (let i = 0; i < bits; i++) out[i] = (b[p + (i >>> 3)]! & (msb ? 0x80 >>> (i & 7) : 1 << (i & 7))) !== 0;
    const spare = msb ? b[p + n - 1]! & (0xff >>> (bits & 7)) : b[p + n - 1]! >>> (bits & 7);
    this.spare = bits & 7 ? spare : 0;
    if (this.spare && !keepSpare) {
      // Servers zero the spare bits; a set one would be lost on the way back, so it is refused instead.
      throw new InvalidValueError(`spare bits set after bit ${bits} of a bitmap`, {
        offset: this.offset + n - 1,
        schemaPath: path,
      });
    }
    this.pos = p + n;
    return out;
  }
}
