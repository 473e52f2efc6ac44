/**
 * A loopback server speaking as much of clamd's protocol as `requireClamd` and `scripts/peers`
 * use: PONG to PING, and a chosen reply to an INSTREAM scan, so that a test can stand up a clamd
 * that answers PING but cannot scan (one started from a worktree since deleted) or one that can.
 */
import { createServer, type Server } from 'node:net';

/** A server that answers PONG to PING and `scanReply` to INSTREAM, once the stream is over. */
export async function fakeClamd(scanReply: string): Promise<Server> {
  const server = createServer((socket) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.toString('latin1') === 'zPING\0') socket.end('PONG\0');
      // The last chunk of an INSTREAM is a zero length.
      else if (received.length > 14 && received.subarray(-4).equals(Buffer.alloc(4)))
        socket.end(`${scanReply}\0`);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
