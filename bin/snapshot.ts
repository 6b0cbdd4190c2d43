/**
 * `--snapshot` for `dump -R`, `sql -R` and `stream`: the tables --database and --table select, as of one
 * consistent point, handed to the command's writer, then the binlog from exactly that point. The
 * definitions read at the point seed the schema history, so that the changes after it carry names under
 * binlog_row_metadata=NO_LOG, and a DDL after it is followed.
 */
import type { LiveOptions } from '../replication/client.js';
import {
  quoteName,
  rowJson,
  rowSql,
  tableName,
  type SnapshotPoint,
  type SnapshotRow,
  type SnapshotTable,
} from '../protocol/snapshot-rows.js';
import type { EventSelection } from '../runtime/io/filter.js';
import type { SchemaHistory } from '../runtime/tables/history.js';
import type { SnapshotReader } from '../snapshot/index.js';
import type { DumpLines } from './dump-lines.js';
import { StatusLine } from './progress.js';
import { UsageError } from './usage.js';

export interface SnapshotValues {
  snapshot?: boolean;
  'snapshot-chunk'?: string;
  database?: string[];
  table?: string[];
  'start-gtid'?: string;
  'start-position'?: string;
}

/** What --snapshot asks for: rows per page (--snapshot-chunk, else the snapshot's default). */
export interface SnapshotRequest {
  chunk: number | undefined;
}

/** The snapshot asked for (undefined without --snapshot); a usage error when the options do not go with it. */
export function snapshotRequest(values: SnapshotValues, logName: string | undefined): SnapshotRequest | undefined {
  const chunk = values['snapshot-chunk'];
  if (!values.snapshot) {
    if (chunk !== undefined) throw new UsageError('--snapshot-chunk is for --snapshot');
    return undefined;
  }
  const start = logName ?? values['start-gtid'] ?? values['start-position'];
  if (start !== undefined)
    throw new UsageError('--snapshot starts the binlog where the snapshot stands: give no LOGNAME, GTID or position');
  if (chunk !== undefined && !/^[1-9]\d*$/.test(chunk))
    throw new UsageError('--snapshot-chunk takes a number of rows, 1 or more');
  return { chunk: chunk === undefined ? undefined : Number(chunk) };
}

/** What a snapshot counted: rows per table, and the table in hand. */
export class SnapshotCount {
  readonly rows = new Map<string, number>();
  total = 0;
  table = '';
  tables = 0;
  /** How many times it started (more than once after a lost connection, under --reconnect). */
  starts = 0;

  started(tables: SnapshotTable[]): void {
    this.starts++;
    this.total = 0;
    this.rows.clear();
    this.tables = tables.length;
    for (const t of tables) this.rows.set(t.qualified, 0);
  }

  add(table: SnapshotTable, rows: number): void {
    this.table = table.qualified;
    this.rows.set(table.qualified, (this.rows.get(table.qualified) ?? 0) + rows);
    this.total += rows;
  }

  /** The status line: the table in hand and its rows, the rows of all, the rate. */
  line(elapsed: number, final: boolean): string {
    const rate = Math.round(this.total / Math.max(elapsed, 0.001));
    const done = [...this.rows.keys()].indexOf(this.table) + 1;
    const inHand = final
      ? `${this.tables} tables`
      : `${this.table || 'starting'} (${done} of ${this.tables}): ${this.rows.get(this.table) ?? 0} rows`;
    const took = final ? `, in ${elapsed.toFixed(1)} s` : '';
    return `snapshot: ${inHand}, ${this.total} rows in all, ${rate} rows/s${took}`;
  }
}

/** What a command does with the snapshot as it comes. */
export interface SnapshotWriter {
  start(point: SnapshotPoint, tables: SnapshotTable[]): Promise<void>;
  rows(table: SnapshotTable, rows: SnapshotRow[]): Promise<void>;
  end(point: SnapshotPoint, count: SnapshotCount): Promise<void>;
}

/**
 * Takes the snapshot over the connection `live` describes, handing it to `writer`, the status line on
 * stderr when `progress`; seeds `history` with the tables' definitions at the point, and returns the
 * live options that start the binlog there.
 */
export async function snapshotThenBinlog(
  live: LiveOptions,
  values: SnapshotValues,
  request: SnapshotRequest,
  writer: SnapshotWriter,
  history: SchemaHistory | undefined,
  progress: boolean,
  selection?: EventSelection,
): Promise<{ live: LiveOptions; count: SnapshotCount; point: SnapshotPoint }> {
  const { takeSnapshot } = await import('../snapshot/index.js');
  const count = new SnapshotCount();
  const status = progress ? new StatusLine(process.stderr, (s, final) => count.line(s, final)) : undefined;
  const reader: SnapshotReader = {
    async start(point, tables) {
      count.started(tables);
      for (const t of tables) history?.set(t.qualified, t.createSql, `the snapshot at ${point.file}:${point.position}`);
      // A --database or --table the snapshot read is named by the output, even if no later event names it.
      for (const t of tables) selection?.named(t.schema, t.name);
      await writer.start(point, tables);
    },
    async rows(table, rows) {
      count.add(table, rows.length);
      await writer.rows(table, rows);
    },
  };
  const { host, port, socketPath, user, password, ssl, serverPublicKey, getServerPublicKey } = live;
  const connection = { host, port, socketPath, user, password, ssl, serverPublicKey, getServerPublicKey };
  let point: SnapshotPoint;
  try {
    point = await takeSnapshot(
      {
        connection: { ...connection, connectTimeout: live.connectTimeout, maxAllowedPacket: live.maxAllowedPacket },
        databases: values.database,
        tables: values.table,
        chunk: request.chunk,
        reconnect: live.reconnect,
      },
      reader,
    );
  } finally {
    status?.done();
  }
  await writer.end(point, count);
  const start = { file: point.file, position: point.position, gtid: undefined };
  return { live: { ...live, ...start }, count, point };
}

/**
 * dump -R's lines of the snapshot: SNAPSHOT_START naming the point and the tables, a SNAPSHOT_ROWS line
 * per page of a table's rows (each row an `after` image in the dump's values), SNAPSHOT_END with the
 * counts. Under --reconnect a lost connection starts them again from a new SNAPSHOT_START, which
 * supersedes the lines before it.
 */
export function snapshotLines(out: DumpLines): SnapshotWriter {
  return {
    async start(point, tables) {
      const names = tables.map((t) => t.qualified);
      await out.line({
        type: 'SNAPSHOT_START',
        file: point.file,
        pos: point.position,
        gtid: point.gtid,
        tables: names,
      });
    },
    async rows(table, rows) {
      const after = rows.map((row) => ({ after: rowJson(table.columns, row) }));
      await out.line({ type: 'SNAPSHOT_ROWS', table: table.qualified, rows: after });
    },
    async end(point, count) {
      const tables = Object.fromEntries(count.rows);
      await out.line({ type: 'SNAPSHOT_END', file: point.file, pos: point.position, rows: count.total, tables });
      await out.flush();
    },
  };
}

/** An INSERT's VALUES are cut into another statement past this many bytes, well under any max_allowed_packet. */
const INSERT_BYTES = 1 << 20;

/**
 * sql -R's script of the snapshot: for each database `CREATE DATABASE IF NOT EXISTS`, each table's CREATE
 * TABLE as of the point (both left out under --no-create-info), then its rows as multi-row INSERTs; the
 * changes' SQL follows. `header` is the script's session, written first. Under --reconnect a lost
 * connection starts the snapshot again: the tables are dropped and made again (or, under --no-create-info,
 * emptied) so that the script still builds one copy.
 */
export function snapshotSql(
  out: (text: string) => Promise<void>,
  header: () => string,
  createInfo: boolean,
): SnapshotWriter {
  let starts = 0;
  return {
    async start(point, tables) {
      const gtid = point.gtid ? `, GTID ${point.gtid}` : '';
      let text = `${header()}-- snapshot at ${point.file}:${point.position}${gtid}\n`;
      const databases = [...new Set(tables.map((t) => t.schema))];
      for (const db of createInfo ? databases : []) text += `CREATE DATABASE IF NOT EXISTS ${quoteName(db)};\n`;
      for (const t of tables) {
        if (starts > 0)
          text += createInfo ? `DROP TABLE IF EXISTS ${tableName(t)};\n` : `DELETE FROM ${tableName(t)};\n`;
        if (createInfo) text += `USE ${quoteName(t.schema)};\n${t.createSql};\n`;
      }
      starts++;
      await out(text);
    },
    async rows(table, rows) {
      const into = `INSERT INTO ${tableName(table)} (${table.columns.map((c) => quoteName(c.name)).join(',')}) VALUES `;
      let statement = '';
      for (const row of rows) {
        statement += (statement ? ',' : into) + rowSql(table.columns, row);
        if (statement.length > INSERT_BYTES) {
          await out(`${statement};\n`);
          statement = '';
        }
      }
      if (statement) await out(`${statement};\n`);
    },
    async end(point, count) {
      await out(`-- snapshot ends: ${count.total} rows; the changes from ${point.file}:${point.position} follow\n`);
    },
  };
}
