/**
 * A connection's prepared statements (COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_CLOSE), which CDC
 * clients use for their INFORMATION_SCHEMA queries (zongji through mysql2's execute): a statement is
 * kept as its text, and each execution answers it with its ? bound to the values given, as queries.ts
 * answers a statement; the rows go back in the binary protocol. The packets are schemas/replication.yaml's.
 */
import { ColumnType } from '../generated/rows.js';
import {
  decodeStmtClosePacket,
  decodeStmtExecutePacket,
  decodeStmtPreparePacket,
  encodeColumnDefinitionPacket,
  encodeStmtPrepareOkPacket,
  ServerErrorCode,
  type ColumnDefinitionPacketInput,
} from '../generated/replication.js';
import { Reader } from '../runtime/core/reader.js';
import { Writer } from '../runtime/core/writer.js';
import { OUTSIDE_ANY_BINLOG, packet, text } from '../protocol/packets.js';
import { answer, bound, placeholders, QueryError, type Answer, type QueryContext } from './queries.js';

/** utf8mb3_general_ci: the connection's character set (the handshake names it), that of every answer's text. */
export const UTF8_GENERAL_CI = 33;

/** A column definition of the text that every answer's values are. */
export function textColumn(name: string): ColumnDefinitionPacketInput {
  return {
    catalog: 'def',
    schema: '',
    table: '',
    orgTable: '',
    name,
    orgName: name,
    characterSet: UTF8_GENERAL_CI,
    columnLength: 1024,
    columnType: ColumnType.VAR_STRING,
    flags: 0,
    decimals: 31,
  };
}

/** The types whose binary-protocol values are length-encoded strings. */
const STRING_TYPES: ReadonlySet<number> = new Set([
  ColumnType.VARCHAR,
  ColumnType.VAR_STRING,
  ColumnType.STRING,
  ColumnType.BLOB,
  ColumnType.TINY_BLOB,
  ColumnType.MEDIUM_BLOB,
  ColumnType.LONG_BLOB,
  ColumnType.JSON,
  ColumnType.NEWDECIMAL,
  ColumnType.DECIMAL,
  ColumnType.ENUM,
  ColumnType.SET,
]);
/** The integer types, by their binary-protocol width. */
const INTEGER_WIDTHS: ReadonlyMap<number, number> = new Map([
  [ColumnType.TINY, 1],
  [ColumnType.SHORT, 2],
  [ColumnType.YEAR, 2],
  [ColumnType.LONG, 4],
  [ColumnType.INT24, 4],
  [ColumnType.LONGLONG, 8],
]);

interface Statement {
  sql: string;
  params: number;
  /** The parameters' types, as the last execution that sent them said. */
  types: number[];
}

export class PreparedStatements {
  private readonly statements = new Map<number, Statement>();
  private nextId = 1;

  /**
   * COM_STMT_PREPARE: the packets that answer it (PREPARE_OK and a definition per parameter, the EOF after them left to
   * the caller), or the error.
   */
  prepare(payload: Uint8Array): { packets: Uint8Array[]; params: number } | QueryError {
    const sql = text(decodeStmtPreparePacket(new Reader(payload), OUTSIDE_ANY_BINLOG).query);
    let params: number;
    try {
      params = placeholders(sql);
    } catch (e) {
      if (e instanceof QueryError) return e;
      throw e;
    }
    const statementId = this.nextId++;
    this.statements.set(statementId, { sql, params, types: [] });
    const ok = packet(encodeStmtPrepareOkPacket, { statementId, columnCount: 0, paramCount: params, warningCount: 0 });
    const definitions = Array.from({ length: params }, () => packet(encodeColumnDefinitionPacket, textColumn('?')));
    return { packets: [ok, ...definitions], params };
  }

  /** COM_STMT_EXECUTE: the statement's answer with its parameters bound. */
  async execute(payload: Uint8Array, ctx: QueryContext): Promise<Answer> {
    const asked = decodeStmtExecutePacket(new Reader(payload), OUTSIDE_ANY_BINLOG);
    const statement = this.statements.get(asked.statementId);
    if (!statement)
      return new QueryError(
        ServerErrorCode.ER_UNKNOWN_STMT_HANDLER,
        'HY000',
        `Unknown prepared statement handler (${asked.statementId}) given to mysqld_stmt_execute`,
      );
    let sql: string;
    try {
      sql = bound(statement.sql, parameters(asked.parameters, statement));
    } catch (e) {
      if (e instanceof QueryError) return e;
      throw e;
    }
    return answer(sql, ctx);
  }

  /** COM_STMT_CLOSE, which has no answer. */
  close(payload: Uint8Array): void {
    this.statements.delete(decodeStmtClosePacket(new Reader(payload), OUTSIDE_ANY_BINLOG).statementId);
  }
}

/**
 * The values of an execution's parameters (schemas/replication.yaml's StmtExecutePacket says their layout), as text.
 */
function parameters(bytes: Uint8Array, statement: Statement): (string | null)[] {
  if (statement.params === 0) return [];
  const r = new Reader(bytes);
  const nulls = r.bytes((statement.params + 7) >> 3, 'StmtExecutePacket.nullBitmap');
  if (r.u8() === 1) statement.types = Array.from({ length: statement.params }, () => r.u16() & 0xff);
  return Array.from({ length: statement.params }, (_, i) => {
    if (nulls[i >> 3]! & (1 << (i & 7))) return null;
    const type = statement.types[i];
    if (type !== undefined && STRING_TYPES.has(type))
      return text(r.bytes(r.packed('StmtExecutePacket.value'), 'StmtExecutePacket.value'));
    const width = type === undefined ? undefined : INTEGER_WIDTHS.get(type);
    if (width !== undefined) return (width === 8 ? r.u64() : r.uint(width, 'StmtExecutePacket.value')).toString();
    throw new QueryError(
      ServerErrorCode.ER_NOT_SUPPORTED_YET,
      '42000',
      `binlog serve takes string and integer parameters, not parameter ${i + 1} of type ${type}`,
    );
  });
}

/**
 * A result row in the binary protocol: a 0 byte, the NULL bitmap (its first two bits unused), then each value as a
 * length-encoded string.
 */
export function binaryRow(row: (string | null)[]): Uint8Array {
  const w = new Writer();
  w.u8(0);
  const nulls = new Uint8Array((row.length + 9) >> 3);
  row.forEach((v, i) => {
    if (v === null) nulls[(i + 2) >> 3]! |= 1 << ((i + 2) & 7);
  });
  w.bytes(nulls);
  for (const v of row) {
    if (v === null) continue;
    const b = new TextEncoder().encode(v);
    w.packed(b.length, 'BinaryRow.value');
    w.bytes(b);
  }
  return w.finish();
}
