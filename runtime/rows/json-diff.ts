/**
 * Applying the JSON diffs of a PARTIAL_UPDATE_ROWS after image to the column's before document, as a
 * replica does (MySQL sql/json_diff.cc apply_json_diffs, which rejects what it cannot apply exactly).
 * A diff's path is the server's printed Json_path of members and array cells only: `$`, `.key`,
 * `."quoted key"`, `[n]` (and `[last]`, `[last-n]`). Each op acts on the node the path names:
 * - REPLACE: the node must exist; it gets the value.
 * - INSERT: the path's parent must exist. In an object the member must not exist yet; in an array the
 *   value goes in before cell n, or at the end when n is past it.
 * - REMOVE: the node must exist; it is taken out of its object or array.
 * No auto-wrapping: a member leg only enters an object, a cell leg only an array. The root itself
 * cannot be changed by a diff (the server logs the whole document then).
 */
import { BinlogError, EncodeError, type ErrorSite, InvalidValueError } from '../core/errors.js';
import { compareKeys, isJsonObject } from '../values/binary-json.js';
import type { CellValue, JsonCell, JsonDiff, JsonDiffCell, JsonTree, RowChange } from '../core/values.js';
import type { Column } from '../values/column.js';

/** An array cell leg, counted from the start, or back from `last`. */
type Cell = { cell: number; fromEnd: boolean };
/** One leg of a path: an object member or an array cell. */
type Leg = { member: string } | Cell;

type JsonObject = { [key: string]: JsonTree };

class Rejected extends Error {}

function reject(problem: string): never {
  throw new Rejected(problem);
}

/**
 * The document the diffs give, applied in order to `before` (which is left as it is). A diff that does
 * not apply gives an InvalidValueError at `site` naming the diff, its op and path.
 */
export function applyJsonDiff(
  before: JsonTree,
  diffs: readonly JsonDiff[],
  site: ErrorSite = { offset: -1 },
): JsonTree {
  let doc = before;
  diffs.forEach((d, i) => {
    try {
      doc = applyOne(doc, d);
    } catch (e) {
      if (!(e instanceof Rejected)) throw e;
      throw new InvalidValueError(`JSON diff ${i} (${d.op} ${d.path}): ${e.message}`, site);
    }
  });
  // Untouched subtrees are shared with `before` until here.
  return structuredClone(doc);
}

function applyOne(doc: JsonTree, d: JsonDiff): JsonTree {
  const legs = parsePath(d.path);
  if (legs.length === 0) reject('a diff cannot change the whole document');
  return edit(doc, legs, 0, operation(d));
}

function operation(d: JsonDiff): (parent: JsonTree, leg: Leg) => JsonTree {
  switch (d.op) {
    case 'REPLACE':
      return replace(d.value ?? null);
    case 'INSERT':
      return insert(d.value ?? null);
    case 'REMOVE':
      return remove;
    default:
      return reject(`unknown operation ${JSON.stringify(d.op)}`);
  }
}

/** The node with the change `op` makes to the parent of the path's last leg. */
function edit(node: JsonTree, legs: Leg[], at: number, op: (parent: JsonTree, leg: Leg) => JsonTree): JsonTree {
  const leg = legs[at]!;
  if (at === legs.length - 1) return op(node, leg);
  const next = child(node, leg);
  if (next === undefined) reject(`${describe(legs.slice(0, at + 1))} is not in the document`);
  return withChild(node, leg, edit(next, legs, at + 1, op));
}

const replace =
  (value: JsonTree) =>
  (parent: JsonTree, leg: Leg): JsonTree => {
    if (child(parent, leg) === undefined) reject('the path is not in the document');
    return withChild(parent, leg, value);
  };

const insert =
  (value: JsonTree) =>
  (parent: JsonTree, leg: Leg): JsonTree => {
    if (Array.isArray(parent) && 'cell' in leg) {
      const out = [...parent];
      out.splice(cellIndex(leg, parent.length).position, 0, value);
      return out;
    }
    if (isJsonObject(parent) && 'member' in leg) {
      if (Object.hasOwn(parent, leg.member)) reject('the member exists already');
      return objectOf([...Object.entries(parent), [leg.member, value]]);
    }
    return reject(
      `the parent is ${kind(parent)}, which ${'cell' in leg ? 'an array cell' : 'a member'} cannot go into`,
    );
  };

function remove(parent: JsonTree, leg: Leg): JsonTree {
  if (child(parent, leg) === undefined) reject('the path is not in the document');
  return 'cell' in leg
    ? without(parent as JsonTree[], leg)
    : objectOf(Object.entries(parent as JsonObject).filter(([k]) => k !== leg.member));
}

function without(array: JsonTree[], leg: Cell): JsonTree[] {
  const at = cellIndex(leg, array.length).position;
  return array.filter((_, i) => i !== at);
}

/** The node a leg leads to from `node`, if there is one. */
function child(node: JsonTree, leg: Leg): JsonTree | undefined {
  if (Array.isArray(node)) {
    if (!('cell' in leg)) return undefined;
    const at = cellIndex(leg, node.length);
    return at.within ? node[at.position] : undefined;
  }
  if (isJsonObject(node) && 'member' in leg && Object.hasOwn(node, leg.member)) return node[leg.member];
  return undefined;
}

/** A copy of the array or object `node` with its child at `leg` (which `child` found) set to `value`. */
function withChild(node: JsonTree, leg: Leg, value: JsonTree): JsonTree {
  if ('member' in leg)
    return objectOf(Object.entries(node as JsonObject).map(([k, v]) => [k, k === leg.member ? value : v]));
  const array = node as JsonTree[];
  const at = cellIndex(leg, array.length).position;
  return array.map((x, i) => (i === at ? value : x));
}

/** An object in MySQL's key order, as a decoded document has it (fromEntries keeps `__proto__` a key). */
function objectOf(entries: [string, JsonTree][]): JsonObject {
  return Object.fromEntries(entries.sort(([a], [b]) => compareKeys(a, b)));
}

/** Where a cell leg lands in an array of `size` (MySQL's Json_array_index). */
function cellIndex(leg: Cell, size: number): { position: number; within: boolean } {
  const within = leg.cell < size;
  if (leg.fromEnd) return { position: within ? size - leg.cell - 1 : 0, within };
  return { position: Math.min(leg.cell, size), within };
}

function kind(v: JsonTree): string {
  return Array.isArray(v) ? 'an array' : isJsonObject(v) ? 'an object' : 'a scalar';
}

// `.name`, `."quoted name"`, `[n]`, `[last]`, `[last - n]`.
const LEG =
  /\.(?:([A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)|("(?:[^"\\]|\\.)*"))|\[\s*(?:(\d+)|last(?:\s*-\s*(\d+))?)\s*\]/y;

/** The legs of a diff's path; anything but `$` and member and cell legs (wildcards, ranges) is refused. */
function parsePath(path: string): Leg[] {
  if (path[0] !== '$') reject('a path must start with $');
  const legs: Leg[] = [];
  LEG.lastIndex = 1;
  while (LEG.lastIndex < path.length) {
    const from = LEG.lastIndex;
    const m = LEG.exec(path);
    if (!m) return reject(`unexpected '${path.slice(from, from + 10)}' in the path (only members and array cells)`);
    const [, name, quoted, cell, back] = m;
    if (name !== undefined) legs.push({ member: name });
    else if (quoted !== undefined) legs.push({ member: unquote(quoted) });
    else if (cell !== undefined) legs.push({ cell: Number(cell), fromEnd: false });
    else legs.push({ cell: Number(back ?? 0), fromEnd: true });
  }
  return legs;
}

function unquote(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return reject(`${quoted} is not a valid quoted member name`);
  }
}

function describe(legs: Leg[]): string {
  return `$${legs.map(describeLeg).join('')}`;
}

function describeLeg(l: Leg): string {
  if ('member' in l) return `.${JSON.stringify(l.member)}`;
  return l.fromEnd ? `[last-${l.cell}]` : `[${l.cell}]`;
}

// ---- in row images ------------------------------------------------------------------------------------

const isDiffCell = (v: CellValue | undefined): v is JsonDiffCell => typeof v === 'object' && v !== null && 'diff' in v;
const isJsonCell = (v: CellValue | undefined): v is JsonCell => typeof v === 'object' && v !== null && 'json' in v;

/**
 * Gives each diff cell of a PARTIAL_UPDATE_ROWS after image its resulting document (`json`), where the
 * before image holds the column's document (binlog_row_image=FULL); with MINIMAL or NOBLOB images it
 * does not, and the cell keeps only its diff. `offset` is where the after image starts.
 */
export function addResultingJson(change: RowChange, columns: Iterable<Column>, offset: number, path: string): void {
  for (const c of columns) {
    const [before, cell] = [change.before?.[c.name], change.after?.[c.name]];
    if (!isDiffCell(cell)) continue;
    const site = { offset, schemaPath: `${path}.${c.name}` };
    // As apply_json_diffs: there is no document to change in a NULL.
    if (before === null) throw new InvalidValueError('a JSON diff of a column that is NULL in the before image', site);
    if (isJsonCell(before)) cell.json = applyJsonDiff(before.json, cell.diff, site);
  }
}

/**
 * A diff cell's `json` is derived, and the diff alone is written; one given must be what the diff makes
 * of the before image's document, so that an edit of it is never lost in silence.
 */
export function checkResultingJson(change: RowChange, columns: Iterable<Column>, path: string): void {
  for (const c of columns) {
    const [before, cell] = [change.before?.[c.name], change.after?.[c.name]];
    if (!isDiffCell(cell) || cell.json === undefined) continue;
    const at = `${path}.${c.name}.json`;
    if (!isJsonCell(before))
      throw new EncodeError(`derived from the before image's document, which this row does not hold: leave it out`, at);
    let derived: JsonTree;
    try {
      derived = applyJsonDiff(before.json, cell.diff);
    } catch (e) {
      if (e instanceof BinlogError) throw new EncodeError(e.problem, at);
      throw e;
    }
    if (!sameJson(derived, cell.json))
      throw new EncodeError(
        'not what the diff makes of the before image: edit the diff (json is derived), or leave json out',
        at,
      );
  }
}

/** Whether two documents are the same, whatever the order of their objects' keys. */
export function sameJson(a: JsonTree, b: JsonTree): boolean {
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]!));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k]!, b[k]!));
}
