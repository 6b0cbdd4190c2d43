/**
 * The replication client's framing of a dump (replication/replica-frames.ts), fed the packets a source sends for
 * a real MariaDB 11.8 binlog whose QUERY events inside transactions carry log_pos 0: each of the file's
 * events is the file's, at its offset there; only what the source made up is marked.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { EventFlags, EventHeaderOffsets } from '../generated/header.js';
import { encodeBinlogPacket } from '../generated/replication.js';
import { EventTypes } from '../generated/events.js';
import { EventDecoder, EventEncoder, type BinlogEventInput } from '../runtime/events/event-codec.js';
import { frameBinlog } from '../runtime/io/stream.js';
import type { Dump } from '../replication/replica-dump.js';
import { liveFrames, type LiveFrame } from '../replication/replica-frames.js';
import { MariadbGtidState } from '../protocol/gtid-sets.js';
import { packet } from '../protocol/packets.js';
import { describeWithFixtures, fixtures } from './support/fixtures.js';

const NAME = 'mariadb-repl-bin.000007';

describeWithFixtures('the live framing of a MariaDB 11.8 dump', () => {
  const path = fixtures().find((f) => f.name.endsWith(`domain_id_0__${NAME}`))!.path;
  const file = readFileSync(path);
  const framed = [...frameBinlog(file)];
  const [format, ...rest] = framed;
  const encoder = new EventEncoder();
  encoder.encode(new EventDecoder().decode(format!.bytes, 4) as BinlogEventInput, 4);

  /**
   * The fake ROTATE a source sends first: timestamp 0, log_pos 0, and (unless `flagged` is false)
   * LOG_EVENT_ARTIFICIAL_F.
   */
  const fakeRotate = (position: number, flagged = true) =>
    encoder.encode(
      {
        type: 'ROTATE_EVENT',
        position: BigInt(position),
        nextFile: NAME,
        header: { timestamp: 0, serverId: 10, logPos: 0, flags: flagged ? EventFlags.LOG_EVENT_ARTIFICIAL_F : 0 },
      } as BinlogEventInput,
      0,
    );

  /**
   * The FORMAT_DESCRIPTION resent before a start past it: log_pos 0, no flag (sql_repl.cc's
   * send_format_descriptor_event).
   */
  const resentFormat = () => {
    const b = format!.bytes.slice();
    b.fill(0, EventHeaderOffsets.logPos, EventHeaderOffsets.logPos + 4);
    return b;
  };

  async function frames(events: Uint8Array[]): Promise<LiveFrame[]> {
    async function* packets() {
      for (const event of events) yield packet(encodeBinlogPacket, { status: 'BINLOG_PACKET_OK', body: { event } });
    }
    const dump: Dump = {
      start: { flavor: 'mariadb', file: '', position: 4, checksums: true, gtid: new MariadbGtidState() },
      packets: Object.assign(packets(), { close() {} }),
    };
    const out: LiveFrame[] = [];
    for await (const f of liveFrames(dump, false)) out.push(f);
    return out;
  }

  it('holds QUERY events with log_pos 0 inside its transactions', () => {
    const zeros = rest.filter(
      (f) => new DataView(f.bytes.buffer, f.bytes.byteOffset).getUint32(EventHeaderOffsets.logPos, true) === 0,
    );
    expect(zeros.length).toBe(252);
    expect(new Set(zeros.map((f) => f.typeCode))).toEqual(new Set([EventTypes.QUERY_EVENT]));
  });

  it('gives each event of the file its offset there, marking only the fake ROTATE', async () => {
    for (const flagged of [true, false]) {
      const got = await frames([fakeRotate(4, flagged), ...framed.map((f) => f.bytes)]);
      expect(got[0]).toMatchObject({ file: NAME, pos: 4, notInFile: 'artificial' });
      expect(got.slice(1).map((f) => [f.pos, f.notInFile])).toEqual(framed.map((f) => [f.pos, undefined]));
    }
  });

  it('starting past the FORMAT_DESCRIPTION, marks the resent one and places the rest', async () => {
    const from = rest.findIndex((f) => f.typeCode === EventTypes.GTID_EVENT && f.pos > 1000);
    const got = await frames([fakeRotate(rest[from]!.pos), resentFormat(), ...rest.slice(from).map((f) => f.bytes)]);
    expect(got.slice(0, 2).map((f) => f.notInFile)).toEqual(['artificial', 'artificial']);
    expect(got.slice(2).map((f) => [f.pos, f.notInFile])).toEqual(rest.slice(from).map((f) => [f.pos, undefined]));
  });
});
