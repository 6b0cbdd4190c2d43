/**
 * The `covers:` of a TLV or tagged list's entries: which of a table's columns each entry's values are for
 * (TABLE_MAP's optional metadata: a SIGNEDNESS bit per numeric column, a COLUMN_CHARSET collation per
 * character column, …). The columns are the elements of an earlier list of their types in the same
 * struct; an entry covers every one (`all`), those whose type is listed (`[ColumnType.ENUM, …]`), or
 * those whose entry in a lookup keyed by the types has a key saying which servers count them
 * (`CellLayouts.numeric`: `both`, `mysql` or `mariadb`).
 */
import type { Origin, Pass } from './pass.js';
import type { Scope } from './expressions.js';
import { COVER_SERVERS, type IrCovers, type IrEnum, type IrLookup } from './types.js';

/** The enum of the columns' types: that of the last earlier field that lists enum values. */
export function columnTypes(pass: Pass, scope: Scope): IrEnum | undefined {
  let name: string | undefined;
  for (const f of scope.values())
    if ('path' in f && f.repeat && (f.type.kind === 'int' || f.type.kind === 'packed') && f.type.enum)
      name = f.type.enum;
  return name === undefined ? undefined : pass.ir.enums.get(name);
}

/** An entry's `covers:`, at `o` (the entry), over columns whose types are values of `types`. */
export function resolveCovers(
  pass: Pass,
  o: Origin,
  covers: string | string[],
  types: IrEnum | undefined,
  owner: string,
): IrCovers | undefined {
  if (!types) {
    pass.fail(
      o,
      ['covers'],
      "'covers' counts the columns of an earlier list of their types (a repeated field with an enum), " +
        `and '${owner}' has none`,
    );
    return undefined;
  }
  if (covers === 'all') return 'all';
  if (Array.isArray(covers)) return listed(pass, o, covers, types);
  return byLookupKey(pass, o, covers, types);
}

/** `[Enum.NAME, …]`: the same types under every server. */
function listed(pass: Pass, o: Origin, names: string[], types: IrEnum): IrCovers | undefined {
  const codes: number[] = [];
  names.forEach((ref, i) => {
    const [group, name] = ref.split('.') as [string, string];
    const code = types.values.find(([n]) => n === name)?.[1];
    if (group !== types.name)
      pass.fail(o, ['covers', i], `'${group}' is not '${types.name}', the enum of the columns' types`);
    else if (code === undefined) pass.fail(o, ['covers', i], `'${group}' has no value '${name}'`);
    else codes.push(code);
  });
  return codes.length === names.length
    ? (Object.fromEntries(COVER_SERVERS.map((s) => [s, codes])) as IrCovers)
    : undefined;
}

/** `Lookup.key`: the types whose entry holds `key`, under each server it names. */
function byLookupKey(pass: Pass, o: Origin, ref: string, types: IrEnum): IrCovers | undefined {
  const [lookupName, key] = ref.split('.') as [string, string];
  const lookup = pass.ir.lookups.find((l) => l.name === lookupName);
  if (!lookup) return fail(pass, o, `unknown lookup '${lookupName}'`);
  if (lookup.key !== types.name)
    return fail(
      pass,
      o,
      `lookup '${lookupName}' is keyed by ${lookup.key ?? 'numbers'}, not by ${types.name} (the columns' types)`,
    );
  const holding = lookup.entries.filter(([, , , v]) => v !== null && typeof v === 'object' && key in v);
  if (!holding.length) return fail(pass, o, `no value of lookup '${lookupName}' has the key '${key}'`);
  const bad = holding.find(([, , , v]) => !isServers(valueOf(v, key)));
  if (bad)
    return fail(
      pass,
      o,
      `${lookupName}.${bad[2]} has ${key}: ${JSON.stringify(valueOf(bad[3], key))}; ` +
        `a key that covers columns names the servers that count them: both, ${COVER_SERVERS.join(' or ')}`,
    );
  const covered = (server: string) =>
    holding.filter(([, , , v]) => [server, 'both'].includes(valueOf(v, key) as string)).map(([code]) => code);
  return Object.fromEntries(COVER_SERVERS.map((s) => [s, covered(s)])) as IrCovers;
}

function valueOf(v: IrLookup['entries'][number][3], key: string): unknown {
  return (v as Record<string, unknown>)[key];
}

function isServers(v: unknown): boolean {
  return v === 'both' || (COVER_SERVERS as readonly unknown[]).includes(v);
}

function fail(pass: Pass, o: Origin, problem: string): undefined {
  pass.fail(o, ['covers'], problem);
  return undefined;
}
