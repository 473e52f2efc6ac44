/**
 * An MTA-STS policy host for the delivery tests: an HTTPS server on loopback that serves
 * `/.well-known/mta-sts.txt` for one domain (RFC 8461 §3.3) with a self-signed certificate for
 * `mta-sts.<domain>`, and the PEM a test puts in `tls_ca_file` to trust it.
 *
 * @example
 * const host = await policyHost(t, 'sts.example', () => 'version: STSv1\nmode: enforce\n...');
 * // delivery: { mta_sts_port: host.port, tls_ca_file: <a file with host.cert> }
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { ensureSelfSignedCert } from '../../src/platform/tls/self-signed.js';

export interface PolicyHost {
  readonly port: number;
  /** The host's certificate (PEM), to trust it. */
  readonly cert: string;
  /** `host/path` of every request, in order. */
  readonly requests: readonly string[];
  /** A scratch directory removed at teardown. */
  readonly dir: string;
}

/** What the host answers when it does not serve a plain 200 text/plain policy. */
export interface PolicyResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * An HTTPS policy host for `domain` on loopback, and the PEM that makes its certificate trusted.
 * `policy` gets the request path; a string is served as 200 text/plain.
 */
export async function policyHost(
  t: ExecutionContext,
  domain: string,
  policy: (path: string) => string | PolicyResponse,
): Promise<PolicyHost> {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-sts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = await ensureSelfSignedCert(dir, `mta-sts.${domain}`);
  const requests: string[] = [];
  const server = createServer(
    { key: readFileSync(files.keyFile), cert: readFileSync(files.certFile) },
    (req, res) => {
      requests.push(`${req.headers.host}${req.url}`);
      const answer = policy(req.url ?? '');
      const response = typeof answer === 'string' ? { body: answer } : answer;
      res.writeHead(response.status ?? 200, { 'content-type': 'text/plain', ...response.headers });
      res.end(response.body);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    cert: readFileSync(files.certFile, 'utf8'),
    requests,
    dir,
  };
}
