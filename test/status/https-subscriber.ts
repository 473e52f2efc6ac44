/**
 * A real HTTPS server on loopback playing a status webhook subscriber: a self-signed certificate
 * for its host name (the test trusts it through `webhooks.tls_ca_file`), every request recorded,
 * challenges echoed unless told otherwise, and scripted answers for notices.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { ensureSelfSignedCert } from '../../src/platform/tls/self-signed.js';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: any;
}

export interface Answer {
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

export interface HttpsSubscriber {
  readonly port: number;
  /** The PEM file of its certificate, to trust. */
  readonly caFile: string;
  readonly received: Received[];
  /** How it answers each request; the default echoes challenges and answers notices 204. */
  answer(handler: (request: Received) => Answer): void;
  waitFor(
    predicate: (received: readonly Received[]) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<void>;
}

export function echoChallenges(request: Received): Answer {
  if (request.json?.type === 'status.subscription.challenge')
    return {
      status: 200,
      body: JSON.stringify({ challenge: request.json.data.challenge }),
      headers: { 'content-type': 'application/json' },
    };
  return { status: 204 };
}

export async function startHttpsSubscriber(t: ExecutionContext, hostname: string): Promise<HttpsSubscriber> {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-subscriber-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { certFile, keyFile } = await ensureSelfSignedCert(dir, hostname);
  const received: Received[] = [];
  let handler: (request: Received) => Answer = echoChallenges;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request = { headers: req.headers, body, json };
      received.push(request);
      const answer = handler(request);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as AddressInfo).port,
    caFile: certFile,
    received,
    answer(next) {
      handler = next;
    },
    async waitFor(predicate, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`subscriber: timed out waiting for ${what} (${received.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** Checks a Standard Webhooks signature the way a receiver does, with the `whsec_` secret. */
export function validSignature(request: Received, secret: string): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const header = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof header !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  return header.split(' ').some((part) => part === `v1,${expected}`);
}
