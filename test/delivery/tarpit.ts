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

/** How a scripted MX answers (`readCommands`). */
export interface CommandHandlers {
  /** Answers one command line (upper-cased). After DATA the message is read up to its final dot. */
  readonly command: (line: string) => void;
  /** Answers the end of a message's data. */
  readonly message: () => void;
  /** True when the chunk must not be read as commands (bytes after STARTTLS, say). */
  readonly bypass?: (chunk: Buffer) => boolean;
}

/** Reads the SMTP commands a client writes on `socket`, one line at a time, and each message's data. */
export function readCommands(socket: Socket, handlers: CommandHandlers): void {
  let inData = false;
  let buffered = '';
  socket.on('data', (chunk: Buffer) => {
    if (handlers.bypass?.(chunk)) return;
    buffered += chunk.toString('latin1');
    for (;;) {
      if (inData) {
        const end = buffered.indexOf('\r\n.\r\n');
        if (end < 0) return;
        buffered = buffered.slice(end + 5);
        inData = false;
        handlers.message();
        continue;
      }
      const lineEnd = buffered.indexOf('\r\n');
      if (lineEnd < 0) return;
      const line = buffered.slice(0, lineEnd).toUpperCase();
      buffered = buffered.slice(lineEnd + 2);
      handlers.command(line);
      if (line.startsWith('DATA')) inData = true;
    }
  });
}
