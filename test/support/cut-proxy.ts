/**
 * A unix-socket proxy in front of a server that, once armed, passes on only so many more bytes from the
 * server and then closes both sides: a server that closes the connection in the middle of a packet. It can
 * also hold a client's bytes that carry a given text until the test has done something (another session's
 * DDL, say) at exactly that step of the client's.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface CutProxy {
  /** The socket to connect to instead of the server's. */
  socket: string;
  /** Closes both sides once `bytes` more bytes from the server have been passed on (to every connection made). */
  cutAfter(bytes: number): void;
  /** Holds each piece of a client's bytes that contains `text` until `then()` resolves, then passes it on. */
  holdAt(text: string, then: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function startCutProxy(target: string, socket: string): Promise<CutProxy> {
  let budget = Infinity;
  const holds: { text: string; then: () => Promise<void> }[] = [];
  const open = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = createConnection(target);
    for (const s of [client, server]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      const hold = holds.find((h) => chunk.includes(h.text));
      if (!hold) return void server.write(chunk);
      client.pause();
      // A hook that fails lets the bytes go on and is an unhandled rejection, which fails the test.
      void hold.then().finally(() => (server.write(chunk), client.resume()));
    });
    client.on('end', () => server.end());
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
    holdAt: (text, then) => void holds.push({ text, then }),
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}
