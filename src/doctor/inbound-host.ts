/**
 * Mail for this host must reach it: `smtp_in.hostname`, the MX every bounce host points to, must
 * resolve to an address of this host: one of its interfaces, or a public address the config names
 * (`delivery.sending_ips`, `delivery.source_ips`), as on a host behind NAT. And every domain an
 * inbound route receives mail for must have its MX at `smtp_in.hostname`.
 */
import { networkInterfaces } from 'node:os';
import { reachOf } from '../platform/config/public-identity.js';
import type { Config } from '../platform/config/schema.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { type Finding, fail, ok, warn } from './finding.js';
import { reverseName } from './reverse-name.js';

const FRESH = { fresh: true } as const;

/** Every address of this host, in one spelling (IPv6 compared by its reverse name). */
function hostAddresses(config: Pick<Config, 'delivery'>): Set<string> {
  const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((nic) => nic.address));
  return new Set([...own, ...config.delivery.sending_ips, ...config.delivery.source_ips].map(reverseName));
}

export async function inboundHostFindings(
  config: Pick<Config, 'smtp_in' | 'delivery'>,
  resolver: DnsResolver,
): Promise<Finding[]> {
  const { enabled, hostname } = config.smtp_in;
  if (!enabled)
    return [
      warn(
        'inbound-mx',
        'Inbound SMTP is off (smtp_in.enabled = false): bounces and complaints sent back later are not received.',
        'set smtp_in.enabled = true and let port 25 reach smtp_in.listen',
      ),
    ];
  if (reachOf(hostname).kind === 'local') return [];
  const [v4, v6] = await Promise.all([resolver.a(hostname, FRESH), resolver.aaaa(hostname, FRESH)]);
  const found = [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
  const temporary = [v4, v6].find((answer) => answer.status === 'temporary');
  if (found.length === 0 && temporary?.status === 'temporary')
    return [
      warn(
        'inbound-mx',
        `${hostname} could not be looked up now (${temporary.code}).`,
        'run posthorn doctor again',
        hostname,
      ),
    ];
  if (found.length === 0)
    return [
      fail(
        'inbound-mx',
        `smtp_in.hostname ${hostname} has no address (A or AAAA): no mail can reach this host.`,
        `publish an A (and AAAA) record for ${hostname} with this host's public address`,
        hostname,
      ),
    ];
  const mine = hostAddresses(config);
  const here = found.filter((address) => mine.has(reverseName(address)));
  if (here.length > 0)
    return [
      ok(
        'inbound-mx',
        `smtp_in.hostname ${hostname} resolves to ${here.join(', ')}, an address of this host.`,
        hostname,
      ),
    ];
  return [
    fail(
      'inbound-mx',
      `smtp_in.hostname ${hostname} resolves to ${found.join(', ')}, not to an address of this host.`,
      `point ${hostname} at this host; behind NAT, list the public address in delivery.sending_ips`,
      hostname,
    ),
  ];
}

/** The MX of each domain inbound routes receive mail for must be `smtp_in.hostname`. */
export async function routedDomainFindings(
  config: Pick<Config, 'smtp_in'>,
  resolver: DnsResolver,
  domains: readonly string[],
): Promise<Finding[]> {
  const { enabled, hostname } = config.smtp_in;
  if (!enabled || reachOf(hostname).kind === 'local') return [];
  const wanted = hostname.toLowerCase();
  return Promise.all(
    domains.map(async (domain): Promise<Finding> => {
      const answer = await resolver.mx(domain, { fresh: true, implicit: false });
      const publish = `publish at ${domain} the MX record 10 ${hostname}`;
      if (answer.status === 'temporary')
        return warn(
          'routed-mx',
          `The MX of ${domain} could not be looked up now (${answer.code}).`,
          'run posthorn doctor again',
          domain,
        );
      if (answer.status !== 'found')
        return fail(
          'routed-mx',
          `${domain} has no MX record: mail for its inbound routes never reaches this host.`,
          publish,
          domain,
        );
      const hosts = answer.hosts.map((host) => host.exchange);
      if (hosts.includes(wanted))
        return ok(
          'routed-mx',
          `${domain} has its MX at ${hostname}: its inbound routes receive mail here.`,
          domain,
        );
      return fail(
        'routed-mx',
        `The MX of ${domain} is ${hosts.join(', ')}, not smtp_in.hostname ${hostname}: mail for its inbound routes goes elsewhere.`,
        publish,
        domain,
      );
    }),
  );
}
