/**
 * What the served binlogs show of settings of the server that wrote them, for the served variables that come
 * `from` them (schemas/servers.yaml): binlog_row_image from the rows events' column bitmaps, and the server's
 * collation from its QUERY events. A client reads these before it streams (maxwell and canal refuse a source
 * whose binlog_row_image is not FULL), so the answer must be what the files hold, not what a profile says.
 */
import { CollationCharsets } from '../generated/charsets.js';
import { EventTransactions, EventTypes } from '../generated/events.js';
import { ColumnType } from '../generated/rows.js';
import { collationName } from '../runtime/tables/sqltypes.js';
import type { TableInfo } from '../runtime/values/column.js';
import { eventsOf } from './source-frames.js';
import type { ServedLog } from './logs.js';

/** The codes of the events of one transaction role (events.yaml's `transaction:`). */
function codesOf(role: string): number[] {
  return Object.entries(EventTypes)
    .filter(([name]) => EventTransactions[name] === role)
    .map(([, code]) => code);
}

const ROWS_AND_TABLE_MAPS: ReadonlySet<number> = new Set([EventTypes.TABLE_MAP_EVENT, ...codesOf('rows')]);
const QUERIES: ReadonlySet<number> = new Set(codesOf('query'));

/**
 * The column types binlog_row_image=NOBLOB may leave out: those MySQL and MariaDB store as Field_blob (BLOB and TEXT of
 * every size, JSON, and GEOMETRY), which MariaDB's TABLE_MAP logs as BLOB and MySQL's as JSON and GEOMETRY.
 */
const BLOB_TYPES: ReadonlySet<number> = new Set([
  ColumnType.TINY_BLOB,
  ColumnType.BLOB,
  ColumnType.MEDIUM_BLOB,
  ColumnType.LONG_BLOB,
  ColumnType.JSON,
  ColumnType.GEOMETRY,
]);

export type RowImage = 'FULL' | 'NOBLOB' | 'MINIMAL';

/**
 * What binlog_row_image the served rows events show. FULL logs every column in every image; NOBLOB leaves out BLOB and
 * TEXT columns a statement does not need; MINIMAL leaves out any column it does not need (a before image holds the
 * primary key alone). So an image without a column that is no blob says MINIMAL, images without blob columns only say
 * NOBLOB, and images that all hold every column say FULL (as they do too under MINIMAL for tables without a primary
 * key whose every column is written: those files cannot tell the two apart).
 */
export async function rowImageOf(logs: ServedLog[]): Promise<RowImage> {
  let noblob = false;
  for await (const { event, decoder } of eventsOf(logs, ROWS_AND_TABLE_MAPS, { rows: 'lazy' })) {
    if (!('columnsPresent' in event)) continue;
    const table = decoder.format.tables.get(Number(event.tableId));
    for (const present of [event.columnsPresent, 'columnsPresentAfter' in event ? event.columnsPresentAfter : []]) {
      const left = leftOut(present ?? [], table);
      if (left.some((type) => !BLOB_TYPES.has(type))) return 'MINIMAL';
      noblob ||= left.length > 0;
    }
  }
  return noblob ? 'NOBLOB' : 'FULL';
}

/** The TABLE_MAP types of the columns an image's bitmap leaves out (-1 where the table is not known). */
function leftOut(present: boolean[], table: TableInfo | undefined): number[] {
  return present.flatMap((p, i) => (p ? [] : [table?.columns[i]?.type ?? -1]));
}

/**
 * The server's collation and its character set as the last QUERY event that carries a Q_CHARSET_CODE gives them
 * (collation_server, which MariaDB and MySQL write into every QUERY event), or undefined when none does.
 */
export async function serverCollationOf(
  logs: ServedLog[],
): Promise<{ collation?: string; characterSet?: string } | undefined> {
  let id: number | undefined;
  for await (const { event } of eventsOf(logs, QUERIES)) {
    const statusVars = 'statusVars' in event ? event.statusVars : undefined;
    const charset = statusVars?.find((v) => v.code === 'Q_CHARSET_CODE');
    if (charset && 'collationServer' in charset) id = charset.collationServer;
  }
  return id === undefined ? undefined : { collation: collationName(id), characterSet: CollationCharsets.get(id) };
}
