/**
 * The replication packets of schemas/replication.yaml against bytes written by hand from the protocol
 * documentation's examples (MariaDB's COM_BINLOG_DUMP and COM_REGISTER_SLAVE pages) and MySQL's layout
 * of COM_BINLOG_DUMP_GTID and ERR.
 */
import { describe, expect, it } from 'vitest';
import type { Context } from '../generated/context.js';
import {
  BinlogDumpFlags,
  decodeBinlogPacket,
  encodeBinlogDumpGtidPacket,
  encodeBinlogDumpPacket,
  encodeRegisterSlavePacket,
  type ErrPacket,
  type EofPacket,
  type BinlogEventPacket,
} from '../generated/replication.js';
import { Reader } from '../runtime/core/reader.js';
import { Writer } from '../runtime/core/writer.js';
import { hex } from './runtime/helpers.js';

// The packets read no context: a stand-in for the type.
const ctx = {} as Context;

function written(write: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  write(w);
  return w.finish();
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join(' ');

describe('replication commands', () => {
  it('COM_BINLOG_DUMP: command, position, flags, server id, then the file to the end', () => {
    const bytes = written((w) =>
      encodeBinlogDumpPacket(w, { position: 1588, flags: 2, serverId: 10101, file: 'mysql-bin.000034' }, ctx),
    );
    expect(bytes).toEqual(hex(`12 34 06 00 00 02 00 75 27 00 00 ${ascii('mysql-bin.000034')}`));
  });

  it('COM_REGISTER_SLAVE: the report host, user and password each after its length', () => {
    const bytes = written((w) =>
      encodeRegisterSlavePacket(
        w,
        { serverId: 10101, host: 'slave_n_1', user: '', password: '', port: 23241, replicationRank: 0, masterId: 0 },
        ctx,
      ),
    );
    expect(bytes).toEqual(hex(`15 75 27 00 00 09 ${ascii('slave_n_1')} 00 00 c9 5a 00 00 00 00 00 00 00 00`));
  });

  it('COM_BINLOG_DUMP_GTID: the file after its length, a 64-bit position, the GTID set after its size', () => {
    const uuid = new Uint8Array(16).fill(0xaa);
    const bytes = written((w) =>
      encodeBinlogDumpGtidPacket(
        w,
        {
          flags: BinlogDumpFlags.BINLOG_THROUGH_GTID,
          serverId: 7,
          file: '',
          position: 4n,
          gtids: { countLow: 1, countHigh: 0, format: 0, sids: [{ uuid, intervals: [{ start: 1n, end: 6n }] }] },
        },
        ctx,
      ),
    );
    const set =
      `01 00 00 00 00 00 00 00 ${'aa '.repeat(16)} 01 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 06 00 ` +
      `00 00 00 00 00 00`;
    expect(bytes).toEqual(hex(`1e 04 00 07 00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 30 00 00 00 ${set}`));
  });
});

describe('the packets of a dump', () => {
  const decode = (bytes: Uint8Array) => decodeBinlogPacket(new Reader(bytes), ctx);

  it('an OK byte, then the event as it is', () => {
    const p = decode(hex('00 01 02 03'));
    expect(p.status).toBe('BINLOG_PACKET_OK');
    expect((p.body as BinlogEventPacket).event).toEqual(hex('01 02 03'));
  });

  it('an ERR: code, the # marker, the SQL state, the message', () => {
    const p = decode(
      hex(`ff d4 04 23 ${ascii('HY000')} ${ascii('Could not find first log file name in binary log index file')}`),
    );
    expect(p.status).toBe('BINLOG_PACKET_ERR');
    expect(p.body as ErrPacket).toEqual({
      errorCode: 1236,
      sqlState: 'HY000',
      message: 'Could not find first log file name in binary log index file',
    });
  });

  it('an EOF: warnings and status flags', () => {
    const p = decode(hex('fe 00 00 02 00'));
    expect(p.status).toBe('BINLOG_PACKET_EOF');
    expect(p.body as EofPacket).toEqual({ warnings: 0, statusFlags: 2 });
  });
});
