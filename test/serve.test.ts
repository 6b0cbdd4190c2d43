/**
 * `serveBinlog` against this project's own replication client: what a dump from it gives is the file
 * dump of the served files, line for line, from any event's offset, checksums or none; bad requests get
 * the server's ERR, in words that say what is wrong.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventFlags } from '../generated/header.js';
import { ServerError } from '../runtime/core/errors.js';
import { toJsonLine } from '../runtime/core/dump-json.js';
import type { BinlogEvent, BinlogEventInput } from '../runtime/events/event-codec.js';
import { MysqlGtidSet } from '../protocol/gtid-sets.js';
import { decodeBinlog, frameBinlog, Framer, readBinlog } from '../runtime/io/stream.js';
import { BinlogDumpFlags, encodeBinlogDumpPacket, encodeRegisterSlavePacket } from '../generated/replication.js';
import { packet } from '../protocol/packets.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { Wire } from '../replication/wire.js';
import { serveBinlog, type BinlogServer } from '../server/serve.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';
import { joinedRegExp } from './support/regex.js';

const MAX_EVENTS = 100_000;

async function live(options: LiveOptions): Promise<BinlogEvent[]> {
  const out: BinlogEvent[] = [];
  for await (const e of connectBinlog({ heartbeatPeriod: 0, ...options })) {
    out.push(e);
    if (out.length > MAX_EVENTS) throw new Error('the dump does not end');
  }
  return out;
}

/** The file dump's lines, the in-use flag off (a dump sends the FORMAT_DESCRIPTION as a closed file holds it). */
async function fileLines(paths: string[], from = 4): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    for await (const e of readBinlog(p)) {
      if (e.type === 'FORMAT_DESCRIPTION_EVENT') e.header.flags! &= ~EventFlags.LOG_EVENT_BINLOG_IN_USE_F;
      if (p !== paths[0] || e.pos >= from) out.push(toJsonLine(e));
    }
  }
  return out;
}

const readBinlogSync = (path: string) => decodeBinlog(readFileSync(path));
const inFile = (events: BinlogEvent[]) => events.filter((e) => !e.notInFile).map((e) => toJsonLine(e));

const named = (suffix: string) => fixtures().find((f) => f.name.endsWith(suffix))!.path;

describeWithFixtures('serveBinlog, read by the replication client', () => {
  let mariadb: string;
  let mysql: string;
  let server: BinlogServer;
  let mysqlServer: BinlogServer;
  const at = (s = server) => ({ host: '127.0.0.1', port: s.port, user: 'replica' });

  beforeAll(async () => {
    mariadb = named('test-data__binlogs__mariadb-bin.000001');
    mysql = named('src__test__resources__mysql-bin.checksum-crc32');
    server = await serveBinlog({ files: [mariadb] }, { log: (m) => console.log(m) });
    mysqlServer = await serveBinlog({ files: [mysql] }, { log: (m) => console.log(m) });
  });
  afterAll(async () => {
    await server?.close();
    await mysqlServer?.close();
  });

  it('gives a served file line for line as the file dump does', async () => {
    const events = await live({ ...at(), file: basename(mariadb), position: 4, until: 'logs' });
    expect(inFile(events)).toEqual(await fileLines([mariadb]));
    // Before the file's events: the fake ROTATE that names it, as a real source sends.
    expect(events[0]).toMatchObject({
      type: 'ROTATE_EVENT',
      notInFile: 'artificial',
      nextFile: basename(mariadb),
      position: 4n,
    });
    const mysqlEvents = await live({ ...at(mysqlServer), file: basename(mysql), position: 4, until: 'logs' });
    expect(inFile(mysqlEvents)).toEqual(await fileLines([mysql]));
    expect(mysqlEvents.length).toBeGreaterThan(300);
  });

  it('starts at any event, the FORMAT_DESCRIPTION resent first', async () => {
    const lines = await fileLines([mysql]);
    // Transactions' first events (the client needs their TABLE_MAPs), and the last event.
    const starts = lines.flatMap((l, k) => (JSON.parse(l).type === 'ANONYMOUS_GTID_LOG_EVENT' ? [k] : []));
    expect(starts.length).toBeGreaterThan(20);
    for (const k of [1, starts[0]!, starts[20]!, lines.length - 1]) {
      const pos = (JSON.parse(lines[k]!) as { pos: number }).pos;
      const events = await live({ ...at(mysqlServer), file: basename(mysql), position: pos, until: 'logs' });
      expect(inFile(events)).toEqual(lines.slice(k));
      expect(events[1]).toMatchObject({
        type: 'FORMAT_DESCRIPTION_EVENT',
        notInFile: 'artificial',
        header: { logPos: 0 },
      });
    }
  });

  it('refuses a position inside an event, and a file it does not serve, saying so', async () => {
    const third = JSON.parse((await fileLines([mysql]))[3]!) as { pos: number };
    const inside = live({ ...at(mysqlServer), file: basename(mysql), position: third.pos + 1, until: 'file' });
    await expect(inside).rejects.toThrow(ServerError);
    await expect(inside).rejects.toThrow(new RegExp(`position ${third.pos + 1} is inside the event at ${third.pos}`));
    await expect(live({ ...at(), file: 'nosuch.000001', position: 4, until: 'file' })).rejects.toThrow(
      /nosuch\.000001 is not a binlog served here/,
    );
  });

  it('starts after a MariaDB GTID state, and refuses one that is in no served file', async () => {
    const gtids: (BinlogEvent & { type: 'GTID_EVENT' })[] = [];
    for await (const e of readBinlog(mariadb)) if (e.type === 'GTID_EVENT') gtids.push(e);
    expect(gtids).toHaveLength(2);
    const [g] = gtids;
    const events = await live({ ...at(), gtid: `${g!.domainId}-${g!.header.serverId}-${g!.seqNo}`, until: 'logs' });
    const lines = await fileLines([mariadb]);
    const at_ = (pos: bigint | number) => lines.findIndex((l) => JSON.parse(l).pos === Number(pos));
    // From the binlog's start (MariaDB's GTID start), the first transaction left out; the
    // FORMAT_DESCRIPTION without its created time, which would have the replica drop its temporary tables.
    const sent = inFile(events);
    expect(sent.slice(1)).toEqual([...lines.slice(1, at_(g!.pos)), ...lines.slice(at_(gtids[1]!.pos))]);
    expect(events.find((e) => e.type === 'FORMAT_DESCRIPTION_EVENT')).toMatchObject({ pos: 4, createTimestamp: 0 });
    await expect(live({ ...at(), gtid: '0-1-999999999', until: 'logs' })).rejects.toThrow(
      /GTID 0-1-999999999, which is in none of the served binlogs/,
    );
  });

  it('leaves out the transactions of a MySQL GTID set (COM_BINLOG_DUMP_GTID)', async () => {
    const path = named('tests__events__5.7__33_35_gtid_prev_gtid__log.bin');
    const gtidServer = await serveBinlog({ files: [path] }, { log: (m) => console.log(m) });
    try {
      const lines = await fileLines([path]);
      const gtids = lines.flatMap((l, i) => (JSON.parse(l).type === 'GTID_LOG_EVENT' ? [i] : []));
      expect(gtids).toHaveLength(3);
      const first = decodeBinlog(readFileSync(path)).find((e) => e.type === 'GTID_LOG_EVENT') as BinlogEvent & {
        sid: Uint8Array;
        gno: bigint;
      };
      const uuid = Buffer.from(first.sid)
        .toString('hex')
        .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
      const events = await live({ ...at(gtidServer), gtid: `${uuid}:${first.gno}`, until: 'logs' });
      // The first transaction, from its GTID event to the next one, is not sent; the rest is. The
      // FORMAT_DESCRIPTION says no created time, the binlog's first transaction being the replica's.
      expect(inFile(events).slice(1)).toEqual([...lines.slice(1, gtids[0]), ...lines.slice(gtids[1])]);
      expect(events.find((e) => e.type === 'FORMAT_DESCRIPTION_EVENT')).toMatchObject({ pos: 4, createTimestamp: 0 });
    } finally {
      await gtidServer.close();
    }
  });

  it(
    'refuses a MySQL GTID set ahead of the served binlogs, or without what came before them, ' + 'in MySQL words',
    async () => {
      const path = named('tests__events__5.7__33_35_gtid_prev_gtid__log.bin');
      const source = '80549ecc-d2f2-11ea-b790-0242ac130002';
      const other = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
      // The binlog as if 5 transactions of another source had come before it (its PREVIOUS_GTIDS says so).
      const before = new MysqlGtidSet(`${other}:1-5`);
      async function* events() {
        for (const e of decodeBinlog(readFileSync(path), { file: basename(path) })) {
          yield (e.type === 'PREVIOUS_GTIDS_LOG_EVENT' ? { ...e, ...before.encoded() } : e) as BinlogEventInput;
        }
      }
      const gtidServer = await serveBinlog({ events: events() }, { log: (m) => console.log(m) });
      try {
        const dump = (gtid: string) => live({ ...at(gtidServer), gtid, until: 'logs' });
        await expect(dump(`${other}:1-5,${source}:1-4`)).rejects.toThrow(
          joinedRegExp(
            /Slave has more GTIDs than the master has, using the master's SERVER_UUID\..*the /,
            /replica has 80549ecc-d2f2-11ea-b790-0242ac130002:4, which the served binlogs/,
          ),
        );
        await expect(dump(`${other}:1-6`)).rejects.toThrow(/the replica has 3e11fa47-71ca-11e1-9e33-c80aa9429562:6,/);
        await expect(dump(`${source}:1`)).rejects.toThrow(
          joinedRegExp(
            /The slave is connecting using CHANGE MASTER TO MASTER_AUTO_POSITION = 1, but the /,
            /master has purged binary logs containing GTIDs that the slave requires\..*lacks /,
            /3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5/,
          ),
        );
        await expect(dump(`${other}:1-3:5,${source}:1`)).rejects.toThrow(
          /lacks 3e11fa47-71ca-11e1-9e33-c80aa9429562:4,/,
        );
        // A source the binlogs do not have is another primary's: not refused.
        const events = await dump(`${other}:1-5,${source}:1-2,aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee:1-100`);
        expect(
          events.filter((e) => e.type === 'GTID_LOG_EVENT').map((e) => (e as BinlogEvent & { gno: bigint }).gno),
        ).toEqual([3n]);
      } finally {
        await gtidServer.close();
      }
    },
  );

  it('lets in only the account given, when one is', async () => {
    const guarded = await serveBinlog(
      { files: [mariadb] },
      { user: 'repl', password: 's3cret', log: (m) => console.log(m) },
    );
    try {
      await expect(Wire.open({ ...at(guarded), user: 'repl', password: 'wrong' })).rejects.toThrow(
        /Access denied for user 'repl'/,
      );
      await expect(Wire.open({ ...at(guarded), user: 'other', password: 's3cret' })).rejects.toThrow(
        /Access denied for user 'other'/,
      );
      const wire = await Wire.open({ ...at(guarded), user: 'repl', password: 's3cret' });
      expect(await wire.query('SELECT 1 AS one')).toEqual([{ one: '1' }]);
      wire.close();
    } finally {
      await guarded.close();
    }
  });

  it('sends no CRC32s to a replica that does not ask for them', async () => {
    const wire = await Wire.open(at(mysqlServer));
    try {
      const payload = packet(encodeBinlogDumpPacket, {
        position: 4,
        flags: BinlogDumpFlags.BINLOG_DUMP_NON_BLOCK,
        serverId: 99,
        file: basename(mysql),
      });
      const sent: Uint8Array[] = [];
      for await (const p of wire.stream(payload, (b) => b[0] === 0xfe && b.length < 9))
        if (p[0] === 0) sent.push(p.subarray(1));
      const file = [...frameBinlog(readFileSync(mysql))];
      // The fake ROTATE first; then each event of the file, 4 bytes shorter but the FORMAT_DESCRIPTION,
      // whose algorithm says none (its CRC32 stays, as a checksum-aware server writes it).
      const fde = sent[1]!;
      expect(fde.length).toBe(file[0]!.bytes.length);
      expect(fde[fde.length - 5]).toBe(0);
      expect(file[0]!.bytes[fde.length - 5]).toBe(1);
      expect(sent.slice(2).map((b) => b.length)).toEqual(file.slice(1).map((f) => f.bytes.length - 4));
      expect(sent.slice(2).map((b) => Buffer.from(b.subarray(19)).toString('hex'))).toEqual(
        file.slice(1).map((f) => Buffer.from(f.bytes.subarray(19, -4)).toString('hex')),
      );
      // Read as a binlog without checksums, they are the file's events.
      const framer = new Framer({ verifyChecksum: true });
      framer.push(Uint8Array.of(0xfe, 0x62, 0x69, 0x6e));
      for (const b of sent.slice(1)) framer.push(b);
      expect([...framer.drain()].map((e) => e.type)).toEqual([...readBinlogSync(mysql)].map((e) => e.type));
    } finally {
      wire.close();
    }
  });

  it('answers what clients ask before a dump, and an unknown statement with an ERR naming it', async () => {
    const wire = await Wire.open(at());
    try {
      const [row] = await wire.query(
        'SELECT UNIX_TIMESTAMP(), @@server_id AS id, @@global.binlog_checksum, VERSION() v',
      );
      expect(row!['@@global.binlog_checksum']).toBe('CRC32');
      expect(row!.v).toMatch(/^10\.5\.15-MariaDB/);
      expect(Math.abs(Number(row!['UNIX_TIMESTAMP()']) - Date.now() / 1000)).toBeLessThan(3600);
      await wire.query("SET @master_binlog_checksum = 'NONE', @x := 5");
      expect(await wire.query('SELECT @master_binlog_checksum, @x')).toEqual([
        { '@master_binlog_checksum': 'NONE', '@x': '5' },
      ]);
      expect(await wire.query("SHOW VARIABLES LIKE 'SERVER_ID'")).toEqual([
        { Variable_name: 'server_id', Value: String(row!.id) },
      ]);
      expect(await wire.query('SHOW BINARY LOGS')).toEqual([
        { Log_name: basename(mariadb), File_size: String(statSync(mariadb).size) },
      ]);
      const [status] = await wire.query('SHOW MASTER STATUS');
      expect(status).toMatchObject({ File: basename(mariadb), Position: String(statSync(mariadb).size) });
      await expect(wire.query('SELECT * FROM mysql.user')).rejects.toThrow(
        /binlog serve does not answer this statement: SELECT \* FROM mysql\.user/,
      );
      await expect(wire.query('SELECT @@nosuch')).rejects.toThrow(/Unknown system variable 'nosuch'/);
      await expect(wire.command(Uint8Array.of(0x99))).rejects.toThrow(/binlog serve does not know command 0x99/);
      // The connection is still good after the errors.
      expect(await wire.query('SELECT 1 AS one')).toEqual([{ one: '1' }]);
      await wire.command(
        packet(encodeRegisterSlavePacket, {
          serverId: 42,
          host: 'cdc-host',
          user: '',
          password: '',
          port: 3310,
          replicationRank: 0,
          masterId: 0,
        }),
      );
      expect(await wire.query('SHOW SLAVE HOSTS')).toEqual([
        { Server_id: '42', Host: 'cdc-host', Port: '3310', Master_id: '0' },
      ]);
    } finally {
      wire.close();
    }
  });
});
