/**
 * An MX that accepts TCP connections and never says a word (a stalled provider), for tests. The
 * returned set holds the connections open now; the test's teardown closes them and the server.
 */
import { createServer, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';

export async function tarpit(t: ExecutionContext, host: string, port: number): Promise<ReadonlySet<Socket>> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
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
