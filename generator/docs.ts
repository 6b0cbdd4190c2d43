/**
 * The dump format's reference, generated from the IR into docs/events.md, so that the description of every
 * event's fields can never drift from the schemas that decode them.
 */
import type { Expr } from './expr.js';
import type { Ir, IrEntryList, IrEvent, IrField, IrStruct, IrType } from './ir/types.js';

export const DOCS_BEGIN = '<!-- BEGIN GENERATED: event fields (npm run generate) -->';
export const DOCS_END = '<!-- END GENERATED: event fields -->';

export function eventDocs(ir: Ir): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const queue: string[] = [];
  const lists: IrEntryList[] = [];
  const groups = eventsByBody(ir);
  // A body several event codes share is described once, under a heading that lists them all.
  const anchors = new Map([...groups].map(([body, events]) => [body, slug(eventsHeading(events))]));
  const ref = (name: string) => (
    queue.push(name),
    `[${name}](#${anchors.get(name) ?? slug(structTitle(ir.structs.get(name)!))})`
  );
  for (const [body, events] of groups) {
    const s = ir.structs.get(body)!;
    out.push(`## ${eventsHeading(events)}`, '', ...paragraph(s.doc), ...table(s, ref), '');
    seen.add(s.name);
  }
  const raw = ir.events.filter((e) => !e.body).map((e) => `${e.name} (${e.code})`);
  out.push(
    '## Events kept raw',
    '',
    `Framed and kept as \`raw\` bytes until a schema describes them: ${raw.join(', ')}.`,
    '',
  );
  out.push('## Structures inside events', '');
  for (const s of ir.structs.values()) {
    for (const f of s.fields) if (f.type.kind === 'tlv' || f.type.kind === 'tagged') lists.push(f.type);
  }
  for (const t of lists) {
    out.push(`### ${t.entryType}`, '', ...entriesTable(ir, t, ref));
    t.entries.forEach((e) => seen.add(e.struct));
  }
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const s = ir.structs.get(name)!;
    out.push(`### ${structTitle(s)}`, '', ...paragraph(s.doc), ...table(s, ref), '');
  }
  return out.join('\n').trim();
}

type Ref = (name: string) => string;

/** The events that have a body, by body, in the order of the first event of each. */
function eventsByBody(ir: Ir): Map<string, IrEvent[]> {
  const groups = new Map<string, IrEvent[]>();
  for (const e of ir.events) if (e.body) groups.set(e.body, [...(groups.get(e.body) ?? []), e]);
  return groups;
}

function structTitle(s: IrStruct): string {
  return s.entryCode ? `${s.name} (entry \`${s.entryCode}\`)` : s.name;
}

function eventsHeading(events: IrEvent[]): string {
  return events.map((e) => `${e.name} (${e.code})`).join(', ');
}

/** The anchor GitHub gives a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

function paragraph(doc: string | undefined): string[] {
  return doc ? [doc.trim().replace(/\s*\n\s*/g, ' '), ''] : [];
}

/** A list's entries in one table: code, name, fields. */
function entriesTable(ir: Ir, t: IrEntryList, ref: Ref): string[] {
  const rows = t.entries.map((e) => {
    const s = ir.structs.get(e.struct)!;
    const fields = s.fields
      .filter((f) => f.constValue === undefined)
      .map(
        (f) => `\`${f.name}\`: ${jsonType(f, ref)}${f.cond ? ` (when \`${show(f.cond).replace(/\|/g, '\\|')}\`)` : ''}`,
      );
    return `| ${e.code} | \`${e.name}\` | ${fields.join('; ').replace(/\|/g, '\\|') || '(none)'} | ${oneLine(s.doc)} |`;
  });
  const unknown = t.kind === 'tlv' ? 'its value' : 'everything from it to the end of the list';
  return [
    `Each entry is an object with \`code\` (the name below) and its fields. ` +
      `Any other code gives \`{"code": N, "raw": {"hex": …}}\` holding ${unknown}.`,
    '',
    '| code | `code` | fields | meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ];
}

function table(s: IrStruct, ref: Ref): string[] {
  const fields = s.fields.filter((f) => f.constValue === undefined);
  const rows = s.entryCode ? [`| \`code\` | \`"${s.entryCode}"\` | always | The entry's code. |`] : [];
  for (const f of fields) {
    rows.push(`| \`${f.name}\` | ${jsonType(f, ref)} | ${presence(s, f)} | ${cell(f)} |`);
    if (f.type.kind === 'rows' && f.type.undecoded) rows.push(...undecodedRows(f.type.undecoded));
    if (f.type.kind === 'rows' && f.type.inferred) rows.push(inferredRow(f.type.inferred));
  }
  if (s.keys?.list) rows.push(KEY_ORDER_ROW);
  if (!rows.length) return ['No fields.', ''];
  return ['| key | JSON | present | meaning |', '| --- | --- | --- | --- |', ...rows, ''];
}

function jsonType(f: IrField, ref: Ref): string {
  const one = valueJson(f.type, ref);
  return f.repeat ? `array of ${one}` : one;
}

function valueJson(t: IrType, ref: Ref): string {
  switch (t.kind) {
    case 'int':
    case 'packed':
      if (t.enum) return `${t.enum} name (or number)`;
      return t.big ? 'integer (number, or decimal string past 2^53)' : 'number';
    case 'float':
    case 'uint':
      return 'number';
    case 'computed':
      return t.enum ? `${t.enum} name (or number), computed` : `${t.value}, computed`;
    case 'rows':
      return 'array of row changes (see [Row values](json-format.md#row-values))';
    case 'text':
      return 'string (or `{hex}`)';
    case 'bytes':
      return '`{hex}`';
    case 'bitmap':
      return 'array of booleans';
    case 'struct':
      return `object: ${ref(t.name)}`;
    case 'switch': {
      const structs = [...new Set([...t.cases.map((c) => c.struct), ...(t.default ? [t.default] : [])])];
      return `object: ${structs.map(ref).join(' or ')}`;
    }
    case 'tlv':
    case 'tagged':
      return `array of [${t.entryType}](#${slug(t.entryType)}) entries`;
  }
}

const KEY_ORDER_ROW =
  '| `keyOrder` | array of ids and `{"id", "bytes": {hex}}` | ' +
  'when the keyed fields are stored otherwise than declared, once each | ' +
  'The stored order: ids of the fields above, and as stored the ids MySQL skips (unknown) ' +
  "or overwrites (a repeated id's earlier values). Encode writes it back; without it, the declared order. |";

/** The keys a rows field's images are kept under, in its place, when they do not split. */
function undecodedRows(name: string): string[] {
  const when = 'instead of the rows, when the images do not split into them';
  return [
    `| \`${name}Undecoded\` | string | ${when} | Why the images did not split (informational); not written. |`,
    `| \`${name}\` | \`{hex}\` | ${when} | The row images as stored: encode writes them back as they are. |`,
  ];
}

/** The key of the fraction digits inferred for columns the binlog does not size. */
function inferredRow(name: string): string {
  return (
    `| \`${name}\` | object: column name → digits | when the rows were read with inferred fraction digits | ` +
    'The n of each MariaDB TIME(n), DATETIME(n), TIMESTAMP(n) column (n > 0) the rows were read with, ' +
    "inferred where no definition says it (see the README's Table definitions); encode writes the rows with them. |"
  );
}

function presence(s: IrStruct, f: IrField): string {
  if (f.type.kind === 'rows' && f.type.undecoded) return 'when the images split into rows';
  if (f.key !== undefined)
    return s.keys?.list ? `when key ${f.key} is stored (its last value)` : `when key ${f.key} comes next`;
  return f.cond ? `when \`${show(f.cond).replace(/\|/g, '\\|')}\`` : 'always';
}

function oneLine(doc: string | undefined): string {
  return (doc ?? '')
    .trim()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');
}

function cell(f: IrField): string {
  const parts: string[] = [];
  if (f.doc) parts.push(oneLine(f.doc));
  const d = f.derive;
  if (d?.kind === 'lengthOf') parts.push(`Derived: byte length of \`${d.target}\`.`);
  if (d?.kind === 'countOf') parts.push(`Derived: number of \`${d.target}\`.`);
  if (d?.kind === 'sizeOf') parts.push(`Derived: byte size of \`${d.target}\`.`);
  if (d?.kind === 'value') parts.push(`Derived: \`${show(d.expr).replace(/\|/g, '\\|')}\`.`);
  if (d?.kind === 'frame') parts.push('Derived by the framer.');
  if (d?.kind === 'totalSize') parts.push('Derived: byte size of the whole structure, its own bytes included.');
  if (f.type.kind === 'computed') {
    // A given computed field is not written itself, but what is derived from it is.
    const written = f.type.input ? 'given to encode, which derives the stored fields from it' : 'not written';
    parts.push(`Computed: \`${show(f.type.expr).replace(/\|/g, '\\|')}\`; ${written}.`);
  }
  return parts.join(' ');
}

function show(e: Expr): string {
  return e.source ?? String(e.kind === 'num' ? e.value : e.kind);
}

/** `doc` (the text of `file`) with its generated section replaced by the current one. */
export function withEventDocs(doc: string, ir: Ir, file: string): string {
  const start = doc.indexOf(DOCS_BEGIN);
  const end = doc.indexOf(DOCS_END);
  if (start < 0 || end < start) throw new Error(`${file} lacks the markers ${DOCS_BEGIN} … ${DOCS_END}`);
  return `${doc.slice(0, start + DOCS_BEGIN.length)}\n\n${eventDocs(ir)}\n\n${doc.slice(end)}`;
}
