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
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ChangeRecord, DdlRecord } from '../../sinks/record.js';

/** A message of a stream as the tests read it back. */
export interface Received {
  subject: string;
  id: string;
  body: ChangeRecord & DdlRecord;
}

/** Every message of the stream, in its order, read from the server at `url` or from any node of a cluster's. */
export async function readAll(url: string | string[], stream: string): Promise<Received[]> {
  const nc = await connect({ servers: [url].flat().map((u) => u.replace('nats://', '')) });
  try {
    const jsm = await jetstreamManager(nc);
    const total = (await jsm.streams.info(stream)).state.messages;
    const out: Received[] = [];
    if (total === 0) return out;
    const consumer = await jetstream(nc).consumers.get(stream);
    const messages = await consumer.consume();
    for await (const m of messages) {
      out.push({ subject: m.subject, id: m.headers!.get('Nats-Msg-Id'), body: m.json() });
      if (out.length === total) break;
    }
    await messages.close();
    return out;
  } finally {
    await nc.close();
  }
}

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
  describeWhen(
    serverAvailable && natsAvailable,
    name,
    () => (natsAvailable ? 'MariaDB server not found' : 'nats-server not found (install nats-server)'),
    fn,
  );
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

/** One nats-server process on `port`, launched (again) on demand with the same arguments and store. */
class NatsNode {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private watchdog: ChildProcess | undefined;

  constructor(
    private readonly bin: string,
    private readonly args: string[],
    readonly port: number,
    private readonly log: string,
    /** The dir the watchdog removes with the server however this process ends; undefined: none. */
    private readonly root: string | undefined,
  ) {}

  async launch(): Promise<void> {
    const child = (this.child = spawn(this.bin, this.args, { detached: true, stdio: 'ignore' }));
    child.unref();
    this.exited = new Promise((resolve) => child.on('exit', () => resolve()));
    this.watchdog = spawnWatchdog(child.pid, this.root);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await greets(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(
          `nats-server did not start on port ${this.port}: ` +
            `${fs.existsSync(this.log) ? fs.readFileSync(this.log, 'utf8').slice(-2000) : ''}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Ends the server with `signal` (SIGTERM: JetStream's store closed cleanly; SIGKILL: a node lost) and its watchdog.
   */
  async shutdown(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child!;
    if (child.exitCode === null && child.signalCode === null) {
      // Unref'd so that it never holds a test run open; held while it is awaited, or a program (the bench)
      // with nothing else to wait for would end here, in silence.
      child.ref();
      child.kill(signal);
      await this.exited;
    }
    killGroup(child.pid!, 'SIGKILL');
    // The old watchdog would remove the store with the server: a new one watches the next launch.
    this.watchdog?.kill('SIGKILL');
  }
}

export async function startNats(): Promise<NatsServer> {
  const bin = findNats();
  if (!bin) throw new Error('nats-server not found; install nats-server');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binlog-codec-nats-'));
  const port = await freePort();
  const log = path.join(root, 'nats.log');
  const node = new NatsNode(
    bin,
    ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', path.join(root, 'store'), '-l', log],
    port,
    log,
    root,
  );
  await node.launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async () => {
      await node.shutdown();
      await node.launch();
    },
    stop: async () => {
      await node.shutdown();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * A JetStream cluster of nats-server processes on loopback, joined by routes, each node stopped and started by its
 * index.
 */
export interface NatsCluster {
  /** nats://127.0.0.1:PORT of each node. */
  urls: string[];
  /** The nodes' server names (n1, n2, …): what a stream's cluster info names its leader by. */
  names: string[];
  /** SIGKILLs node `i`: a machine lost. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again, on its port and store. */
  start(i: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const bin = findNats();
  if (!bin) throw new Error('nats-server not found; install nats-server');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'binlog-codec-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size * 2 }, freePort));
  const names = Array.from({ length: size }, (_, i) => `n${i + 1}`);
  const routes = ports
    .slice(size)
    .map((p) => `nats://127.0.0.1:${p}`)
    .join(',');
  const nodes = names.map((name, i) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    const args = [
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(ports[i]),
      '-n',
      name,
      '-sd',
      path.join(dir, 'store'),
      '-l',
      path.join(dir, 'nats.log'),
    ];
    args.push('--cluster_name', 'binlog', '--cluster', `nats://127.0.0.1:${ports[size + i]}`, '--routes', routes);
    // The first node's watchdog removes the whole tree; the others' leave it.
    return new NatsNode(bin, args, ports[i]!, path.join(dir, 'nats.log'), i === 0 ? root : undefined);
  });
  await Promise.all(nodes.map((n) => n.launch()));
  return {
    urls: nodes.map((n) => `nats://127.0.0.1:${n.port}`),
    names,
    kill: (i) => nodes[i]!.shutdown('SIGKILL'),
    start: (i) => nodes[i]!.launch(),
    stop: async () => {
      await Promise.all(nodes.map((n) => n.shutdown()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
