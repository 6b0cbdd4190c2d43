/**
 * A unix-socket proxy in front of a server that, once armed, passes on only so many more bytes from the
 * server and then closes both sides: a server that closes the connection in the middle of a packet.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface CutProxy {
  /** The socket to connect to instead of the server's. */
  socket: string;
  /** Closes both sides once `bytes` more bytes from the server have been passed on (to every connection made). */
  cutAfter(bytes: number): void;
  close(): Promise<void>;
}

export async function startCutProxy(target: string, socket: string): Promise<CutProxy> {
  let budget = Infinity;
  const open = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = createConnection(target);
    for (const s of [client, server]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {});
    }
    client.pipe(server);
    server.on('data', (chunk: Buffer) => {
      if (chunk.length < budget) {
        budget -= chunk.length;
        client.write(chunk);
        return;
      }
      client.end(chunk.subarray(0, budget), () => client.destroy());
      server.destroy();
      budget = 0;
    });
    server.on('close', () => client.end());
  });
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
  return {
    socket,
    cutAfter: (bytes) => (budget = bytes),
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}
