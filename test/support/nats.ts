/**
 * Throwaway nats-server processes with JetStream for tests: each on a free port of 127.0.0.1 with its
 * store in a temp dir, killed (with the dir removed) by the MariaDB helper's watchdog however this
 * process ends. Without the binary, suites written with describeWithNats() skip loudly; under CI=true
 * its absence is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWhen } from './requires.js';
import { killGroup, serverAvailable, spawnWatchdog } from './mariadb.js';

export interface NatsServer {
  /** nats://127.0.0.1:PORT */
  url: string;
  /** Stops the server (SIGTERM: JetStream's store closed cleanly) and starts it again on the same port and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const NAMES = ['nats-server'];
const dirs = () => [...new Set([...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin'])].filter(Boolean);

export function findNats(): string | undefined {
  return dirs()
    .flatMap((d) => NAMES.map((n) => path.join(d, n)))
    .find((p) => {
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export const natsAvailable = findNats() !== undefined;

/** describe() for suites that need MariaDB and nats-server. */
export function describeWithNats(name: string, fn: () => void): void {
  describeWhen(serverAvailable && natsAvailable, name, () => (natsAvailable ? 'MariaDB server not found' : 'nats-server not found (install nats-server)'), fn);
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether the port accepts a connection and the server greets (NATS sends INFO first). */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('data', (d) => {
      c.destroy();
      resolve(String(d).startsWith('INFO'));
    });
    c.once('error', () => resolve(false));
  });
}

const START_TIMEOUT_MS = 30_000;

export async function startNats(): Promise<NatsServer> {
  const bin = findNats();
  if (!bin) throw new Error('nats-server not found; install nats-server');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binlog-codec-nats-'));
  const port = await freePort();
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', path.join(root, 'store'), '-l', path.join(root, 'nats.log')];
  let child: ChildProcess;
  let exited: Promise<void>;
  let watchdog: ChildProcess;
  const launch = async () => {
    child = spawn(bin, args, { detached: true, stdio: 'ignore' });
    child.unref();
    exited = new Promise((resolve) => child.on('exit', () => resolve()));
    watchdog = spawnWatchdog(child.pid, root);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await greets(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not start on port ${port}: ${fs.existsSync(path.join(root, 'nats.log')) ? fs.readFileSync(path.join(root, 'nats.log'), 'utf8').slice(-2000) : ''}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const shutdown = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // Unref'd so that it never holds a test run open; held while it is awaited, or a program (the bench)
      // with nothing else to wait for would end here, in silence.
      child.ref();
      child.kill('SIGTERM');
      await exited;
    }
    killGroup(child.pid!, 'SIGKILL');
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async () => {
      await shutdown();
      // The old watchdog would remove the store with the server: the new one watches the new server.
      watchdog.kill('SIGKILL');
      await launch();
    },
    stop: async () => {
      await shutdown();
      watchdog.kill('SIGKILL');
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
