/**
 * Reading part of a binlog, as mariadb-binlog's users do: a position or time window, one database, one
 * table. The FORMAT_DESCRIPTION event always passes, so that what passes is still a readable binlog.
 */
import { EventEffects } from '../../generated/events.js';
import type { BinlogEvent } from '../events/event-codec.js';

export interface EventFilter {
  /** Events starting at or after this offset. */
  startPosition?: number;
  /** Stop at the first event starting at or after this offset. */
  stopPosition?: number;
  /** Events whose timestamp (Unix seconds) is at or after this. */
  startTime?: number;
  /** Stop at the first event whose timestamp is at or after this. */
  stopTime?: number;
  /** Only events of this database (events that name none pass). */
  database?: string;
  /** Only the TABLE_MAP and row events of this table (`db.table` or `table`). */
  table?: string;
}

/**
 * The database an event names, if any: a QUERY's default schema, a TABLE_MAP's, a row event's table's;
 * for a TRANSACTION_PAYLOAD, the first its inner events name.
 */
function databaseOf(e: BinlogEvent): string | undefined {
  if (e.events) return firstOf(e.events, databaseOf);
  const v = e as unknown as { schema?: unknown; schemaName?: unknown; table?: unknown };
  if (e.type === 'QUERY_EVENT' && typeof v.schema === 'string' && v.schema !== '') return v.schema;
  if (typeof v.schemaName === 'string') return v.schemaName;
  if (typeof v.table === 'string' && v.table.includes('.')) return v.table.split('.')[0];
  return undefined;
}

function tableOf(e: BinlogEvent): string | undefined {
  if (e.events) return firstOf(e.events, tableOf);
  const v = e as unknown as { schemaName?: unknown; tableName?: unknown; table?: unknown };
  if (typeof v.tableName === 'string') return `${String(v.schemaName)}.${v.tableName}`;
  if (typeof v.table === 'string' && v.table.includes('.')) return v.table;
  return undefined;
}

function firstOf(events: BinlogEvent[], name: (e: BinlogEvent) => string | undefined): string | undefined {
  for (const e of events) {
    const n = name(e);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Whether reading should stop at this event (it and all after it are left out). */
export function stopsAt(f: EventFilter, e: BinlogEvent): boolean {
  return (f.stopPosition !== undefined && e.pos >= f.stopPosition) || (f.stopTime !== undefined && e.header.timestamp >= f.stopTime);
}

export function passes(f: EventFilter, e: BinlogEvent): boolean {
  if (EventEffects[e.type] === 'sets-format') return true;
  if (f.startPosition !== undefined && e.pos < f.startPosition) return false;
  if (f.startTime !== undefined && e.header.timestamp < f.startTime) return false;
  const db = databaseOf(e);
  if (f.database !== undefined && db !== undefined && db !== f.database) return false;
  if (f.table !== undefined) {
    const t = tableOf(e);
    if (t !== undefined && t !== f.table && t.split('.')[1] !== f.table) return false;
  }
  return true;
}
