/**
 * Text in the multi-byte character sets, checked code by code against a real MariaDB server. Every code
 * from 80 — each byte alone, each two-byte sequence, and for ujis and eucjpms each three-byte 8F
 * sequence with bytes from 80 — goes into a column of the charset, one row each, through the server's
 * own conversion (non-strict, so what it cannot store becomes '?'). Then its valid codes go in again,
 * a few long strings of them per charset. Each decoded cell must be the text the server converts the
 * stored bytes to (HEX(CONVERT(v USING utf8mb4))) when those bytes are that text's own bytes, and the
 * stored bytes otherwise; every file encodes back to identical bytes, directly and through the dump's JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BinlogEvent, eventFromJson } from '../runtime/events/event-codec.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import { decodeBinlog, encodeBinlog } from '../runtime/io/stream.js';
import { describeWithServer, type MariadbServer, startMariadb } from './support/mariadb.js';
import { expectRoundTrip, fromHex, rowEvents, toHex } from './support/rows.js';
import type { RowChange } from '../runtime/core/values.js';

const TIMEOUT = 180_000;
const DB = 'mb';
/** The charsets decoded through the servers' tables, and euckr, which iconv-lite decodes. */
const CHARSETS = ['sjis', 'cp932', 'ujis', 'eucjpms', 'big5', 'gbk', 'gb2312', 'euckr'];
const THREE_BYTE = new Set(['ujis', 'eucjpms']);
/** How many characters from 80 each has in the server's tables (strings/ctype-*.c, read as its mb_wc reads bytes). */
const CHARACTERS: Record<string, number> = {
  sjis: 6942,
  cp932: 9667,
  ujis: 14889,
  eucjpms: 15078,
  big5: 13717,
  gbk: 21791,
  gb2312: 7445,
  euckr: 17048,
};
/** Codes per long string. */
const CHUNK = 1000;

/**
 * Every candidate code, as the SEQUENCE engine's numbers: 80-FF, 8000-FFFF, and 8F8000-8FFFFF where three-byte codes
 * exist.
 */
const candidates = (cs: string) =>
  ['seq_128_to_255', 'seq_32768_to_65535', ...(THREE_BYTE.has(cs) ? ['seq_9404416_to_9437183'] : [])]
    .map((t) => `SELECT seq FROM ${DB}.${t}`)
    .join(' UNION ALL ');

/**
 * One stored value and the server's account of it, all in hex: its text as UTF-8, and that text written back in the
 * charset.
 */
interface Stored {
  bytes: string;
  text: string;
  back: string;
}
const readBack = (table: string, cs: string) =>
  `SELECT id, HEX(v), HEX(CONVERT(v USING utf8mb4)), ` +
  `HEX(CONVERT(CONVERT(v USING utf8mb4) USING ${cs})) FROM ${DB}.${table} ORDER BY id`;
const storedRows = (rows: (string | null)[][]) =>
  new Map(rows.map(([id, bytes, text, back]) => [Number(id), { bytes: bytes!, text: text!, back: back! }]));

const utf8 = new TextDecoder('utf-8', { fatal: true });
const codePoints = (hexUtf8: string) => [...utf8.decode(fromHex(hexUtf8))];
const count = (s: string, sub: string) => s.split(sub).length - 1;
/** Hex pairs of a hex string that are 3F ('?'), at byte boundaries. */
const questionMarks = (hex: string) => (hex.match(/../g) ?? []).filter((b) => b === '3F').length;

/**
 * What a stored value decodes to: the server's text when it converted every character (no '?' of its
 * own) and writing that text back gives the stored bytes — ASCII characters as their ASCII byte, the
 * one rule of ours (sjis writes '\' as 81 5F); 'hex:…' for the stored bytes otherwise.
 */
function expected(s: Stored, writes: Map<string, string>): string {
  const chars = codePoints(s.text);
  const failed = count(chars.join(''), '?') > questionMarks(s.bytes);
  const written = chars
    .map((ch) => (ch.codePointAt(0)! < 0x80 ? toHex(Uint8Array.of(ch.codePointAt(0)!)) : writes.get(ch)))
    .join('');
  return !failed && written === s.bytes ? chars.join('') : `hex:${s.bytes}`;
}

/** What the server writes each non-ASCII character as, from the stored values that are one character. */
function serverWrites(stored: Iterable<Stored>): Map<string, string> {
  const writes = new Map<string, string>();
  for (const s of stored) {
    const chars = codePoints(s.text);
    if (chars.length === 1 && chars[0]!.codePointAt(0)! >= 0x80) writes.set(chars[0]!, s.back);
  }
  return writes;
}

type Cell = string | Uint8Array;
const norm = (v: Cell) => (typeof v === 'string' ? v : `hex:${toHex(v)}`);
const spell = (v: string) =>
  v.startsWith('hex:')
    ? `bytes ${v.slice(4)}`
    : [...v].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

/** The decoded `v` of each inserted row of a table, by id. */
function decodedCells(events: BinlogEvent[], table: string): Map<number, Cell> {
  const writes = rowEvents(events).filter((e) => e.table === `${DB}.${table}` && e.type.startsWith('WRITE_ROWS'));
  return new Map(
    writes.flatMap((e) => (e.rows as RowChange[]).map((c) => [c.after!.id as number, c.after!.v as Cell] as const)),
  );
}

/** A long string of codes: their hex, in order, and whether the string decodes to text. */
interface Long {
  codes: string[];
  text: boolean;
}

interface Survey {
  /** Each candidate code's row, by the code. */
  codes: Map<number, Stored>;
  /** How many of them are a character of the charset to the server. */
  characters: number;
  long: Map<number, Stored>;
  longCodes: Map<number, Long>;
}

/**
 * Every candidate code in a row of its own; then its characters as long strings, those that decode to text apart from
 * the others.
 */
async function survey(server: MariadbServer, cs: string): Promise<Survey> {
  await server.sql(
    `SET SESSION sql_mode = ''; CREATE TABLE ${DB}.codes_${cs} (id INT PRIMARY KEY, v VARCHAR(3) CHARACTER SET ${cs});
     INSERT INTO ${DB}.codes_${cs} SELECT seq, UNHEX(HEX(seq)) FROM (${candidates(cs)}) AS c;`,
  );
  const codes = storedRows(await server.query(readBack(`codes_${cs}`, cs)));
  const writes = serverWrites(codes.values());
  // A character: stored as it is and converted to one character that is not the server's '?'.
  const characters = [...codes].filter(
    ([id, s]) => s.bytes === id.toString(16).toUpperCase() && s.text !== '3F' && codePoints(s.text).length === 1,
  );
  const longCodes = new Map<number, Long>();
  for (const text of [true, false]) {
    const group = characters
      .filter(([, s]) => !expected(s, writes).startsWith('hex:') === text)
      .map(([, s]) => s.bytes);
    for (let i = 0; i < group.length; i += CHUNK)
      longCodes.set(longCodes.size + 1, { codes: group.slice(i, i + CHUNK), text });
  }
  const values = [...longCodes].map(([id, l]) => `(${id}, x'${l.codes.join('')}')`).join(', ');
  await server.sql(
    `CREATE TABLE ${DB}.long_${cs} (id INT PRIMARY KEY, v MEDIUMTEXT CHARACTER SET ${cs}); ` +
      `INSERT INTO ${DB}.long_${cs} VALUES ${values};`,
  );
  return {
    codes,
    characters: characters.length,
    long: storedRows(await server.query(readBack(`long_${cs}`, cs))),
    longCodes,
  };
}

describeWithServer('MariaDB multi-byte character sets', () => {
  let server: MariadbServer;
  let files: { path: string; bytes: Buffer }[];
  /** Each file's events, decoded once. */
  let decoded: BinlogEvent[][];
  let events: BinlogEvent[];
  const surveys = new Map<string, Survey>();

  beforeAll(async () => {
    server = await startMariadb();
    try {
      await server.sql(`CREATE DATABASE ${DB}`);
      await Promise.all(CHARSETS.map(async (cs) => surveys.set(cs, await survey(server, cs))));
      await server.flushLogs();
    } finally {
      files = await server.stopAndReadBinlogs();
    }
    decoded = files.map((f) => decodeBinlog(f.bytes));
    events = decoded.flat();
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
  }, TIMEOUT);

  describe("every code decodes to the server's text, or to its bytes where that text would not give them back", () => {
    for (const cs of CHARSETS) {
      it(cs, () => {
        const { codes } = surveys.get(cs)!;
        const writes = serverWrites(codes.values());
        const cells = decodedCells(events, `codes_${cs}`);
        expect(cells.size).toBe(codes.size);
        const wrong = [...codes].flatMap(([id, s]) => {
          const got = norm(cells.get(id)!);
          const want = expected(s, writes);
          return got === want ? [] : [`${s.bytes}: ${spell(got)}, the server's: ${spell(want)}`];
        });
        expect(wrong.slice(0, 20), `${wrong.length} of ${codes.size} codes`).toEqual([]);
        // As many characters as the server's tables have (strings/ctype-*.c), so none was lost on the way in.
        expect(surveys.get(cs)!.characters).toBe(CHARACTERS[cs]);
      });
    }
  });

  describe("long strings of every valid code decode code by code to the server's text", () => {
    for (const cs of CHARSETS) {
      it(cs, () => {
        const { long, longCodes } = surveys.get(cs)!;
        const cells = decodedCells(events, `long_${cs}`);
        const wrong: string[] = [];
        for (const [id, s] of long) {
          const { codes, text } = longCodes.get(id)!;
          expect(s.bytes, 'the server stored every code').toBe(codes.join(''));
          const got = cells.get(id)!;
          if (!text) {
            // Codes that each decode to bytes make bytes together.
            expect(norm(got)).toBe(`hex:${s.bytes}`);
            continue;
          }
          const mine = typeof got === 'string' ? [...got] : [];
          const server = codePoints(s.text);
          expect(mine.length, `row ${id}: one character per code`).toBe(codes.length);
          codes.forEach((h, i) => {
            if (mine[i] !== server[i]) wrong.push(`${h}: ${spell(mine[i]!)}, the server's: ${spell(server[i]!)}`);
          });
        }
        expect(wrong.slice(0, 20), `${wrong.length} codes`).toEqual([]);
      });
    }
  });

  it(
    "every binlog file encodes back to identical bytes, also through the dump's JSON",
    () => {
      files.forEach((f, n) => {
        expectRoundTrip([f], () => encodeBinlog(decoded[n]!));
        expectRoundTrip([f], () =>
          encodeBinlog(decoded[n]!.map((e, i) => eventFromJson(JSON.parse(toJsonLine(e)), `event ${i + 1}`))),
        );
      });
    },
    TIMEOUT,
  );
});
