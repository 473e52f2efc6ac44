/**
 * A raw TCP server on loopback playing an MX that misbehaves, for tests: `talk` scripts each
 * connection; without it the MX accepts connections and never says a word (a stalled provider).
 * The returned set holds the connections open now; the test's teardown closes them and the server.
 */
import { createServer, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';

export async function tarpit(
  t: ExecutionContext,
  host: string,
  port: number,
  talk?: (socket: Socket) => void,
): Promise<ReadonlySet<Socket>> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    talk?.(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return sockets;
}
