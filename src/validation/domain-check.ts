/**
 * The domain check of address validation: does the domain accept mail? Its MX records, else the
 * implicit MX of its own A/AAAA records (RFC 5321 §5.1); a null MX (RFC 7505) says it accepts
 * none. An MX host must have an address, or mail to it has nowhere to go. A DNS failure (SERVFAIL,
 * timeout) is `unknown`, never `fail`: an address is not called undeliverable for a resolver's
 * hiccup. It asks DNS only; it never opens a connection to the mail host (docs/decisions/validation.md
 * says why there is no SMTP probing).
 */
import { isIP } from 'node:net';
import type { DnsResolver, MxLookup } from '../platform/dns/resolver.js';

export type CheckResult = 'pass' | 'warn' | 'fail' | 'unknown' | 'skipped';

export interface DomainCheck {
  readonly result: 'pass' | 'fail' | 'unknown';
  readonly reason: string;
  /** Mail hosts in the order a sender tries them (empty unless the domain accepts mail). */
  readonly mx: readonly string[];
  /** True when the domain has no MX records and its own address receives mail. */
  readonly implicit: boolean;
  /** True when the domain publishes a null MX (RFC 7505). */
  readonly null_mx: boolean;
}

/** MX hosts whose addresses are asked for, in preference order, before giving up. */
const HOSTS_TRIED = 3;

const outcome = (
  result: DomainCheck['result'],
  reason: string,
  extra: Partial<Pick<DomainCheck, 'mx' | 'implicit' | 'null_mx'>> = {},
): DomainCheck => ({ result, reason, mx: [], implicit: false, null_mx: false, ...extra });

/** Whether one of the first MX hosts has an address: 'yes', 'no', or 'unknown' (DNS failed). */
async function someHostHasAddress(
  dns: DnsResolver,
  hosts: readonly string[],
): Promise<'yes' | 'no' | 'unknown'> {
  let failed = false;
  for (const host of hosts.slice(0, HOSTS_TRIED)) {
    if (isIP(host) !== 0) return 'yes';
    const [v4, v6] = await Promise.all([dns.a(host), dns.aaaa(host)]);
    if (v4.status === 'found' || v6.status === 'found') return 'yes';
    if (v4.status === 'temporary' || v6.status === 'temporary') failed = true;
  }
  return failed ? 'unknown' : 'no';
}

function fromLookup(domain: string, lookup: Exclude<MxLookup, { status: 'found' }>): DomainCheck {
  switch (lookup.status) {
    case 'null_mx':
      return outcome('fail', `${domain} publishes a null MX (RFC 7505): it accepts no mail`, {
        null_mx: true,
      });
    case 'nxdomain':
      return outcome('fail', `${domain} does not exist in DNS`);
    case 'no_mail_host':
      return outcome('fail', `${domain} has no MX records and no A or AAAA record to receive mail`);
    case 'temporary':
      return outcome('unknown', `DNS did not answer for ${domain} (${lookup.code}); try again later`);
  }
}

/** @example await checkDomain(dns, 'example.com') // { result: 'pass', mx: ['mx1.example.com'], ... } */
export async function checkDomain(dns: DnsResolver, domain: string): Promise<DomainCheck> {
  const lookup = await dns.mx(domain);
  if (lookup.status !== 'found') return fromLookup(domain, lookup);
  const mx = lookup.hosts.map((host) => host.exchange);
  if (lookup.implicit)
    return outcome('pass', `${domain} has no MX records; its own address receives mail (RFC 5321 §5.1)`, {
      mx,
      implicit: true,
    });
  const reachable = await someHostHasAddress(dns, mx);
  if (reachable === 'no')
    return outcome(
      'fail',
      `no MX host of ${domain} has an address (${mx.slice(0, HOSTS_TRIED).join(', ')})`,
      { mx },
    );
  if (reachable === 'unknown')
    return outcome('unknown', `DNS did not answer for the MX hosts of ${domain}; try again later`, { mx });
  return outcome('pass', `${domain} accepts mail at ${mx[0]}`, { mx });
}
