/**
 * A loopback server speaking as much of clamd's protocol as `requireClamd`, `scripts/peers` and
 * the scanner use: PONG to PING, and a chosen reply to an INSTREAM scan, so that a test can stand
 * up a clamd that answers PING but cannot scan (one started from a checkout since deleted), one
 * that can, or one that takes a scan and never answers it (a clamd that hangs).
 */
import { createServer, type Server, type Socket } from 'node:net';

/** A server that answers PONG to PING and `scanReply` to INSTREAM, once the stream is over. */
export async function fakeClamd(scanReply: string): Promise<Server> {
  return (await controlledClamd(scanReply)).server;
}

export interface ControlledClamd {
  readonly server: Server;
  readonly port: number;
  /** INSTREAM scans received whole so far, answered or not. */
  scans(): number;
  /** Connections open now (a scan that is not answered keeps its own). */
  connections(): number;
  /** The reply to scans that end from now on; undefined: take them and never answer. */
  answer(reply: string | undefined): void;
  /** Closes the server and every connection still open. */
  close(): Promise<void>;
}

/** A fake clamd whose scan reply can change while it runs (undefined: a clamd that hangs). */
export async function controlledClamd(scanReply: string | undefined): Promise<ControlledClamd> {
  let reply = scanReply;
  let scans = 0;
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      if (text === 'zPING\0') socket.end('PONG\0');
      // clamscan's PING: no prefix, no terminator, answered as clamd answers it.
      else if (text === 'PING') socket.end('PONG\n');
      // The last chunk of an INSTREAM is a zero length.
      else if (received.length > 14 && received.subarray(-4).equals(Buffer.alloc(4))) {
        scans += 1;
        if (reply !== undefined) socket.end(`${reply}\0`);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : 0,
    scans: () => scans,
    connections: () => open.size,
    answer: (next) => {
      reply = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
