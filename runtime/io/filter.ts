/**
 * Reading part of a binlog, as mariadb-binlog's users do: a position or time window, some databases, some
 * tables. What passes is whole transactions (transactions.ts), so that it replays as the server ran it:
 *
 * - start position: the first transaction whose first event is at or after it, and every event after it
 *   (as mariadb-binlog prints everything once it has found its start). A transaction begun before the
 *   start is left out whole, not cut.
 * - start time: the first transaction any of whose events is at or after it (a MariaDB transaction's
 *   GTID carries its commit's time, its statements' events their own, earlier ones), whole, and every event
 *   after it, even when a later event's time is earlier. mariadb-binlog instead begins at the first such
 *   event, inside the transaction, and so leaves its rows out (it prints the XID alone). Until it is known
 *   whether a transaction reaches the start time, its events are held.
 * - stop position: reading stops at the first event at or after it; the transaction it falls in is left
 *   out whole (mariadb-binlog prints its start and ROLLBACK, which applies none of it).
 * - stop time: reading stops at the first event at or after it, but a transaction that has an event in
 *   the window before it is kept whole, and reading stops at its end (mariadb-binlog rolls such a
 *   transaction back, and so loses its rows). A datetime window thus keeps every transaction any of whose
 *   events falls in it, whole.
 *
 * Telling what passes of a transaction under a stop filter needs its end, so then each transaction is held
 * until it ends, up to maxTransactionSize bytes of events (a LengthError past that).
 * - databases and tables: a transaction that touches none of them is left out whole; one that does keeps
 *   its frame (GTID, BEGIN, XA END, XA_PREPARE, COMMIT, XID) and only the selected TABLE_MAP, rows,
 *   ANNOTATE_ROWS and ROWS_QUERY events. A statement (DDL, statement-based changes) is selected by its
 *   default database, as mariadb-binlog's --database selects it, with the INTVAR, RAND and USER_VAR
 *   events before it; under a table filter statements are left out, since their text is all that
 *   names their tables (MySQL 3.23 to 5.0's LOAD events name theirs, and are selected by it). An XA
 *   COMMIT or ROLLBACK passes unless its XA transaction was read and left out, an INCIDENT always. Inside a
 *   TRANSACTION_PAYLOAD the same rule keeps some inner events: the payload is then compressed anew on
 *   encode. Names compare exactly, as servers with lower_case_table_names=0 (Linux's default) do;
 *   ignoreCase compares them as those with 1 or 2 do. These filters hold only a transaction's frame until
 *   its first selected event.
 *
 * The events that set how later ones read (FORMAT_DESCRIPTION, START_EVENT_V3, START_ENCRYPTION) pass every
 * filter but the stop, so that what passes is still a binlog.
 */
import { LengthError } from '../core/errors.js';
import type { Text } from '../core/reader.js';
import type { BinlogEvent } from '../events/event-codec.js';
import { EventEffects, type EventTypes } from '../../generated/events.js';
import { definitionMismatch } from '../tables/registry.js';
import { isStatement, keywordOf, textOf, Transactions } from './transactions.js';

type EventName = keyof typeof EventTypes;

export interface EventFilter {
  /** Transactions that begin at or after this offset of the first file read. */
  startPosition?: number;
  /** Stop at the first event at or after this offset of `stopFile`. */
  stopPosition?: number;
  /** The file `stopPosition` is in (an event's `file`; default: the first file read). */
  stopFile?: string;
  /** Transactions any of whose events' timestamps (Unix seconds) is at or after this. */
  startTime?: number;
  /** Stop at the first event whose timestamp is at or after this (after the passing transaction it falls in). */
  stopTime?: number;
  /** Only transactions that touch these databases, and of those only their events. */
  database?: string | string[];
  /**
   * Only transactions that touch these tables (`db.table`, or `table` in any database), and of those only their events.
   */
  table?: string | string[];
  /** Compare names without regard to case (lower_case_table_names=1 or 2); exactly by default. */
  ignoreCase?: boolean;
  /** The bytes of events a stop filter may hold of one transaction (default 64 MiB). */
  maxTransactionSize?: number;
}

const DEFAULT_MAX_TRANSACTION = 64 << 20;

/** The events that set how later ones read: they pass every filter but the stop. */
const FORMAT_EFFECTS: ReadonlySet<string> = new Set(['sets-format', 'sets-v3-format', 'starts-encryption']);

type Sink = (e: BinlogEvent) => void;

/** Which events name what: the databases and tables asked for, and what the events read so far say. */
class Names {
  private readonly databases: { db: string; spec: string }[];
  private readonly tables: { db?: string; table: string; spec: string }[];
  /** The names asked for that some event read has named. */
  private readonly seen = new Set<string>();
  /** Table ids (of the TABLE_MAP events read) whose rows are selected. */
  readonly tableIds = new Map<number, boolean>();
  /** Files of MySQL 4.0's LOAD (CREATE_FILE) whose blocks are selected. */
  readonly fileIds = new Map<number, boolean>();
  /** XA transactions read (by the id their XA END gives) and whether they were selected. */
  readonly xa = new Map<string, boolean>();
  /** The last TABLE_MAP's choice, which MariaDB's row fragments (PARTIAL_ROW_DATA) follow. */
  lastMap = false;

  constructor(
    databases: string[],
    tables: string[],
    private readonly ignoreCase: boolean,
  ) {
    this.databases = databases.map((spec) => ({ db: this.fold(spec), spec }));
    this.tables = tables.map((spec) => {
      const dot = spec.indexOf('.');
      return dot < 0
        ? { table: this.fold(spec), spec }
        : { db: this.fold(spec.slice(0, dot)), table: this.fold(spec.slice(dot + 1)), spec };
    });
  }

  private fold(name: string): string {
    return this.ignoreCase ? name.toLowerCase() : name;
  }

  private name(t: unknown): string | undefined {
    const s = textOf(t);
    return s === undefined ? undefined : this.fold(s);
  }

  /** Whether a statement or table of database `schema` (and table `table`, when the event names it) is selected. */
  selects(schema: Text | undefined, table: Text | undefined): boolean {
    const db = this.name(schema);
    const t = this.name(table);
    const inDb = (d: (typeof this.databases)[number]) => d.db === db;
    for (const d of this.databases) if (inDb(d)) this.seen.add(`d:${d.spec}`);
    const inTable = (spec: (typeof this.tables)[number]) =>
      t !== undefined && spec.table === t && (spec.db === undefined || spec.db === db);
    for (const spec of this.tables) if (inTable(spec)) this.seen.add(`t:${spec.spec}`);
    const dbOk = this.databases.length === 0 || this.databases.some(inDb);
    return dbOk && (this.tables.length === 0 || this.tables.some(inTable));
  }

  /** The databases and tables asked for that no event read named. */
  unmatched(): { databases: string[]; tables: string[] } {
    return {
      databases: this.databases.filter((d) => !this.seen.has(`d:${d.spec}`)).map((d) => d.spec),
      tables: this.tables.filter((t) => !this.seen.has(`t:${t.spec}`)).map((t) => t.spec),
    };
  }
}

type Field = {
  schema?: Text;
  tableName?: Text;
  schemaName?: Text;
  fileId?: number;
  tableId?: number;
  events?: BinlogEvent[];
};

/** What an event is to the names: a table's (map, rows, fragment), a statement's, or the frame around them. */
type Kind =
  'map' | 'rows' | 'fragment' | 'annotation' | 'file' | 'context' | 'payload' | 'statement' | 'incident' | 'frame';

const ANNOTATIONS: ReadonlySet<string> = new Set<EventName>(['ANNOTATE_ROWS_EVENT', 'ROWS_QUERY_LOG_EVENT']);
/** Events that set up the statement after them. */
const CONTEXT: ReadonlySet<string> = new Set<EventName>([
  'INTVAR_EVENT',
  'RAND_EVENT',
  'USER_VAR_EVENT',
  'BEGIN_LOAD_QUERY_EVENT',
  'APPEND_BLOCK_EVENT',
]);
/** Events of a file that a CREATE_FILE began. */
const FILE_EVENTS: ReadonlySet<string> = new Set<EventName>([
  'APPEND_BLOCK_EVENT',
  'EXEC_LOAD_EVENT',
  'DELETE_FILE_EVENT',
]);

function kindOf(e: BinlogEvent, f: Field, fileIds: Map<number, boolean>): Kind {
  if ('raw' in e) return 'frame';
  if (e.type === 'TABLE_MAP_EVENT') return 'map';
  // A rows event: a table id and flags (PARTIAL_ROW_DATA's fragments carry no table id).
  if (f.tableId !== undefined && 'flags' in e) return 'rows';
  if (e.type === 'PARTIAL_ROW_DATA_EVENT') return 'fragment';
  if (ANNOTATIONS.has(e.type)) return 'annotation';
  if (FILE_EVENTS.has(e.type) && f.fileId !== undefined && fileIds.has(f.fileId)) return 'file';
  if (CONTEXT.has(e.type)) return 'context';
  if (e.type === 'TRANSACTION_PAYLOAD_EVENT') return f.events ? 'payload' : 'frame';
  if (e.type === 'INCIDENT_EVENT') return 'incident';
  // LOAD, NEW_LOAD and CREATE_FILE name their database and table.
  if (isStatement(e) || (f.schema !== undefined && f.tableName !== undefined)) return 'statement';
  return 'frame';
}

/**
 * The selected events of one transaction, given one at a time and passed on to `emit` in order: its frame
 * held until the first selected event, an annotation until its statement's first selected TABLE_MAP, the
 * events that set up a statement until the statement.
 */
class Content {
  selected = false;
  /** Bytes of the events held now. */
  heldBytes = 0;
  private held: BinlogEvent[] = [];
  private annotation: BinlogEvent | undefined;
  private context: BinlogEvent[] = [];
  private xaEnd: string | undefined;
  private xaCompletes: string | undefined;

  constructor(
    private readonly names: Names,
    private readonly emit: Sink,
  ) {}

  add(e: BinlogEvent): void {
    // The selection reads a few fields by name across every event type; Field lists them, each optional.
    const f = e as unknown as Field;
    const names = this.names;
    switch (kindOf(e, f, names.fileIds)) {
      case 'map': {
        const sel = names.selects(f.schemaName, f.tableName);
        names.tableIds.set(f.tableId!, sel);
        names.lastMap = sel;
        if (sel) this.take(e, this.takeAnnotation());
        return;
      }
      case 'rows':
        this.dropAnnotation();
        if (names.tableIds.get(f.tableId!)) this.take(e, []);
        return;
      case 'fragment':
        if (names.lastMap) this.take(e, []);
        return;
      case 'annotation':
        this.dropAnnotation();
        this.annotation = e;
        this.heldBytes += e.header.eventSize;
        return;
      case 'file': {
        const sel = names.fileIds.get(f.fileId!)!;
        if (e.type !== 'APPEND_BLOCK_EVENT') names.fileIds.delete(f.fileId!);
        if (sel) this.take(e, []);
        return;
      }
      case 'context':
        this.context.push(e);
        this.heldBytes += e.header.eventSize;
        return;
      case 'payload':
        return this.payload(e, f.events!);
      case 'statement':
        return this.statement(e, f);
      case 'incident':
        // The server lost events here: whoever reads any part of the binlog must know.
        return this.take(e, []);
      case 'frame':
        return this.frame(e);
    }
  }

  private takeAnnotation(): BinlogEvent[] {
    const a = this.annotation;
    this.dropAnnotation();
    return a ? [a] : [];
  }

  private dropAnnotation(): void {
    if (this.annotation) this.heldBytes -= this.annotation.header.eventSize;
    this.annotation = undefined;
  }

  private statement(e: BinlogEvent, f: Field): void {
    // Under a table filter only a LOAD's own table selects it: a QUERY's tables are only in its SQL.
    const sel = this.names.selects(f.schema, f.tableName);
    if (f.fileId !== undefined) this.names.fileIds.set(f.fileId, sel);
    const context = this.context;
    this.context = [];
    for (const c of context) this.heldBytes -= c.header.eventSize;
    this.dropAnnotation();
    if (sel) this.take(e, context);
  }

  private frame(e: BinlogEvent): void {
    this.dropAnnotation();
    const k = keywordOf(e);
    if (k?.keyword === 'XA END') this.xaEnd = k.rest;
    if (k?.keyword === 'XA COMMIT' || k?.keyword === 'XA ROLLBACK') this.xaCompletes = k.rest;
    if (this.selected) this.emit(e);
    else {
      this.held.push(e);
      this.heldBytes += e.header.eventSize;
    }
  }

  /** A payload's inner events, selected as a transaction of their own: the payload keeps the selected ones. */
  private payload(e: BinlogEvent, events: BinlogEvent[]): void {
    const kept: BinlogEvent[] = [];
    const inner = new Content(this.names, (x) => kept.push(x));
    for (const x of events) inner.add(x);
    inner.close();
    if (!inner.selected) return;
    // Its stored bytes hold more than the kept events: encoding compresses them anew.
    this.take(
      kept.length === events.length ? e : ({ ...e, events: kept, payload: new Uint8Array(0) } as BinlogEvent),
      [],
    );
  }

  /** Passes on `e`, after `before`, and the held frame first if nothing was selected yet. */
  private take(e: BinlogEvent, before: BinlogEvent[]): void {
    if (!this.selected) this.select();
    for (const b of before) this.emit(b);
    this.emit(e);
  }

  private select(): void {
    this.selected = true;
    for (const h of this.held) this.emit(h);
    this.held = [];
    this.heldBytes = this.annotation?.header.eventSize ?? 0;
    for (const c of this.context) this.heldBytes += c.header.eventSize;
  }

  /** The transaction has ended: an XA COMMIT or ROLLBACK passes unless its transaction was left out. */
  close(): void {
    if (!this.selected && this.xaCompletes !== undefined && this.names.xa.get(this.xaCompletes) !== false)
      this.select();
    if (this.xaEnd !== undefined) this.names.xa.set(this.xaEnd, this.selected);
    if (this.xaCompletes !== undefined) this.names.xa.delete(this.xaCompletes);
  }
}

/**
 * An event that passes the filters, refused if it is a TABLE_MAP (or a payload holding one) whose table's
 * definition did not fit it: a reader under filters reads the events it leaves out without that refusal
 * (TableRegistry.deferMismatches), as the definitions given are those of the tables as they are now.
 */
function kept(e: BinlogEvent): BinlogEvent {
  if (e.type === 'TABLE_MAP_EVENT') {
    const mismatch = definitionMismatch(e);
    if (mismatch) throw mismatch;
  } else if (e.events) e.events.forEach(kept);
  return e;
}

/** One transaction (or event outside any) as it is read. */
interface Unit {
  first: BinlogEvent;
  /** Whether it passes the start (and so every filter but the stop and the names). */
  inWindow: boolean;
  /** Whether it passes the start position but no event of it has reached the start time yet: its events are held. */
  pending: boolean;
  content: Content | undefined;
  /** Its selected events, held to the end under a stop filter. */
  held: BinlogEvent[] | undefined;
  heldBytes: number;
}

/**
 * The filters applied to a stream of events, in constant memory (but for what a stop filter holds of one
 * transaction). Give it to a reader's `filter` option to learn afterwards which names matched nothing;
 * one selection may follow several files, read one after the other.
 */
export class EventSelection {
  /** Events read (whether they passed or not). */
  read = 0;
  /** The end offset of the last event read, in its file (a reader of several files may set it to 0 between them). */
  position = 0;
  /** Set at the first event at or after the stop: nothing passes any more. */
  stopped = false;
  private started: boolean;
  private firstFile: string | undefined;
  private anyRead = false;
  private readonly transactions = new Transactions();
  private readonly names: Names | undefined;
  private readonly max: number;
  private readonly holds: boolean;
  private unit: Unit | undefined;
  /** Set at the stop time inside a transaction that passes: reading stops at its end. */
  private stopAtEnd = false;
  private out: BinlogEvent[] = [];
  private readonly passesAll: boolean;

  constructor(readonly filter: EventFilter = {}) {
    const list = (v: string | string[] | undefined) => (v === undefined ? [] : typeof v === 'string' ? [v] : v);
    const databases = list(filter.database);
    const tables = list(filter.table);
    this.names =
      databases.length || tables.length ? new Names(databases, tables, filter.ignoreCase ?? false) : undefined;
    this.started = filter.startPosition === undefined && filter.startTime === undefined;
    this.holds = filter.stopPosition !== undefined || filter.stopTime !== undefined;
    this.max = filter.maxTransactionSize ?? DEFAULT_MAX_TRANSACTION;
    this.passesAll = this.started && !this.holds && !this.names;
  }

  /** The events that pass, as `events` are read. */
  *apply(events: Iterable<BinlogEvent>): Generator<BinlogEvent> {
    for (const e of events) {
      if (this.passesAll) {
        // No filter: only counted.
        this.read++;
        this.position = e.pos + e.header.eventSize;
        yield kept(e);
        continue;
      }
      this.push(e);
      if (this.out.length) yield* this.flush().map(kept);
      if (this.stopped) return;
    }
  }

  /** The input is over: the transaction still open passes as far as it was read. */
  *end(): Generator<BinlogEvent> {
    this.close();
    yield* this.flush().map(kept);
  }

  /** Counts a table that was read beside the events (a snapshot's rows) as named, for `unmatched`. */
  named(schema: string, table: string): void {
    this.names?.selects(schema, table);
  }

  /** The databases and tables asked for that no event read named. */
  unmatched(): { databases: string[]; tables: string[] } {
    return this.names?.unmatched() ?? { databases: [], tables: [] };
  }

  private flush(): BinlogEvent[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private push(e: BinlogEvent): void {
    this.read++;
    this.position = e.pos + e.header.eventSize;
    if (!this.anyRead) ((this.anyRead = true), (this.firstFile = e.file));
    if (this.stopped) return;
    if (this.stopsAt(e)) {
      this.stopped = true;
      this.unit = undefined;
      return;
    }
    const { begins, ends, outside } = this.transactions.step(e);
    if (begins) this.close();
    // A transaction kept past the stop time has ended (cut, without its commit): nothing after it passes.
    if (this.stopped) return;
    const unit = (this.unit ??= this.open(e, outside));
    if (unit.pending && e.header.timestamp >= this.filter.startTime!) this.reachStart(unit);
    if (unit.content) unit.content.add(e);
    else this.emit(unit, e);
    if (ends) this.close();
    else if (unit.heldBytes + (unit.content?.heldBytes ?? 0) > this.max) {
      throw new LengthError(
        `the transaction begun at ${unit.first.pos} has more than ${this.max} bytes of events ` +
          'that the filters must hold until they can decide (maxTransactionSize, --max-transaction-size)',
        { offset: e.pos, eventPos: unit.first.pos },
      );
    }
  }

  /** Whether reading stops before `e`: at the stop position, or the stop time unless a passing transaction is open. */
  private stopsAt(e: BinlogEvent): boolean {
    const f = this.filter;
    const stopFile = f.stopFile ?? this.firstFile;
    if (f.stopPosition !== undefined && e.file === stopFile && e.pos >= f.stopPosition) return true;
    if (f.stopTime === undefined || e.header.timestamp < f.stopTime) return false;
    // The open transaction passes: it is kept whole, and reading stops at its end.
    if (this.unit?.inWindow) return !(this.stopAtEnd = true);
    return true;
  }

  /** An event of a held transaction has reached the start time: it passes, and so does everything after it. */
  private reachStart(unit: Unit): void {
    unit.pending = false;
    unit.inWindow = true;
    this.started = true;
    if (this.holds) return;
    for (const e of unit.held!) this.out.push(e);
    unit.held = undefined;
    unit.heldBytes = 0;
  }

  private open(first: BinlogEvent, outside: boolean): Unit {
    const f = this.filter;
    const format = FORMAT_EFFECTS.has(EventEffects[first.type] ?? '');
    const atPosition = f.startPosition === undefined || first.file !== this.firstFile || first.pos >= f.startPosition;
    const atTime = f.startTime === undefined || first.header.timestamp >= f.startTime;
    // The FDE passes without starting anything, as in mariadb-binlog.
    if (!format && atPosition && atTime) this.started = true;
    const inWindow = format || this.started;
    // A transaction may reach the start time at a later event: it is held until one does or it ends.
    const pending = !inWindow && atPosition && !outside;
    const held = this.holds || pending ? [] : undefined;
    const unit: Unit = { first, inWindow, pending, content: undefined, held, heldBytes: 0 };
    // The log's own events name nothing: they pass the names.
    if (this.names && !outside) unit.content = new Content(this.names, (e) => this.emit(unit, e));
    return unit;
  }

  private emit(unit: Unit, e: BinlogEvent): void {
    if (!unit.inWindow && !unit.pending) return;
    if (!unit.held) this.out.push(e);
    else {
      unit.held.push(e);
      unit.heldBytes += e.header.eventSize;
    }
  }

  private close(): void {
    const unit = this.unit;
    if (!unit) return;
    this.unit = undefined;
    unit.content?.close();
    if (unit.held && unit.inWindow) for (const e of unit.held) this.out.push(e);
    if (this.stopAtEnd) this.stopped = true;
  }
}
