/**
 * Where a job's mail goes: the recipient domain's MX hosts in the order to try them (RFC 5321
 * §5.1: lowest preference first, the implicit MX when there is none), through the configured
 * resolver and its TTL cache. A null MX (RFC 7505) and a domain that does not exist are permanent
 * (the job bounces); a resolver failure is temporary (the job is deferred), never permanent. MX
 * hosts that all have no address are permanent too, when every lookup says so (`addressesOf`).
 */
import type { DnsResolver } from '../../platform/dns/resolver.js';
import { type Outcome, outcomeOfTransport } from '../replies/outcome.js';

/** How a connection treats STARTTLS (mx-connection.ts applies it; the lane and MTA-STS choose it). */
export type TlsMode = 'opportunistic' | 'require' | 'verify' | 'none';

export interface MxRoute {
  readonly kind: 'mx';
  readonly domain: string;
  /** MX host names, in the order to try them. */
  readonly hosts: readonly string[];
  /** True when the domain has no MX and its own address is used. */
  readonly implicit: boolean;
  /** A TLS mode the route demands over the lane's (an enforced MTA-STS policy: `verify`). */
  readonly tls: TlsMode | null;
  /** The MTA-STS mode applied, if the domain publishes a policy. */
  readonly mtaSts: 'enforce' | 'testing' | null;
}

/** `ph_test_` sends: delivered by the built-in sink, never over the network. */
export interface SandboxRoute {
  readonly kind: 'sandbox';
}

export type Route = MxRoute | SandboxRoute;

/**
 * @example
 * const route = await resolveMx(dns, 'example.com');
 * if (route.kind === 'mx') route.hosts // ['mx1.example.com', 'mx2.example.com']
 */
export async function resolveMx(dns: DnsResolver, domain: string): Promise<MxRoute | Outcome> {
  const answer = await dns.mx(domain);
  switch (answer.status) {
    case 'found':
      return {
        kind: 'mx',
        domain,
        hosts: answer.hosts.map((host) => host.exchange),
        implicit: answer.implicit,
        tls: null,
        mtaSts: null,
      };
    case 'null_mx':
      return outcomeOfTransport('null_mx', `Domain ${domain} does not accept mail (null MX, RFC 7505)`);
    case 'nxdomain':
      return outcomeOfTransport('domain_not_found', `Domain ${domain} does not exist`);
    case 'no_mail_host':
      return outcomeOfTransport('domain_not_found', `Domain ${domain} has no MX and no address`);
    case 'temporary':
      return outcomeOfTransport('dns_temporary', `DNS lookup of ${domain} failed (${answer.code})`);
  }
}

/**
 * The addresses of an MX host, IPv4 first. Empty only when both lookups answered for sure that
 * there is none (NXDOMAIN or NODATA): the host is skipped, and a domain none of whose hosts has
 * an address bounces (lane.ts). 'temporary' when a lookup failed and none was found.
 */
export async function addressesOf(dns: DnsResolver, host: string): Promise<string[] | 'temporary'> {
  const [v4, v6] = await Promise.all([dns.a(host), dns.aaaa(host)]);
  const found = [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
  if (found.length > 0) return found;
  return v4.status === 'temporary' || v6.status === 'temporary' ? 'temporary' : [];
}
