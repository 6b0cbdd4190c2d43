/**
 * Typed errors. Every decode failure says where it happened three ways: the byte offset in the file, the
 * event it belongs to (start offset and type code), and the schema path that was being decoded.
 */

export interface ErrorSite {
  /** Absolute byte offset in the input where the problem was found. */
  offset: number;
  /** Schema path being decoded, e.g. `QueryEvent.statusVars`. */
  schemaPath?: string;
  /** File offset of the event's first header byte. */
  eventPos?: number;
  /** The event's type code. */
  eventType?: number;
  /** The name of the event's type, where the reader knows it (the format in force maps stored codes). */
  eventTypeName?: string;
}

export type BinlogErrorKind =
  | 'truncated'
  | 'bad-magic'
  | 'checksum'
  | 'length'
  | 'invalid-value'
  | 'schema-check'
  | 'unknown-table'
  | 'encode'
  | 'internal'
  | 'server'
  | 'connection'
  | 'snapshot';

export class BinlogError extends Error {
  readonly kind: BinlogErrorKind;
  offset: number;
  schemaPath: string | undefined;
  eventPos: number | undefined;
  eventType: number | undefined;
  eventTypeName: string | undefined;
  /** The problem alone, without the location the message adds. */
  problem: string;

  constructor(kind: BinlogErrorKind, problem: string, site: ErrorSite) {
    super(problem);
    this.name = new.target.name;
    this.kind = kind;
    this.problem = problem;
    this.offset = site.offset;
    this.schemaPath = site.schemaPath;
    this.eventPos = site.eventPos;
    this.eventType = site.eventType;
    this.eventTypeName = site.eventTypeName;
    this.message = this.describe();
  }

  /** Adds the event's identity once the stream knows it; the decoder deep inside does not. */
  atEvent(eventPos: number, eventType: number | undefined, eventTypeName?: string): this {
    if (this.eventPos === undefined) {
      this.eventPos = eventPos;
      this.eventType = eventType;
      this.eventTypeName = eventTypeName;
    }
    this.message = this.describe();
    return this;
  }

  /**
   * A problem inside decompressed bytes, whose offsets are not file offsets: it is placed at the
   * compressed block's file offset, and says where inside the block it was (`inside`).
   */
  within(inside: string, offset: number): this {
    this.problem = `${inside}: ${this.problem}`;
    this.offset = offset;
    this.eventPos = undefined;
    this.eventType = undefined;
    this.eventTypeName = undefined;
    this.message = this.describe();
    return this;
  }

  /**
   * The error placed deeper or elsewhere: a schema path that is `from` or starts with it (then a `.` or a
   * `[`) has that part replaced by `to` (`RowsEvent.rows.id` from `RowsEvent.rows` to `RowsEvent.rows[2].after`).
   */
  rebased(from: string, to: string): this {
    const p = this.schemaPath;
    if (
      p === undefined ||
      !p.startsWith(from) ||
      (p.length > from.length && p[from.length] !== '.' && p[from.length] !== '[')
    )
      return this;
    return this.at(to + p.slice(from.length));
  }

  /**
   * The error placed inside the value at JSON path `prefix` (`line 7: $`): its JSON path, relative to
   * that value (`$.rows[2]`), after it; a schema path of the value's parts beside it.
   */
  under(prefix: string): this {
    const p = this.schemaPath;
    if (!p) return this.at(prefix);
    return this.at(p.startsWith('$') ? prefix + p.slice(1) : `${prefix} (in ${p})`);
  }

  /** The error said to be at another path. */
  at(schemaPath: string): this {
    this.schemaPath = schemaPath;
    this.message = this.describe();
    return this;
  }

  private describe(): string {
    const where = this.offset >= 0 ? [`offset ${this.offset}`] : [];
    if (this.eventPos !== undefined) {
      const name = this.eventTypeName ? `, ${this.eventTypeName}` : '';
      where.push(`event at ${this.eventPos}${this.eventType !== undefined ? ` (type ${this.eventType}${name})` : ''}`);
    }
    if (this.schemaPath) where.push(`in ${this.schemaPath}`);
    // An error of no place in a binlog (a server's, a connection's) is its problem alone.
    return where.length ? `${this.problem} [${where.join(', ')}]` : this.problem;
  }
}

/** The input ended, or a length ran past the end of its event. */
export class TruncatedError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('truncated', problem, site);
  }
}

/** The file does not start with the binlog magic. */
export class BadMagicError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('bad-magic', problem, site);
  }
}

/** The CRC32 stored in an event differs from the one computed over its bytes. */
export class ChecksumError extends BinlogError {
  readonly expected: number;
  readonly actual: number;
  constructor(expected: number, actual: number, site: ErrorSite) {
    super('checksum', `checksum mismatch: stored 0x${hex32(expected)}, computed 0x${hex32(actual)}`, site);
    this.expected = expected;
    this.actual = actual;
  }
}

/** A length or count read from the input is impossible (negative, too large, past the event). */
export class LengthError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('length', problem, site);
  }
}

/** A value is not valid for its type (a bad enum code, a byte that must be zero). */
export class InvalidValueError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('invalid-value', problem, site);
  }
}

/** A check the schema declares failed, e.g. a derived field disagrees with what it derives from. */
export class SchemaCheckError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('schema-check', problem, site);
  }
}

/** A row event names a table id that no TABLE_MAP before it described. */
export class UnknownTableError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('unknown-table', problem, site);
  }
}

/** A fault of this library, not of the input (an exception a decoder did not expect), still with its place. */
export class InternalError extends BinlogError {
  constructor(problem: string, site: ErrorSite) {
    super('internal', problem, site);
  }
}

/** A value handed to an encoder cannot be written as the schema says. */
export class EncodeError extends BinlogError {
  constructor(problem: string, schemaPath: string) {
    super('encode', problem, { offset: -1, schemaPath });
  }
}

/**
 * A server refused or ended what was asked of it (a wrong password, a missing privilege, an unknown or
 * purged binlog, a position inside an event): its error number, SQL state and message, quoted.
 */
export class ServerError extends BinlogError {
  constructor(
    readonly errorCode: number,
    readonly sqlState: string,
    readonly serverMessage: string,
    site: ErrorSite = { offset: -1 },
    /**
     * What the server refused, when its message alone misleads (MariaDB answers a COM_REGISTER_SLAVE without the
     * privilege with 1045, as for a wrong password).
     */
    readonly refused?: string,
  ) {
    const says = `the server says: ${printable(serverMessage)} (error ${errorCode}, SQL state ${sqlState})`;
    super('server', `${refused ? `${refused}: ` : ''}${says}`, site);
  }

  /** The same error, saying what was refused. */
  refusing(what: string): ServerError {
    return new ServerError(this.errorCode, this.sqlState, this.serverMessage, { offset: this.offset }, what);
  }
}

/** The connection to a server could not be made, or was lost (the server stopped, the network failed). */
export class ConnectionError extends BinlogError {
  constructor(problem: string, site: ErrorSite = { offset: -1 }) {
    super('connection', problem, site);
  }
}

/**
 * A consistent snapshot could not be taken: the server writes no binlog, the user lacks a privilege the
 * method needs, or the tables kept changing shape while it began.
 */
export class SnapshotError extends BinlogError {
  constructor(problem: string) {
    super('snapshot', problem, { offset: -1 });
  }
}

/** A lost connection that reconnecting did not restore within the attempts or the time allowed. */
export class GaveUpError extends ConnectionError {
  constructor(
    /** The attempts made since the loss. */
    readonly attempts: number,
    /** Seconds since the loss. */
    readonly seconds: number,
    /** Why the connection was lost, or why the last attempt failed. */
    readonly lastError: Error,
  ) {
    super(
      `gave up reconnecting after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${seconds.toFixed(1)} s: ` +
        `${lastError.message}`,
    );
  }
}

/** The escapes of the control characters a terminal acts on, as C writes them; the others are \xNN. */
const ESCAPES: Record<string, string> = { '\x1b': '\\e', '\r': '\\r', '\n': '\\n', '\t': '\\t' };

/**
 * Text from a peer (a server's error message) made safe to print: a control character (C0, DEL, C1) could
 * move the cursor, recolour or rewrite the terminal, or forge lines in a log, so each is written as an escape.
 */
export function printable(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => ESCAPES[c] ?? `\\x${hex2(c.charCodeAt(0))}`);
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
