/** Which change a rows event makes, as the SQL tools and the sinks both name it. */

export type RowKind = 'write' | 'update' | 'delete';

/** Which change a rows event's rows are (undefined for other events); PARTIAL_UPDATE_ROWS updates. */
export function rowKind(type: string): RowKind | undefined {
  const m = /^(?:PRE_GA_)?(WRITE|UPDATE|DELETE|PARTIAL_UPDATE)_ROWS/.exec(type);
  if (!m) return undefined;
  return m[1] === 'WRITE' ? 'write' : m[1] === 'DELETE' ? 'delete' : 'update';
}
