/**
 * The `servers` section: the servers the builder imitates. Each names events of the catalogue (the last
 * type its FORMAT_DESCRIPTION lists, the post-header lengths it lists otherwise than the schemas) and the
 * members of a `flags` set (its sql_mode), so it is resolved after both. The `servedVariables` section:
 * the variables `binlog serve` reports, which the language schema has checked whole.
 */
import type { SchemaFile } from '../load.js';
import { below, type Origin, type Pass, resolveSection } from './pass.js';
import type { RawServedVariables, RawServer } from './raw.js';
import {
  SOURCES_THAT_MAY_NOT_SAY,
  type IrEvent,
  type IrServedVariables,
  type IrServer,
  type IrServers,
} from './types.js';

export function resolveServers(pass: Pass, files: SchemaFile[]): void {
  resolveSection(pass, files, 'servers', 'list of servers', (o, raw, module) => servers(pass, o, raw, module));
  resolveSection(pass, files, 'servedVariables', 'list of served variables', (o, raw, module) =>
    served(pass, o, raw, module),
  );
}

function servers(pass: Pass, o: Origin, raw: Record<string, RawServer>, module: string): IrServers {
  return { module, servers: Object.entries(raw).map(([name, s]) => server(pass, below(o, name), name, s)) };
}

function server(pass: Pass, o: Origin, name: string, raw: RawServer): IrServer {
  const last = eventNamed(pass, below(o, 'lastEvent'), ['event'], raw.lastEvent.event);
  const eventTypes = last?.code ?? 0;
  const postHeaderLengths: IrServer['postHeaderLengths'] = [];
  for (const [event, { length }] of Object.entries(raw.postHeaderLengths)) {
    const e = eventNamed(pass, below(o, 'postHeaderLengths'), [event], event);
    if (e && checkLength(pass, below(o, 'postHeaderLengths', event), e, length, last)) {
      postHeaderLengths.push({ code: e.code, event, length });
    }
  }
  const { session } = raw;
  return {
    name,
    doc: raw.doc,
    flavor: raw.flavor,
    version: raw.version,
    eventTypes,
    postHeaderLengths: postHeaderLengths.sort((a, b) => a.code - b.code),
    flags2: session.flags2.value,
    sqlMode: flagBits(pass, below(o, 'session', 'sqlMode'), session.sqlMode),
    catalog: session.catalog,
    charset: {
      characterSetClient: session.charset.characterSetClient,
      collationConnection: session.charset.collationConnection,
      collationServer: session.charset.collationServer,
    },
  };
}

function eventNamed(pass: Pass, o: Origin, path: (string | number)[], name: string): IrEvent | undefined {
  const event = pass.ir.events.find((e) => e.name === name);
  if (!event) pass.fail(o, path, `unknown event '${name}'`);
  return event;
}

/**
 * A length the server lists for an event it lists lengths for, that the schemas do not already give: a
 * length equal to theirs would say the same fact twice, and the FORMAT_DESCRIPTION's own follows from its
 * fields and the number of types listed.
 */
function checkLength(pass: Pass, o: Origin, e: IrEvent, length: number, last: IrEvent | undefined): boolean {
  const before = pass.errors.length;
  if (last && e.code > last.code) {
    const after = `${e.name} (${e.code}) comes after lastEvent ${last.name} (${last.code})`;
    pass.fail(o, [], `${after}: the server lists no length for it`);
  }
  if (e.effect === 'sets-format') {
    pass.fail(o, [], `${e.name}'s length follows from its fields and lastEvent: it is not listed`);
  } else if (e.postHeaderLength === length) {
    const same = `the schemas give ${e.name}'s post-header as ${length} already`;
    pass.fail(o, ['length'], `${same}: list only where the server differs`);
  }
  return pass.errors.length === before;
}

/** The bits of the names given, each a member of the flags set named. */
function flagBits(pass: Pass, o: Origin, raw: RawServer['session']['sqlMode']): bigint {
  const flags = pass.ir.flags.get(raw.flags);
  if (!flags) {
    pass.fail(o, ['flags'], `unknown flags '${raw.flags}'`);
    return 0n;
  }
  let bits = 0n;
  raw.set.forEach((name, i) => {
    const member = flags.values.find(([n]) => n === name);
    if (member) bits |= BigInt(member[1]);
    else pass.fail(o, ['set', i], `'${name}' is not a member of '${raw.flags}'`);
  });
  return bits;
}

function served(pass: Pass, o: Origin, raw: RawServedVariables, module: string): IrServedVariables {
  const variables = Object.entries(raw.variables).map(([name, v]) => {
    const common = { name, server: v.server ?? 'both', doc: v.doc };
    if (!('from' in v)) return { ...common, value: v.value };
    if (v.value === undefined) return { ...common, from: v.from };
    // A value beside a source that always says would never be answered: it would only mislead a reader.
    if (!SOURCES_THAT_MAY_NOT_SAY.includes(v.from))
      pass.fail(below(o, 'variables', name), ['value'], `${v.from} always says: a value beside it is never answered`);
    return { ...common, from: v.from, value: v.value };
  });
  return { module, doc: raw.doc, variables };
}
