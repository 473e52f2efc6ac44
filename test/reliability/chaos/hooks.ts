/**
 * The webhook receiver for the crash-safety runs: records every delivery (its webhook-id, event
 * type and message) and can be asked to signal the next request before it is answered, so a kill
 * lands inside a webhook delivery.
 */
import { createServer } from 'node:http';

export interface Delivery {
  readonly webhookId: string;
  readonly type: string;
  readonly emailId: string | undefined;
  readonly subject: string | undefined;
}

export interface ChaosHooks {
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Resolves when the next request has arrived, before it is answered. */
  nextRequest(): Promise<void>;
  close(): Promise<void>;
}

export async function startChaosHooks(): Promise<ChaosHooks> {
  const deliveries: Delivery[] = [];
  let waiter: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          type: string;
          data?: { email_id?: string; subject?: string };
        };
        deliveries.push({
          webhookId: String(req.headers['webhook-id']),
          type: body.type,
          emailId: body.data?.email_id,
          subject: body.data?.subject,
        });
      } catch {
        // Not JSON: not a delivery to count.
      }
      const w = waiter;
      waiter = undefined;
      if (w) {
        w();
        setTimeout(() => res.end('ok'), 50);
      } else {
        res.end('ok');
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    nextRequest: () =>
      new Promise((resolve) => {
        waiter = resolve;
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
