/**
 * @vlasky/zongji's own event and row decoding, driven without a server. zongji parses events in
 * lib/sequence/binlog.js (`Binlog.prototype.binlogData(packet, connection)`, called by mysql2 with each
 * replication packet), which wraps the packet in its Parser, reads the OK byte and the v4 header in
 * lib/packet/binlog.js and builds the event's class (lib/binlog_event.js, lib/rows_event.js; cells in
 * lib/common.js). Rows events find their table in `zongji.tableMap`, which index.js fills when a
 * TABLE_MAP event carries full metadata (buildColumnSchemas + updateColumnInfo); that step is
 * reproduced here in `onEvent`, as index.js's binlogHandler does it.
 *
 * Each packet is what a server sends for one event: a 0x00 OK byte, then the event exactly as in the
 * file (header, body, CRC32). They are laid out back to back in one buffer before timing starts, as a
 * network read buffer would hold them; mysql2's 4-byte packet header is not part of the parser's view.
 */
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

interface ZongjiModules {
  ZongJi: new (dsn: unknown) => ZongjiInstance;
  initBinlogClass: (z: ZongjiInstance) => new (cb: (err: unknown, event: ZongjiEvent | undefined) => void) => {
    binlogData(packet: FakePacket, connection: unknown): unknown;
  };
}
interface ZongjiInstance {
  useChecksum: boolean;
  isMariaDb: boolean;
  stopped: boolean;
  connection: unknown;
  tableMap: Record<number, unknown>;
  on(name: string, fn: (e: Error) => void): void;
}
interface ZongjiEvent {
  _filtered?: boolean;
  rows?: unknown[];
  tableId: number;
  schemaName: string;
  tableName: string;
  getTypeName(): string;
  hasSelfDescribingMetadata(): boolean;
  hasAmbiguousTemporalColumns(): boolean;
  buildColumnSchemas(): unknown;
  updateColumnInfo(): void;
}
interface FakePacket {
  buffer: Buffer;
  offset: number;
  end: number;
  isEOF(): boolean;
  isError(): boolean;
}

async function load(): Promise<ZongjiModules> {
  // lib/ is not in the package's exports map: import its files by path.
  const root = path.dirname(createRequire(import.meta.url).resolve('@vlasky/zongji'));
  const url = (p: string) => pathToFileURL(path.join(root, p)).href;
  const ZongJi = (await import(url('index.js'))).default;
  const initBinlogClass = (await import(url('lib/sequence/binlog.js'))).default;
  return { ZongJi, initBinlogClass };
}

/** The replication packets of a binlog: [0x00, …event] per event, back to back, and their bounds. */
export function packets(file: Uint8Array): { buffer: Buffer; starts: Uint32Array; count: number } {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let count = 0;
  for (let pos = 4; pos < file.length; pos += view.getUint32(pos + 9, true)) count++;
  const buffer = Buffer.allocUnsafe(file.length - 4 + count);
  const starts = new Uint32Array(count + 1);
  let at = 0;
  let i = 0;
  for (let pos = 4; pos < file.length;) {
    const size = view.getUint32(pos + 9, true);
    starts[i++] = at;
    buffer[at] = 0x00;
    buffer.set(file.subarray(pos, pos + size), at + 1);
    at += size + 1;
    pos += size;
  }
  starts[i] = at;
  return { buffer, starts, count };
}

export interface ZongjiDecoder {
  /** Decodes every packet; returns the number of row changes zongji produced. */
  run(p: ReturnType<typeof packets>): number;
}

export async function zongjiDecoder(): Promise<ZongjiDecoder> {
  const { ZongJi, initBinlogClass } = await load();
  return {
    run(p) {
      // A fresh instance per run, in the state ZongJi.start() leaves it in against a MariaDB server with
      // binlog_checksum=CRC32 (useChecksum, isMariaDb), mysql2's default dateStrings/timezone.
      const zongji = new ZongJi({});
      const connection = { config: { dateStrings: false, timezone: 'local' } };
      zongji.useChecksum = true;
      zongji.isMariaDb = true;
      zongji.stopped = false;
      zongji.connection = connection;
      zongji.on('error', (e) => {
        throw e;
      });
      let rows = 0;
      const onEvent = (err: unknown, event: ZongjiEvent | undefined) => {
        if (err) throw err;
        if (!event || event._filtered) return;
        if (event.getTypeName() === 'TableMap') {
          if (!event.hasSelfDescribingMetadata() || event.hasAmbiguousTemporalColumns()) {
            throw new Error(`zongji would need INFORMATION_SCHEMA for ${event.schemaName}.${event.tableName}`);
          }
          zongji.tableMap[event.tableId] = {
            columnSchemas: event.buildColumnSchemas(),
            parentSchema: event.schemaName,
            tableName: event.tableName,
          };
          event.updateColumnInfo();
        } else if (event.rows) {
          rows += event.rows.length;
        }
      };
      const Binlog = initBinlogClass(zongji);
      const sequence = new Binlog(onEvent);
      const packet: FakePacket = { buffer: p.buffer, offset: 0, end: 0, isEOF: () => false, isError: () => false };
      for (let i = 0; i < p.count; i++) {
        packet.offset = p.starts[i]!;
        packet.end = p.starts[i + 1]!;
        sequence.binlogData(packet, connection);
      }
      return rows;
    },
  };
}
