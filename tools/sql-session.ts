/**
 * The session settings of a script's statements, printed as SET statements only where they change:
 * row changes read in the script's own session (ROW_SESSION); a statement (DDL) in the session its
 * QUERY event logged (status variables: sql_mode, the client's character set and the connection's and
 * server's collations, time_zone, auto_increment_increment and _offset), which decides how the server
 * reads it (sql_mode's ANSI_QUOTES or PIPES_AS_CONCAT, the charset of its literals, a view's or
 * routine's stored sql_mode). The values are written as the binlog has them: sql_mode's bits and
 * collation ids as numbers, which the server that wrote them takes back.
 */
import type { QueryEventStatusVarsEntry } from '../generated/query.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { textOf } from '../runtime/io/transactions.js';

type Setting = 'charset' | 'timeZone' | 'sqlMode' | 'autoIncrement';

/**
 * The session the row statements read in: literals carry their own charsets, TIMESTAMP values are UTC
 * as the binlog has them, zero dates and a 0 in an AUTO_INCREMENT column are taken as given.
 */
const ROW_SESSION: Partial<Record<Setting, string>> = {
  charset: 'SET NAMES utf8mb4',
  timeZone: "SET time_zone = '+00:00'",
  sqlMode: "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'",
};

/** The row statements' session, as a script begins. */
export const SCRIPT_HEADER = Object.values(ROW_SESSION)
  .map((s) => `${s};\n`)
  .join('');

const autoIncrement = (increment: number, offset: number) =>
  `SET @@session.auto_increment_increment = ${increment}, @@session.auto_increment_offset = ${offset}`;
/** The server's default, which it leaves out of the status variables; a client's session begins with it. */
const DEFAULT_AUTO_INCREMENT = autoIncrement(1, 1);

const quoted = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The SET statement of each setting a QUERY event's status variables log. */
function statementSession(event: BinlogEvent): Partial<Record<Setting, string>> {
  const out: Partial<Record<Setting, string>> = {};
  for (const v of (event as { statusVars?: QueryEventStatusVarsEntry[] }).statusVars ?? []) {
    if (v.code === 'Q_SQL_MODE_CODE') out.sqlMode = `SET @@session.sql_mode = ${v.sqlMode}`;
    else if (v.code === 'Q_CHARSET_CODE')
      out.charset =
        `SET @@session.character_set_client = ${v.characterSetClient}, ` +
        `@@session.collation_connection = ${v.collationConnection}, @@session.collation_server = ${v.collationServer}`;
    else if (v.code === 'Q_TIME_ZONE_CODE')
      out.timeZone =
        `SET @@session.time_zone = ` +
        `${quoted(textOf(v.timeZone) ?? Buffer.from(v.timeZone as Uint8Array).toString('latin1'))}`;
    else if (v.code === 'Q_AUTO_INCREMENT') out.autoIncrement = autoIncrement(v.increment, v.offset);
  }
  out.autoIncrement ??= DEFAULT_AUTO_INCREMENT;
  return out;
}

/** What the script's session is, as printed so far. */
export class ScriptSession {
  private readonly current: Partial<Record<Setting, string>> = {
    ...ROW_SESSION,
    autoIncrement: DEFAULT_AUTO_INCREMENT,
  };

  /** The SET statements to print before a statement (DDL) of this QUERY event. */
  forStatement(event: BinlogEvent): string[] {
    return this.change(statementSession(event));
  }

  /** The SET statements to print before a row change: the row session again, where a statement changed it. */
  forRows(): string[] {
    return this.change(ROW_SESSION);
  }

  private change(wanted: Partial<Record<Setting, string>>): string[] {
    const out: string[] = [];
    for (const [k, s] of Object.entries(wanted) as [Setting, string][]) {
      if (this.current[k] !== s) out.push(s);
      this.current[k] = s;
    }
    return out;
  }
}

/**
 * A statement with its terminator: `;`, or (for one that holds a `;` itself, as CREATE TRIGGER … BEGIN
 * …; …; END does) between DELIMITER lines of a delimiter that it does not hold.
 */
export function terminated(statement: string): string {
  if (!statement.includes(';')) return `${statement};\n`;
  let d = '$$';
  while (statement.includes(d)) d += '$';
  return `DELIMITER ${d}\n${statement}${d}\nDELIMITER ;\n`;
}
