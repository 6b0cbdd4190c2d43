/**
 * A consistent snapshot of a running server's tables, and the binlog position it stands at: the rows of
 * the tables selected as of one point, so that the binlog's changes from that position on are exactly
 * those the snapshot does not hold.
 *
 * MariaDB: `START TRANSACTION WITH CONSISTENT SNAPSHOT` gives the binlog position its read view stands at
 * (the `binlog_snapshot_file` and `binlog_snapshot_position` status, in the same transaction): no global
 * lock at all. MySQL 8.0 and 8.4 have no such status, so FLUSH TABLES WITH READ LOCK is held only while
 * the transaction starts and the position is read (SHOW MASTER STATUS, SHOW BINARY LOG STATUS on 8.4):
 * LOCK INSTANCE FOR BACKUP with performance_schema.log_status would block no commit, so the position it
 * gives need not be where the read view stands.
 *
 * Each table is then opened with `SELECT … LIMIT 0`, whose metadata lock holds off any ALTER or DROP
 * until the transaction ends. A DDL that came between the start and that lock would make the rows read
 * of another shape than the binlog has them: the definitions read before the start are compared with
 * those read under the lock, and the snapshot begins again when they differ (at most MAX_ATTEMPTS times).
 */
import { Backoff, isTransient, type ReconnectOptions } from '../protocol/backoff.js';
import { ClientConnection, type ClientConfig } from '../protocol/mysql2-adapter.js';
import {
  quoteName,
  tableName,
  tablePages,
  type SnapshotPoint,
  type SnapshotRow,
  type SnapshotTable,
} from '../protocol/snapshot-rows.js';
import { ServerError, SnapshotError } from '../runtime/core/errors.js';

/** What to snapshot, and over which connection. */
export interface SnapshotOptions {
  connection: Omit<ClientConfig, 'connectTimeout'> & { connectTimeout?: number };
  /** Only the tables of these databases (none: every database but the servers' own). */
  databases?: string[];
  /** Only these tables: `db.table`, or `table` in any database selected. */
  tables?: string[];
  /** Rows per keyset page (default DEFAULT_CHUNK). */
  chunk?: number;
  /** A connection lost during the snapshot: connect again and take the snapshot again from its start. */
  reconnect?: boolean | ReconnectOptions;
}

/** What is told of the snapshot as it is read; each step waits for the one before to be taken. */
export interface SnapshotReader {
  /**
   * The point and the tables, with their definitions as of the point, before any row. After a lost
   * connection (`reconnect`) it is told again, and the rows again from the first.
   */
  start(point: SnapshotPoint, tables: SnapshotTable[]): Promise<void>;
  /** A page of a table's rows. */
  rows(table: SnapshotTable, rows: SnapshotRow[]): Promise<void>;
}

export const DEFAULT_CHUNK = 10_000;

/** Milliseconds for the connection and each query's answer, as the replication client waits by default. */
const DEFAULT_CONNECT_TIMEOUT = 10_000;

/** How many times a snapshot begins again when a table changed shape while it began. */
const MAX_ATTEMPTS = 5;

/** The servers' own databases, never snapshotted unless named. */
const SYSTEM_DATABASES = ['mysql', 'information_schema', 'performance_schema', 'sys'];

/** MySQL's and MariaDB's ER_NO_SUCH_TABLE and ER_TABLE_DEF_CHANGED: a table dropped or altered meanwhile. */
const NO_SUCH_TABLE = 1146;
const TABLE_DEF_CHANGED = 1412;
/** ER_SP_DOES_NOT_EXIST: MySQL 5.7 knows no CURRENT_ROLE(). */
const NO_SUCH_FUNCTION = 1305;

type Flavor = 'mariadb' | 'mysql';

/**
 * Reads the snapshot, handing it to `reader`; returns its point once every row was handed on. A lost
 * connection, under `reconnect`, takes it again from the start, as often as the backoff allows.
 */
export async function takeSnapshot(options: SnapshotOptions, reader: SnapshotReader): Promise<SnapshotPoint> {
  const backoff = options.reconnect ? new Backoff(options.reconnect) : undefined;
  for (;;) {
    try {
      return await snapshotOnce(options, reader);
    } catch (e) {
      if (!backoff || !isTransient(e)) throw e;
      await backoff.next(e as Error);
    }
  }
}

async function snapshotOnce(options: SnapshotOptions, reader: SnapshotReader): Promise<SnapshotPoint> {
  const conn = await ClientConnection.open({
    ...options.connection,
    connectTimeout: options.connection.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT,
  });
  try {
    await session(conn);
    const flavor: Flavor = /mariadb/i.test(String((await conn.query('SELECT VERSION() AS v'))[0]?.v))
      ? 'mariadb'
      : 'mysql';
    await missingPrivileges(conn, flavor);
    const { point, tables } = await begin(conn, flavor, options);
    await reader.start(point, tables);
    for (const table of tables) {
      for await (const page of tablePages(conn, table, options.chunk ?? DEFAULT_CHUNK)) await reader.rows(table, page);
    }
    await conn.query('COMMIT');
    return point;
  } finally {
    conn.destroy();
  }
}

/** Text in UTF-8 and TIMESTAMPs in UTC, as the dump writes them; a read view kept for the transaction. */
async function session(conn: ClientConnection): Promise<void> {
  await conn.query('SET NAMES utf8mb4');
  await conn.query("SET SESSION time_zone = '+00:00'");
  await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
}

/** Starts the transaction at a point no DDL of the tables came after; begins again when one did. */
async function begin(
  conn: ClientConnection,
  flavor: Flavor,
  options: SnapshotOptions,
): Promise<{ point: SnapshotPoint; tables: SnapshotTable[] }> {
  let changed = '';
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const names = await selectedTables(conn, options);
    const before = await definitions(conn, names);
    const point = flavor === 'mariadb' ? await mariadbPoint(conn) : await mysqlPoint(conn);
    changed = await lockedChanges(conn, names, before, options);
    if (changed === '') {
      const tables: SnapshotTable[] = [];
      for (const t of names) tables.push(await describe(conn, t, before));
      return { point, tables };
    }
    await conn.query('ROLLBACK');
  }
  throw new SnapshotError(
    `the tables kept changing while the snapshot began (${changed}), ${MAX_ATTEMPTS} times: try again when no DDL runs`,
  );
}

interface TableName {
  schema: string;
  name: string;
}

const qualified = (t: TableName) => `${t.schema}.${t.name}`;

/** The base tables --database and --table select, in a stable order. */
async function selectedTables(conn: ClientConnection, options: SnapshotOptions): Promise<TableName[]> {
  const rows = await conn.query(
    "SELECT TABLE_SCHEMA AS s, TABLE_NAME AS n FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' " +
      'ORDER BY TABLE_SCHEMA, TABLE_NAME',
  );
  const all = rows.map((r) => ({ schema: String(r.s), name: String(r.n) }));
  const dbs = options.databases ?? [];
  const wanted = options.tables ?? [];
  const named = (w: string, t: TableName) => w === t.name || w === qualified(t);
  const inDatabases = (t: TableName) =>
    dbs.length ? dbs.includes(t.schema) : wanted.length > 0 || !SYSTEM_DATABASES.includes(t.schema);
  const selected = all.filter((t) => inDatabases(t) && (!wanted.length || wanted.some((w) => named(w, t))));
  const unseen = [
    ...dbs.filter((d) => !selected.some((t) => t.schema === d)).map((d) => `--database=${d}`),
    ...wanted.filter((w) => !selected.some((t) => named(w, t))).map((w) => `--table=${w}`),
  ];
  if (unseen.length)
    throw new SnapshotError(
      `${unseen.join(', ')}: no such table, or none the user may SELECT from (a user sees only those tables)`,
    );
  return selected;
}

/**
 * Says which of the global privileges the snapshot and the binlog after it need the user lacks: REPLICATION
 * SLAVE to read the binlog, and on MySQL RELOAD (FLUSH TABLES WITH READ LOCK) and REPLICATION CLIENT (the
 * position). Asked before any row is read, so that a long snapshot does not end in a refusal.
 */
async function missingPrivileges(conn: ClientConnection, flavor: Flavor): Promise<void> {
  const needed = flavor === 'mysql' ? ['RELOAD', 'REPLICATION CLIENT', 'REPLICATION SLAVE'] : ['REPLICATION SLAVE'];
  const held = await globalPrivileges(conn, flavor);
  const missing = held.has(ALL_PRIVILEGES) ? [] : needed.filter((p) => !held.has(p));
  if (missing.length)
    throw new SnapshotError(
      `the user lacks ${missing.join(', ')}, which ${flavor === 'mysql' ? "MySQL's snapshot and " : ''}reading ` +
        'the binlog after the snapshot need (GRANT them ON *.*, to the user or to a role it has by default)',
    );
}

/** How MariaDB's SHOW GRANTS says that a grant of every privilege ON *.* was made (MySQL 8 lists each one). */
const ALL_PRIVILEGES = 'ALL PRIVILEGES';

/**
 * The global privileges the session holds: the user's own and those of the roles enabled in it.
 * information_schema.USER_PRIVILEGES lists only what was granted to the user itself, so a privilege held
 * through a role would be missed; SHOW GRANTS says what the session holds. MariaDB's lists the grants of the
 * enabled roles with the user's, the roles granted to those roles included, and not those of a role granted
 * but not enabled, which the session does not hold (the binlog's connection, a new session, enables the same
 * default role). MySQL's lists a role's grants only when the role is named in USING, so the session's active
 * roles (CURRENT_ROLE(), which MySQL 5.7, without roles, does not know) are named there.
 */
async function globalPrivileges(conn: ClientConnection, flavor: Flavor): Promise<Set<string>> {
  const roles = flavor === 'mysql' ? await activeRoles(conn) : 'NONE';
  const grants = await conn.query(roles === 'NONE' ? 'SHOW GRANTS' : `SHOW GRANTS FOR CURRENT_USER() USING ${roles}`);
  const held = new Set<string>();
  for (const row of grants) {
    const global = /^GRANT (.+?) ON \*\.\* TO /.exec(String(Object.values(row)[0]));
    for (const p of global ? global[1]!.split(',') : []) held.add(p.trim().toUpperCase());
  }
  return held;
}

/** MySQL's active roles as a list USING takes (`r`@`%`,…), or NONE. */
async function activeRoles(conn: ClientConnection): Promise<string> {
  try {
    const [row] = await conn.query('SELECT CURRENT_ROLE() AS r');
    return String(row?.r ?? 'NONE');
  } catch (e) {
    if (e instanceof ServerError && e.errorCode === NO_SUCH_FUNCTION) return 'NONE';
    throw e;
  }
}

/** SHOW CREATE TABLE of each table, by 'schema.table' ('' for one gone meanwhile). */
async function definitions(conn: ClientConnection, names: TableName[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const t of names) {
    try {
      const [row] = await conn.query(`SHOW CREATE TABLE ${tableName(t)}`);
      out.set(qualified(t), String(row?.['Create Table'] ?? ''));
    } catch (e) {
      if (!(e instanceof ServerError && e.errorCode === NO_SUCH_TABLE)) throw refused(e, `reading ${qualified(t)}`);
      out.set(qualified(t), '');
    }
  }
  return out;
}

/**
 * Takes each table's metadata lock inside the transaction, then says what changed since `before`: a
 * table dropped, altered or created meanwhile ('' when nothing did).
 */
async function lockedChanges(
  conn: ClientConnection,
  names: TableName[],
  before: Map<string, string>,
  options: SnapshotOptions,
): Promise<string> {
  for (const t of names) {
    try {
      await conn.query(`SELECT 1 FROM ${tableName(t)} LIMIT 0`);
    } catch (e) {
      if (e instanceof ServerError && (e.errorCode === NO_SUCH_TABLE || e.errorCode === TABLE_DEF_CHANGED))
        return `${qualified(t)} was dropped`;
      throw refused(e, `reading ${qualified(t)} (the SELECT privilege)`);
    }
  }
  const after = await definitions(conn, names);
  const altered = names.find((t) => after.get(qualified(t)) !== before.get(qualified(t)));
  if (altered) return `${qualified(altered)} was altered`;
  const now = (await selectedTables(conn, options)).map(qualified);
  const created = now.find((n) => !before.has(n));
  return created ? `${created} was created` : '';
}

/** MariaDB: the position of the transaction's read view, with no lock. */
async function mariadbPoint(conn: ClientConnection): Promise<SnapshotPoint> {
  await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
  const status = new Map(
    (await conn.query("SHOW STATUS LIKE 'binlog_snapshot_%'")).map((r) => [
      String(r.Variable_name).toLowerCase(),
      String(r.Value),
    ]),
  );
  const file = status.get('binlog_snapshot_file') ?? '';
  const position = Number(status.get('binlog_snapshot_position') ?? 0);
  if (file === '') throw noBinlog();
  const [row] = await conn.query(`SELECT BINLOG_GTID_POS(${conn.escape(file)}, ${position}) AS gtid`);
  return { file, position, gtid: typeof row?.gtid === 'string' ? row.gtid : '' };
}

/** MySQL: FLUSH TABLES WITH READ LOCK held only while the transaction starts and the position is read. */
async function mysqlPoint(conn: ClientConnection): Promise<SnapshotPoint> {
  try {
    await conn.query('FLUSH TABLES WITH READ LOCK');
  } catch (e) {
    throw refused(e, 'FLUSH TABLES WITH READ LOCK (the RELOAD privilege, which MySQL needs for a consistent position)');
  }
  try {
    await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    const [status] = await binaryLogStatus(conn);
    if (!status || !status.File) throw noBinlog();
    const gtid = String(status.Executed_Gtid_Set ?? '').replace(/\s+/g, '');
    return { file: String(status.File), position: Number(status.Position), gtid };
  } finally {
    await conn.query('UNLOCK TABLES');
  }
}

/** SHOW MASTER STATUS, which MySQL 8.4 renamed SHOW BINARY LOG STATUS. */
async function binaryLogStatus(conn: ClientConnection): Promise<Record<string, unknown>[]> {
  try {
    return await conn.query('SHOW MASTER STATUS');
  } catch {
    return await conn.query('SHOW BINARY LOG STATUS').catch((e: unknown) => {
      throw refused(e, 'reading the binlog position (the REPLICATION CLIENT privilege)');
    });
  }
}

function noBinlog(): SnapshotError {
  return new SnapshotError(
    'the server writes no binlog (log_bin is OFF), so no binlog position stands at the snapshot: turn log_bin on',
  );
}

/** A server's refusal, saying what was refused; other errors as they are. */
function refused(e: unknown, what: string): unknown {
  return e instanceof ServerError ? e.refusing(what) : e;
}

/**
 * The table as read: its definition (the one read under the lock, which `before` equals), its columns
 * in order without the generated ones, as the server describes them, and its primary key.
 */
async function describe(conn: ClientConnection, t: TableName, before: Map<string, string>): Promise<SnapshotTable> {
  const where = `TABLE_SCHEMA = ${conn.escape(t.schema)} AND TABLE_NAME = ${conn.escape(t.name)}`;
  const stored = await conn.query(
    `SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE ${where} ` +
      "AND EXTRA NOT LIKE '%VIRTUAL%' AND EXTRA NOT LIKE '%PERSISTENT%' AND EXTRA NOT LIKE '%STORED%' " +
      'ORDER BY ORDINAL_POSITION',
  );
  const key = await conn.query(
    `SELECT COLUMN_NAME AS c FROM information_schema.STATISTICS WHERE ${where} AND INDEX_NAME = 'PRIMARY' ` +
      'ORDER BY SEQ_IN_INDEX',
  );
  const list = stored.map((r) => quoteName(String(r.c))).join(', ');
  const { columns, rows } = await conn.selectRows(`SELECT ${list} FROM ${tableName(t)} LIMIT 0`);
  for await (const _ of rows); // none, but the answer is read to its end before the next query
  return {
    ...t,
    qualified: qualified(t),
    createSql: before.get(qualified(t))!,
    columns,
    key: key.map((r) => String(r.c)),
  };
}
