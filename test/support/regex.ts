/**
 * One pattern from parts that each are a whole pattern, so that a long one can be written over several lines;
 * it takes the flags of the first part.
 */
export function joinedRegExp(...parts: RegExp[]): RegExp {
  return new RegExp(parts.map((p) => p.source).join(''), parts[0]?.flags);
}
