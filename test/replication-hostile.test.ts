/**
 * `dump -R` against a primary it should not trust (issue 41's R items): a fake primary (test/support/
 * fake-primary.ts) that logs anyone in and then sends what a hostile server would. Each case ends in a
 * typed error said as a sentence, with nothing of the hostile packet handed out or written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, LengthError, ServerError } from '../runtime/core/errors.js';
import { connectBinlog, type LiveOptions } from '../replication/client.js';
import { runBinlog } from './support/cli.js';
import { err, frame, greeting, sessionThen, startFakePrimary, type FakePrimary } from './support/fake-primary.js';

const TIMEOUT = 30_000;

/** A QUERY event's 19-byte header and 11 bytes after it, whose event_size says 0xFFFFFFFF: a 31-byte packet. */
function oversizedEvent(): Buffer {
  const event = Buffer.alloc(30);
  event.writeUInt32LE(1_700_000_000, 0);
  event[4] = 2;
  event.writeUInt32LE(1, 5);
  event.writeUInt32LE(0xffffffff, 9);
  event.writeUInt32LE(4 + 30, 13);
  return Buffer.concat([Buffer.from([0x00]), event]);
}

/** The dump of binlog.000001 from the fake primary on `port`: its events into `seen`, and its error. */
function dumped(port: number, seen: unknown[] = [], options: Partial<LiveOptions> = {}): Promise<unknown> {
  const live: LiveOptions = { host: '127.0.0.1', port, user: 'u', password: 'p', file: 'binlog.000001', until: 'file' };
  return (async () => {
    for await (const e of connectBinlog({ ...live, heartbeatPeriod: 0, ...options })) seen.push(e);
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
}

const R3_PROBLEM = 'the server sent an event whose header gives 4294967295 bytes in a packet that holds 30';

describe('a hostile primary', () => {
  let primary: FakePrimary | undefined;
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'binlog-hostile-'));
  });

  afterEach(async () => {
    await primary?.close();
    primary = undefined;
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const remote = (port: number) => ['-R', '--host=127.0.0.1', `--port=${port}`, '--user=u', '--password=p'];

  it(
    'R3: an event whose event_size exceeds its packet is a typed error naming the offset and the event',
    async () => {
      primary = await startFakePrimary(
        '8.0.36',
        sessionThen((c) => c.answer([oversizedEvent()])),
      );
      const seen: unknown[] = [];
      const error = await dumped(primary.port, seen);
      expect(seen).toEqual([]);
      expect(error).toBeInstanceOf(LengthError);
      expect((error as Error).message).toBe(`${R3_PROBLEM} [offset 13, event at 4 (type 2)]`);
    },
    TIMEOUT,
  );

  it(
    'R3: neither printed by dump -R nor written by --raw into the .partial file',
    async () => {
      primary = await startFakePrimary(
        '8.0.36',
        sessionThen((c) => c.answer([oversizedEvent()])),
      );
      const printed = await runBinlog(['dump', ...remote(primary.port), '--heartbeat-period=0', 'binlog.000001']);
      expect(printed.stdout).toBe('');
      expect(printed.stderr).toBe(`binlog: binlog.000001: ${R3_PROBLEM} [offset 13, event at 4 (type 2)]\n`);
      expect(printed.status).not.toBe(0);
      const prefix = join(work, 'r3-');
      const raw = await runBinlog([
        'dump',
        ...remote(primary.port),
        '--heartbeat-period=0',
        '--raw',
        `--result-file=${prefix}`,
        'binlog.000001',
      ]);
      expect(raw.stderr).toMatch(/4294967295 bytes/);
      expect(raw.status).not.toBe(0);
      const partial = `${prefix}binlog.000001.partial`;
      // The file may not even be begun; if it is, it holds nothing of the event.
      if (existsSync(partial))
        expect(readFileSync(partial).includes(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'R5: a server error message reaches the terminal with its control characters escaped',
    async () => {
      const message = Buffer.from('no\x1b[2J\x1b[31m binlog\r\nbinlog: all fine\x07\x9b');
      primary = await startFakePrimary('8.0.36', (c) => c.answer([err(1236, 'HY000', message)]));
      const escaped = 'no\\e[2J\\e[31m binlog\\r\\nbinlog: all fine\\x07\\x9b';
      const error = await dumped(primary.port);
      expect(error).toBeInstanceOf(ServerError);
      expect((error as ServerError).message).toBe(`the server says: ${escaped} (error 1236, SQL state HY000)`);
      const printed = await runBinlog(['dump', ...remote(primary.port), 'binlog.000001']);
      expect(printed.stderr).toBe(`binlog: binlog.000001: the server says: ${escaped} (error 1236, SQL state HY000)\n`);
    },
    TIMEOUT,
  );

  it(
    'R4: a primary that logs in and never answers the first query: an error naming the query, in time',
    async () => {
      primary = await startFakePrimary('8.0.36', () => {});
      const began = Date.now();
      const printed = await runBinlog(['dump', ...remote(primary.port), '--connect-timeout=1', 'binlog.000001']);
      expect(Date.now() - began).toBeLessThan(8_000);
      expect(printed.stderr).toBe(
        'binlog: binlog.000001: the query SELECT VERSION() AS version, @@global.binlog_checksum AS checksum: ' +
          'no answer from the server within 1 s\n',
      );
      expect(printed.status).toBe(6);
    },
    TIMEOUT,
  );

  it(
    'R4: a server that accepts the connection and never greets: an error naming the handshake',
    async () => {
      const held: Socket[] = [];
      const silent = createServer((socket) => held.push(socket.on('error', () => {})));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        const error = await dumped(port, [], { connectTimeout: 300 });
        expect(error).toBeInstanceOf(ConnectionError);
        expect((error as Error).message).toBe(
          `connected to 127.0.0.1:${port}, the server's greeting (the handshake) never came: ` +
            'no answer from the server within 0.3 s',
        );
      } finally {
        for (const socket of held) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    },
    TIMEOUT,
  );

  it(
    'R1: a packet of endless 16 MB frames is refused past --max-allowed-packet, and the client ends',
    async () => {
      let framesSent = 0;
      primary = await startFakePrimary(
        '8.0.36',
        sessionThen((c) => endlessFrames(c.socket, () => framesSent++)),
      );
      const began = Date.now();
      const printed = await runBinlog(['dump', ...remote(primary.port), '--max-allowed-packet=1M', 'binlog.000001']);
      expect(printed.stderr).toBe(`binlog: binlog.000001: ${R1_PROBLEM(1 << 20)}\n`);
      expect(printed.status).toBe(6);
      expect(Date.now() - began).toBeLessThan(15_000);
      // The first frame's header already says more than 1 MB: the client closed before the frames could pile up.
      expect(framesSent).toBeLessThan(MAX_FRAMES);
    },
    TIMEOUT,
  );

  it(
    'R1: the frames of one packet count together: the second 16 MB frame passes a 20 MB limit',
    async () => {
      primary = await startFakePrimary(
        '8.0.36',
        sessionThen((c) => endlessFrames(c.socket, () => {})),
      );
      const error = await dumped(primary.port, [], { maxAllowedPacket: 20 << 20 });
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toBe(R1_PROBLEM(20 << 20));
    },
    TIMEOUT,
  );
  it(
    'R2: caching_sha2_password full authentication over plain TCP: no password sent, the login refused',
    async () => {
      const { server, port, after } = await fullAuthenticationAsker();
      try {
        const error = await dumped(port, [], { password: 'secret-pw' });
        expect(error).toBeInstanceOf(ConnectionError);
        expect((error as Error).message).toBe(
          `cannot connect to 127.0.0.1:${port}: the server asks caching_sha2_password for the password over a ` +
            'connection that is not encrypted: it is sent only over TLS (--ssl-mode), a unix socket, or encrypted ' +
            'with the key of --server-public-key-path (or, trusting the server to send its own, ' +
            '--get-server-public-key)',
        );
        // Neither a request for the server's key (0x02) nor anything else came after the server asked.
        expect(after).toEqual([]);
      } finally {
        server.close();
      }
    },
    TIMEOUT,
  );

  it(
    'R2: with --get-server-public-key, the client asks the server for its key',
    async () => {
      const { server, port, after } = await fullAuthenticationAsker();
      try {
        await dumped(port, [], { password: 'secret-pw', getServerPublicKey: true, connectTimeout: 1000 });
        expect(after[0]).toEqual(Buffer.from([0x02]));
      } finally {
        server.close();
      }
    },
    TIMEOUT,
  );
});

/** More 16 MB frames than a test should ever see sent: the client must have closed long before. */
const MAX_FRAMES = 40;

const R1_PROBLEM = (limit: number) =>
  `the server sent a packet of more than ${limit} bytes, the most allowed (max_allowed_packet)`;

/** One packet as 16 MB frames, each followed by another, written while the socket takes them. */
function endlessFrames(socket: Socket, sent: () => void): void {
  const full = 0xffffff;
  const frameOf = (sequenceId: number) => {
    const f = Buffer.alloc(4 + full);
    f.writeUIntLE(full, 0, 3);
    f[3] = sequenceId;
    return f;
  };
  let n = 0;
  const more = () => {
    while (!socket.destroyed && n < MAX_FRAMES) {
      const ok = socket.write(frameOf(++n & 0xff));
      sent();
      if (!ok) return void socket.once('drain', more);
    }
  };
  more();
}

/**
 * A server that greets with caching_sha2_password and, after the client's token, asks for full
 * authentication (AuthMoreData 0x04), as a server without the account in its cache does: `after` gets
 * the payloads the client sends then.
 */
async function fullAuthenticationAsker(): Promise<{ server: Server; port: number; after: Buffer[] }> {
  const after: Buffer[] = [];
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.write(frame(0, greeting('8.0.36', 'caching_sha2_password')));
    let packets = 0;
    socket.on('data', (data: Buffer) => {
      for (let at = 0; at + 4 <= data.length;) {
        const length = data.readUIntLE(at, 3);
        const sequenceId = data[at + 3]!;
        const payload = data.subarray(at + 4, at + 4 + length);
        at += 4 + length;
        if (packets++ === 0) {
          // The handshake response: switch to caching_sha2_password with a scramble, whatever the client chose.
          const authSwitch = Buffer.from('\xfecaching_sha2_password\0ABCDEFGHIJKLMNOPQRST\0', 'latin1');
          socket.write(frame(sequenceId + 1, authSwitch));
        } else if (packets === 2) {
          socket.write(frame(sequenceId + 1, Buffer.from([0x01, FULL_AUTHENTICATION])));
        } else {
          after.push(Buffer.from(payload));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, after };
}

const FULL_AUTHENTICATION = 0x04;
