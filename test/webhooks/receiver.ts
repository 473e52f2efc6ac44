/**
 * A real webhook receiver on 127.0.0.1 for tests: records every request (headers, raw body,
 * arrival time) and answers with whatever the test's handler says (status, headers, body, delay).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Wait this long before answering (timeouts, slow endpoints). */
  readonly delayMs?: number;
}

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Resolves when at least `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  reply(handler: (request: Received, index: number) => Reply): void;
  close(): Promise<void>;
}

export async function startReceiver(t: ExecutionContext, path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  let handler: (request: Received, index: number) => Reply = () => ({ status: 204 });
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = received.push(request) - 1;
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
      const reply = handler(request, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 204, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.teardown(close);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    reply: (next) => {
      handler = next;
    },
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close,
  };
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
