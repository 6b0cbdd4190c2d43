/**
 * BIT, ENUM and SET cells.
 */
import { EncodeError } from '../core/errors.js';
import { sameBytes, type Text } from '../core/reader.js';
import type { Column } from './column.js';
import { type CellCodec, expect, isBig, isTextValue, num } from './cell-codec.js';

function bitBytes(c: Column): number {
  return num(c, 'wholeBytes') + (num(c, 'bitsInLastByte') ? 1 : 0);
}

export const bit: CellCodec = {
  reader(c, path) {
    return (r) => {
      const n = bitBytes(c);
      r.need(n, path);
      let v = 0n;
      for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(r.u8());
      return v;
    };
  },
  writer(c, path) {
    return (w, v) => {
      let b = BigInt(expect(v, isBig, 'an integer', path));
      if (b < 0n || b >= 1n << BigInt(num(c, 'bits'))) throw new EncodeError(`${b} does not fit BIT(${num(c, 'bits')})`, path);
      const n = bitBytes(c);
      const out = new Uint8Array(n);
      for (let i = n - 1; i >= 0; i--, b >>= 8n) out[i] = Number(b & 0xffn);
      w.bytes(out);
    };
  },
};

/** ENUM and SET store their byte size in the STRING metadata's length byte. */
const packLength = (c: Column) => (c.meta.maxLength as number | undefined) ?? 1;

export const enumCodec: CellCodec = {
  reader(c, path) {
    const [n, members] = [packLength(c), c.members ?? []];
    return (r) => {
      r.need(n, path);
      const index = n === 1 ? r.u8() : r.u16();
      const name = index > 0 ? members[index - 1] : undefined;
      return name === undefined ? index : name;
    };
  },
  writer(c, path) {
    const members = c.members ?? [];
    // Each member name's index, the first where names repeat (as findIndex gives it); bytes are compared.
    const named = new Map<string, number>();
    members.forEach((m, i) => typeof m === 'string' && !named.has(m) && named.set(m, i + 1));
    const one = packLength(c) === 1;
    return (w, v) => {
      let index: number;
      if (typeof v === 'number') index = v;
      else {
        const text = expect(v, isTextValue, 'a member name or index', path);
        index = (typeof text === 'string' ? named.get(text) : members.findIndex((m) => sameText(m, text)) + 1) ?? 0;
        if (index === 0) throw new EncodeError(`'${String(text)}' is not a member`, path);
      }
      if (one) w.u8(index);
      else w.u16(index);
    };
  },
};

function sameText(a: Text, b: Text): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return sameBytes(a, b);
}

export const set: CellCodec = {
  reader(c, path) {
    return (r) => {
      const n = packLength(c);
      r.need(n, path);
      let mask = 0n;
      for (let i = 0; i < n; i++) mask |= BigInt(r.u8()) << BigInt(8 * i);
      const members = c.members;
      if (!members || mask >> BigInt(members.length)) return n > 6 ? mask : Number(mask);
      return members.filter((_, i) => (mask >> BigInt(i)) & 1n);
    };
  },
  writer(c, path) {
    return (w, v) => {
      let mask: bigint;
      if (Array.isArray(v)) {
        mask = 0n;
        for (const name of v as Text[]) {
          const i = (c.members ?? []).findIndex((m) => sameText(m, name));
          if (i < 0) throw new EncodeError(`'${String(name)}' is not a member`, path);
          mask |= 1n << BigInt(i);
        }
      } else mask = BigInt(expect(v, isBig, 'member names or a bitmask', path));
      for (let i = 0; i < packLength(c); i++, mask >>= 8n) w.u8(Number(mask & 0xffn));
    };
  },
};
