/**
 * The `servers` and `servedVariables` sections as data: the profiles the builder writes its
 * FORMAT_DESCRIPTION and QUERY events from, and the variables the binlog server reports. Neither is code,
 * so each is an interface and a constant object.
 */
import type { SourceFile } from 'ts-morph';
import { SERVED_VARIABLE_SOURCES, type IrServedVariables, type IrServer, type IrServers } from '../ir/types.js';
import { addConst, docs, objectLiteral, q } from './print.js';

export function emitServers(sf: SourceFile, ir: IrServers): void {
  sf.addInterface({
    isExported: true,
    name: 'ServerProfile',
    docs: ['A server the builder imitates: what it says of itself without any statement asking (`servers`).'],
    properties: [
      {
        name: 'flavor',
        type: "'mysql' | 'mariadb'",
        docs: ["Which server it is, as the catalogue's `server:` names them."],
      },
      { name: 'serverVersion', type: 'string', docs: ['The server version its FORMAT_DESCRIPTION gives.'] },
      {
        name: 'eventTypes',
        type: 'number',
        docs: ['How many event types its FORMAT_DESCRIPTION lists post-header lengths for (codes 1 to this).'],
      },
      {
        name: 'postHeaderLengths',
        type: 'Readonly<Record<number, number>>',
        docs: [
          'By code, the post-header lengths it lists otherwise than EventPostHeaderLengths, or where that gives ' +
            'none: it lists 0 for any other code EventPostHeaderLengths lacks.',
        ],
      },
      { name: 'flags2', type: 'number', docs: ["Its QUERY events' Q_FLAGS2_CODE: a default session's OPTION_* bits."] },
      { name: 'sqlMode', type: 'bigint', docs: ['The Q_SQL_MODE_CODE of its QUERY events: its default sql_mode.'] },
      { name: 'catalog', type: 'string', docs: ['The Q_CATALOG_NZ_CODE of its QUERY events.'] },
      {
        name: 'charset',
        type: '{ characterSetClient: number; collationConnection: number; collationServer: number }',
        docs: ['The Q_CHARSET_CODE of its QUERY events: collation ids.'],
      },
    ],
  });
  sf.addTypeAlias({ isExported: true, name: 'ServerProfileName', type: ir.servers.map((s) => q(s.name)).join(' | ') });
  const entries = ir.servers.map((s) => `${comment(s.doc)}${q(s.name)}: ${profileLiteral(s)},`);
  const type = 'Readonly<Record<ServerProfileName, ServerProfile>>';
  addConst(sf, 'ServerProfiles', objectLiteral(entries), ['The servers the builder imitates, by name.'], type);
}

function profileLiteral(s: IrServer): string {
  // The formatter indents the outer literal's lines only: the inner one's come indented.
  const lengths = s.postHeaderLengths.map((l) => `    /* ${l.event} */ ${l.code}: ${l.length},`);
  const { characterSetClient: client, collationConnection: connection, collationServer: server } = s.charset;
  return objectLiteral([
    `flavor: ${q(s.flavor)},`,
    `serverVersion: ${q(s.version)},`,
    `eventTypes: ${s.eventTypes},`,
    `postHeaderLengths: {\n${lengths.join('\n')}\n  },`,
    `flags2: 0x${s.flags2.toString(16)},`,
    `sqlMode: 0x${s.sqlMode.toString(16)}n,`,
    `catalog: ${q(s.catalog)},`,
    `charset: { characterSetClient: ${client}, collationConnection: ${connection}, collationServer: ${server} },`,
  ]);
}

export function emitServedVariables(sf: SourceFile, ir: IrServedVariables): void {
  sf.addTypeAlias({
    isExported: true,
    name: 'ServedVariableSource',
    type: SERVED_VARIABLE_SOURCES.map(q).join(' | '),
    docs: [
      "What a served variable's value comes from: the served binlogs' server id and version (or the options'), " +
        'CRC32 or NONE as their events carry checksums or not, a UUID made as the server starts, the GTID ' +
        'position at the end of the last binlog, the binlog_row_metadata and binlog_row_image their events show, the ' +
        "server character set and collation their QUERY events carry, serve's own max_allowed_packet and wait_timeout.",
    ],
  });
  sf.addTypeAlias({
    isExported: true,
    name: 'ServedVariable',
    type:
      "{ server: 'both' | 'mysql' | 'mariadb' } & ({ value: string } | { from: ServedVariableSource; value?: " +
      'string })',
    docs: [
      'A variable the binlog server reports: a value, or what it comes from and the value answered when that does ' +
        'not say; `server` names who has it.',
    ],
  });
  const entries = ir.variables.map((v) => {
    const value = v.value === undefined ? '' : `value: ${quoted(v.value)}`;
    const what = 'from' in v ? [`from: ${q(v.from)}`, value].filter(Boolean).join(', ') : value;
    return `${comment(v.doc)}${v.name}: { ${what}, server: ${q(v.server)} },`;
  });
  addConst(sf, 'ServedVariables', objectLiteral(entries), docs(ir.doc), 'Readonly<Record<string, ServedVariable>>');
}

/** A string literal of any text. */
function quoted(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A doc comment before an entry of an object literal. */
function comment(doc: string | undefined): string {
  return doc ? `/** ${doc.trim().replace(/\s+/g, ' ')} */\n` : '';
}
