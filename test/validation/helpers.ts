/** A real Posthorn whose validation asks a real DNS server on loopback. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { type ConfigOverrides, type Posthorn, type Response, startPosthorn } from '../helpers/server.js';

export interface ValidationEnv {
  readonly ph: Posthorn;
  readonly dns: DnsTestServer;
  validate(email: string, key?: string): Promise<Response>;
}

export async function startValidationEnv(
  t: ExecutionContext,
  options: { readonly config?: ConfigOverrides; readonly disposableFile?: string } = {},
): Promise<ValidationEnv> {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  let file = '';
  if (options.disposableFile !== undefined) {
    const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-disposable-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    file = path.join(dir, 'disposable.txt');
    writeFileSync(file, options.disposableFile);
  }
  const ph = await startPosthorn(t, {
    ...options.config,
    dns: { servers: [dns.address] },
    validation: { dns_timeout_ms: 5000, disposable_domains_file: file, ...options.config?.validation },
  });
  return {
    ph,
    dns,
    validate: (email, key) =>
      ph.request('POST', '/v1/validation', { body: { email }, ...(key ? { key } : {}) }),
  };
}

/** Publishes an MX host with an address for `domain`. */
export function mailDomain(dns: DnsTestServer, domain: string): void {
  dns.set(domain, 'MX', [{ preference: 10, exchange: `mx.${domain}` }]);
  dns.set(`mx.${domain}`, 'A', ['127.0.0.1']);
}
