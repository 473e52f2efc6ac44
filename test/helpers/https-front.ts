/**
 * A TLS-terminating front for the server under test, as an operator puts a reverse proxy with a
 * certificate before Posthorn: an HTTPS server on loopback (a throwaway self-signed certificate
 * for "localhost") that forwards every request to the server's plain HTTP address. Its `url` is
 * what `server.public_url` names, so links in mail are https links that work; `request` is a
 * client that trusts the certificate (a mailbox provider making the RFC 8058 one-click POST).
 *
 * @example
 * const front = await startHttpsFront(t);
 * const ph = await startPosthorn(t, { server: { public_url: front.url } });
 * front.target = ph.url;
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { ensureSelfSignedCert } from '../../src/platform/tls/self-signed.js';

export interface HttpsFront {
  readonly url: string;
  /** The plain HTTP base URL requests are forwarded to (set once the server runs). */
  target: string;
  request(
    method: string,
    url: string,
    options?: { headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;
}

export async function startHttpsFront(t: ExecutionContext): Promise<HttpsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'posthorn-front-'));
  const files = await ensureSelfSignedCert(dir, 'localhost');
  const cert = readFileSync(files.certFile);
  const front: { target: string } = { target: '' };
  const server = createServer({ key: readFileSync(files.keyFile), cert }, (req, res) => {
    const target = new URL(req.url ?? '/', front.target);
    const forwarded = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t.teardown(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: `https://localhost:${port}`,
    get target() {
      return front.target;
    },
    set target(value: string) {
      front.target = value;
    },
    request(method, url, options = {}) {
      return new Promise((resolve, reject) => {
        const parsed = new URL(url);
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            servername: parsed.hostname,
            port: parsed.port,
            path: `${parsed.pathname}${parsed.search}`,
            method,
            ca: cert,
            headers: options.headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(options.body);
      });
    },
  };
}
