/**
 * Decimal digits in text, both ways, for the values that are written as digits (DECIMAL, the temporal
 * types, binary JSON's opaque scalars): a number padded to its width, and ASCII digits checked or read in
 * place, where a regular expression would make a match array and a string per field.
 */

/** "", "0", … nine zeros: a pad of each width without repeat() per value. */
export const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000', '000000000'];

/** n in at least `width` digits. */
export const pad = (n: number, width: number) => {
  const s = String(n);
  return s.length >= width ? s : ZEROS[width - s.length]! + s;
};

/** Whether text is ASCII digits from `from` to `to`. */
export function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return false;
  }
  return true;
}

/** The number that text's n ASCII digits from i write, or -1 where one is not a digit. */
export function digitsAt(text: string, i: number, n: number): number {
  let v = 0;
  for (const end = i + n; i < end; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return -1;
    v = v * 10 + digit;
  }
  return v;
}
