/**
 * How webhook hosts are resolved. With `[dns] servers` set (split-horizon setups, tests), through
 * those servers like every other lookup Posthorn makes: A and AAAA together, cached by TTL. With
 * none set, through the system resolver (getaddrinfo, which also reads /etc/hosts), as the
 * config's default promises ("empty uses the system resolver").
 *
 * @example const lookup = webhookHostLookup(kernel.config); await lookup('hooks.example.com');
 */
import { lookup as systemLookup } from 'node:dns/promises';
import type { Config } from '../platform/config/schema.js';
import { createDnsResolver, type DnsLookup, type DnsResolver } from '../platform/dns/resolver.js';
import type { HostLookup, ResolvedAddress } from './sender.js';

export function webhookHostLookup(config: Pick<Config, 'dns'>): HostLookup {
  if (config.dns.servers.length === 0) {
    return async (hostname) => systemLookup(hostname, { all: true, verbatim: true });
  }
  return resolverLookup(createDnsResolver(config));
}

/** A and AAAA through `resolver`; fails with the reason when neither has an address. */
export function resolverLookup(resolver: DnsResolver): HostLookup {
  return async (hostname) => {
    const [v4, v6] = await Promise.all([resolver.a(hostname), resolver.aaaa(hostname)]);
    const addresses: ResolvedAddress[] = [...found(v4, 4), ...found(v6, 6)];
    if (addresses.length > 0) return addresses;
    const error = new Error(`${hostname}: ${reason(v4, v6)}`) as NodeJS.ErrnoException;
    error.code = v4.status === 'temporary' || v6.status === 'temporary' ? 'EAI_AGAIN' : 'ENOTFOUND';
    throw error;
  };
}

function found(answer: DnsLookup<string>, family: 4 | 6): ResolvedAddress[] {
  return answer.status === 'found' ? answer.records.map((address) => ({ address, family })) : [];
}

function reason(v4: DnsLookup<string>, v6: DnsLookup<string>): string {
  if (v4.status === 'nxdomain' || v6.status === 'nxdomain') return 'no such domain';
  if (v4.status === 'temporary' || v6.status === 'temporary') return 'the DNS servers did not answer';
  return 'no A or AAAA record';
}
