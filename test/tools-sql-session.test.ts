/**
 * tools/sql-session.ts: the SET statements a script prints before a statement (the session its QUERY
 * event logged) and before row changes (the script's own row session), each only where it changes; the
 * terminator of a statement that holds a `;`.
 */
import { describe, expect, it } from 'vitest';
import { EventTypes } from '../generated/events.js';
import type { QueryEventStatusVarsEntry } from '../generated/query.js';
import type { BinlogEvent } from '../runtime/events/event-codec.js';
import { SCRIPT_HEADER, ScriptSession, terminated } from '../tools/sql-session.js';
import { eventHeader } from './support/events.js';

const query = (statusVars: QueryEventStatusVarsEntry[]): BinlogEvent => ({
  type: 'QUERY_EVENT',
  pos: 4,
  header: eventHeader(EventTypes.QUERY_EVENT),
  threadId: 0,
  execTime: 0,
  schemaLength: 0,
  errorCode: 0,
  statusVars,
  schema: '',
  query: 'CREATE TABLE t (id INT)',
});
const SQL_MODE: QueryEventStatusVarsEntry = { code: 'Q_SQL_MODE_CODE', sqlMode: 0x4n };
const CHARSET: QueryEventStatusVarsEntry = {
  code: 'Q_CHARSET_CODE',
  characterSetClient: 33,
  collationConnection: 33,
  collationServer: 8,
};
const ZONE: QueryEventStatusVarsEntry = {
  code: 'Q_TIME_ZONE_CODE',
  timeZone: "Europe/O'Hare\\x",
} as QueryEventStatusVarsEntry;

describe('ScriptSession', () => {
  it('begins in the row session the header sets', () => {
    expect(SCRIPT_HEADER).toBe(
      "SET NAMES utf8mb4;\nSET time_zone = '+00:00';\nSET sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\n",
    );
    expect(new ScriptSession().forRows()).toEqual([]);
  });

  it('sets a statement’s logged session before it, only what changed, and the row session again after', () => {
    const s = new ScriptSession();
    expect(s.forStatement(query([SQL_MODE, CHARSET, ZONE]))).toEqual([
      'SET @@session.sql_mode = 4',
      'SET @@session.character_set_client = 33, @@session.collation_connection = 33, @@session.collation_server = 8',
      // Quotes doubled and backslashes escaped: the zone name reads back as it was logged.
      "SET @@session.time_zone = 'Europe/O''Hare\\\\x'",
    ]);
    expect(s.forStatement(query([SQL_MODE, CHARSET, ZONE]))).toEqual([]);
    expect(s.forStatement(query([{ ...SQL_MODE, sqlMode: 0x8n }, CHARSET, ZONE]))).toEqual([
      'SET @@session.sql_mode = 8',
    ]);
    expect(s.forRows()).toEqual([
      'SET NAMES utf8mb4',
      "SET time_zone = '+00:00'",
      "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'",
    ]);
    expect(s.forRows()).toEqual([]);
  });

  it('takes auto_increment as 1, 1 where the event does not log it (the server leaves the default out)', () => {
    const s = new ScriptSession();
    expect(s.forStatement(query([]))).toEqual([]);
    expect(s.forStatement(query([{ code: 'Q_AUTO_INCREMENT', increment: 5, offset: 2 }]))).toEqual([
      'SET @@session.auto_increment_increment = 5, @@session.auto_increment_offset = 2',
    ]);
    expect(s.forStatement(query([]))).toEqual([
      'SET @@session.auto_increment_increment = 1, @@session.auto_increment_offset = 1',
    ]);
    // The row session leaves auto_increment as it is: row images carry their values.
    expect(s.forRows()).toEqual([]);
  });

  it('leaves a setting the event does not log as it is', () => {
    const s = new ScriptSession();
    s.forStatement(query([SQL_MODE]));
    expect(s.forStatement(query([ZONE]))).toEqual(["SET @@session.time_zone = 'Europe/O''Hare\\\\x'"]);
  });
});

describe('terminated', () => {
  it('ends a statement with ; and one that holds ; between DELIMITER lines of a delimiter it does not hold', () => {
    expect(terminated('DROP TABLE t')).toBe('DROP TABLE t;\n');
    const trigger = 'CREATE TRIGGER g BEFORE INSERT ON t FOR EACH ROW BEGIN SET @a = 1; SET @b = 2; END';
    expect(terminated(trigger)).toBe(`DELIMITER $$\n${trigger}$$\nDELIMITER ;\n`);
    expect(terminated("SELECT '$$;$$$'")).toBe("DELIMITER $$$$\nSELECT '$$;$$$'$$$$\nDELIMITER ;\n");
  });
});
