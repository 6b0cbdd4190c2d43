/**
 * The number literals each module of runtime/values/ and runtime/rows/ may hold (issue 13), with the
 * reason each is no fact of the binlog: test/format-facts.test.ts fails on a literal not listed here and on
 * a module not listed at all, so that a new number in those folders is placed knowingly, in a schema when
 * it is a fact of the format. It measures nothing: scripts/count-format-lines.ts counts those modules whole.
 */

/** The text 'YYYY-MM-DD hh:mm:ss.ffffff': its character positions and lengths, and ASCII. */
const DATETIME_TEXT = ['1', '2', '3', '4', '5', '7', '8', '11', '13', '14', '16', '17', '19', '20'];
const ASCII = {
  '0x30': "'0'",
  '0x2d': "'-'",
  '0x20': "' '",
  '0x3a': "':'",
  '0x2e': "'.'",
  '0x22': "a JSON string's quote",
};
const JSON_PUNCTUATION = {
  '0x2c': "JSON's ','",
  '0x7b': "JSON's '{'",
  '0x7d': "JSON's '}'",
  '0x5b': "JSON's '['",
  '0x5d': "JSON's ']'",
};

/** Per helper module (its path under runtime/), the number literals it may hold and why. */
export const HELPERS: Record<string, Record<string, string>> = {
  'values/temporal.ts': {
    ...Object.fromEntries(DATETIME_TEXT.map((n) => [n, 'a position or a length in the datetime text'])),
    ...ASCII,
    '0': 'zero',
    '6': 'the six digits of microseconds',
    '10': 'decimal digits',
    '100': 'two decimal digits',
    '10000': 'four decimal digits',
    '1000': 'milliseconds per second (Date)',
    '12': 'the months of a year',
    '31': 'the most days a month has',
    '23': 'the last hour of a day',
    '59': 'the last minute of an hour and second of a minute',
    '28': "the bytes of a datetime's text as a JSON string, its quotes with it",
  },
  'values/numbers.ts': {
    '0': 'zero',
    '1': 'the fewest digits tried',
    '10': 'past the 9 digits a float32 needs',
    '8': 'bits in a byte',
    '0n': 'zero',
    '1n': 'one bit',
    '2': 'log2 of the bytes of an IEEE 754 float32',
    '4': 'the bytes of an IEEE 754 float32',
  },
  'values/bits-and-sets.ts': {
    '0': 'zero',
    '1': '1-based member indexes',
    '0n': 'no bits',
    '1n': 'one bit',
    '6': 'bytes a JavaScript number holds exactly',
  },
  'values/digits.ts': { '0x30': "'0'", '0': 'zero', '1': 'one', '9': 'the last decimal digit', '10': 'decimal digits' },
  'values/decimal.ts': {
    '0': 'zero',
    '1': 'one',
    '2': 'the groups a whole part of at most 15 digits takes',
    '8': 'bits in a byte',
    '10': 'decimal digits',
    '15': 'the decimal digits a double holds exactly',
    '256': 'the values of a byte',
    '0x2d': ASCII['0x2d'],
    '0x30': ASCII['0x30'],
  },
  // MariaDB's column compression is core/compression.ts's.
  'values/strings.ts': { '0': 'zero', '1': 'one' },
  'values/cells.ts': {},
  'values/cell-codec.ts': {},
  'values/column.ts': {},
  // Each custom type's data is its JsonbCustomData cell's (json-binary.yaml, cells.yaml jsonDecimal and the packed
  // temporals).
  'values/binary-json.ts': {
    '0': 'zero: an empty blob (what NULL leaves); the index of the stand-in column a custom type is read as',
  },
  // The JSON column's blob is cells.yaml's, the diffs' layout rows.yaml's JsonDiffs: documents and text are left here.
  'values/json-cells.ts': { '0': 'zero: an empty blob (what NULL leaves), bytes read from their start' },
  // Charset conversion, which issue 13 leaves to TypeScript: the servers' tables are schemas/charset-tables.yaml's
  // and multibyte-charsets.yaml's, each charset's encoding charsets.yaml's.
  'values/charsets.ts': {
    '0': 'zero: no character in a table, U+0000',
    '1': 'a code of one byte',
    '2': 'a code of two bytes',
    '3': 'a code of three bytes',
    '8': 'bits in a byte',
    '0x80': 'the first code point past ASCII',
    '0xff': 'the largest code of one byte',
    '256': 'the values of a byte',
    '0xffff': 'the largest code of two bytes',
    '0x10000': 'the codes of at most two bytes, and the code points of the BMP',
    '60': 'the characters of a value an error quotes',
  },
  // The null bitmap and a change's parts are rows.yaml's rowImages (generated walkRowChange and null-bitmap
  // helpers); the values each column's cell.
  'rows/images.ts': {
    '0': 'zero',
    '1': 'one',
    '64': 'the most layouts kept per table (a bound on memory, not a fact)',
  },
  // Where each null bit is comes from rows.yaml's rowImages (generated nullByte and nullBitMask).
  'rows/image-code.ts': {
    '0': 'zero',
    '1': 'one',
    '2': "EXTRA_KEYS (-2), one of the write's answers beside -1 (a code of ours, not a fact)",
    '256': 'the most lists of columns whose code is kept (a bound on memory, not a fact)',
    ...JSON_PUNCTUATION,
  },
  'rows/json-rows.ts': {
    '0': 'zero',
    '1': 'one',
    '10': "the held image's first buffer size, 1 << 10 bytes",
    ...JSON_PUNCTUATION,
  },
  'rows/lazy.ts': { '0': 'zero', '1': 'one' },
  'rows/row-tables.ts': {},
  // The search over the schema's fraction layouts (columns.yaml FractionLayouts, cells.yaml FRACTION_STEP).
  'rows/fractions.ts': {
    '0': 'zero',
    '1': 'one',
    '16': "a scratch writer's first size",
    '4096': 'the most choices one search tries (a bound on time, not a fact)',
  },
  // Rows v0's null bytes are rows.yaml's oldRowImages (generated oldNullBytesLayout and its bit helpers).
  'rows/v0.ts': {
    '0': 'zero: images of no null bytes',
    '8': "a scratch writer's room beyond the value it rewrites",
    '16': "a scratch writer's first size",
  },
  // Applying a diff to its document (what REPLACE, INSERT and REMOVE do, and MySQL's JSON path
  // syntax); the diffs' bytes are rows.yaml's JsonDiffs.
  'rows/json-diff.ts': { '0': 'zero', '1': 'one', '10': 'decimal digits of an array index' },
};

/** The folders under runtime/ whose every module HELPERS lists. */
export const VALUE_FOLDERS = ['values', 'rows'];
