/** Whether the tracking host (`tracking.domain`, else the host of `server.public_url`) resolves. */
import { isIP } from 'node:net';
import type { Config } from '../platform/config/schema.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { trackingHost } from '../platform/config/public-identity.js';

export async function trackingDns(
  resolver: DnsResolver,
  config: Pick<Config, 'tracking' | 'server'>,
): Promise<{ domain: string; ok: boolean }> {
  const domain = trackingHost(config);
  // An address, or a name the host file answers (localhost), needs no public DNS.
  if (isIP(domain) !== 0 || domain === 'localhost') return { domain, ok: true };
  const [v4, v6] = await Promise.all([
    resolver.a(domain, { fresh: true }),
    resolver.aaaa(domain, { fresh: true }),
  ]);
  return { domain, ok: v4.status === 'found' || v6.status === 'found' };
}
