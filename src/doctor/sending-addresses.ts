/**
 * Forward and reverse DNS of each address this host sends from: `delivery.sending_ips`, else the
 * addresses of `delivery.hostname`. Receivers look up the PTR of the connecting address and
 * expect it to name a host that resolves back to that address (forward-confirmed reverse DNS;
 * Gmail and Yahoo refuse mail without it) and, best, the name the sender greets with
 * (`delivery.hostname`). Addresses local to this host are left to the identity check.
 */
import { reachOf } from '../platform/config/public-identity.js';
import type { Config } from '../platform/config/schema.js';
import type { DnsLookup, DnsResolver } from '../platform/dns/resolver.js';
import { type Finding, fail, ok, warn } from './finding.js';
import { reverseName } from './reverse-name.js';

const FRESH = { fresh: true } as const;

interface Addresses {
  readonly found: readonly string[];
  /** The code of a temporary failure, when nothing was found because of it. */
  readonly temporary?: string;
}

async function addressesOf(resolver: DnsResolver, name: string): Promise<Addresses> {
  const [v4, v6] = await Promise.all([resolver.a(name, FRESH), resolver.aaaa(name, FRESH)]);
  const found = [...records(v4), ...records(v6)];
  const failure = [v4, v6].find((answer) => answer.status === 'temporary');
  return failure?.status === 'temporary' && found.length === 0
    ? { found, temporary: failure.code }
    : { found };
}

function records(answer: DnsLookup<string>): readonly string[] {
  return answer.status === 'found' ? answer.records : [];
}

/** IPv6 addresses compare in any spelling. */
function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.includes(':') || !b.includes(':')) return false;
  return reverseName(a) === reverseName(b);
}

async function ptrFinding(
  resolver: DnsResolver,
  ip: string,
  hostname: string,
  forward: readonly string[],
): Promise<Finding> {
  const answer = await resolver.ptr(reverseName(ip), FRESH);
  const setPtr = `ask whoever provides ${ip} (the VPS provider's panel, usually "reverse DNS") to set its PTR record to ${hostname}`;
  if (answer.status === 'temporary')
    return warn(
      'ptr',
      `The reverse DNS of ${ip} could not be looked up now (${answer.code}).`,
      'run posthorn doctor again',
      ip,
    );
  if (answer.status !== 'found' || answer.records.length === 0)
    return fail(
      'ptr',
      `${ip} has no reverse DNS (PTR) record: Gmail and Yahoo refuse mail from an address without one.`,
      setPtr,
      ip,
    );
  const names = answer.records;
  if (names.includes(hostname.toLowerCase())) {
    if (forward.some((address) => sameAddress(address, ip)))
      return ok(
        'ptr',
        `${ip} → ${hostname} → ${ip}: the reverse DNS names delivery.hostname and resolves back.`,
        ip,
      );
    return fail(
      'ptr',
      `The PTR of ${ip} names ${hostname}, but ${hostname} does not resolve back to ${ip}.`,
      `publish an ${ip.includes(':') ? 'AAAA' : 'A'} record ${hostname} → ${ip}`,
      ip,
    );
  }
  for (const name of names) {
    const back = await addressesOf(resolver, name);
    if (back.found.some((address) => sameAddress(address, ip)))
      return warn(
        'ptr',
        `The PTR of ${ip} names ${name}, which resolves back, but not delivery.hostname ${hostname}, the name Posthorn greets with.`,
        `set delivery.hostname to ${name}, or the PTR of ${ip} to ${hostname}`,
        ip,
      );
  }
  return fail(
    'ptr',
    `The PTR of ${ip} names ${names.join(', ')}, which does not resolve back to ${ip}: receivers treat that as no reverse DNS.`,
    setPtr,
    ip,
  );
}

export async function sendingAddressFindings(
  config: Pick<Config, 'delivery'>,
  resolver: DnsResolver,
): Promise<Finding[]> {
  const { hostname, sending_ips: ips } = config.delivery;
  if (reachOf(hostname).kind === 'local' && ips.length === 0) return [];
  const forward = await addressesOf(resolver, hostname);
  const findings: Finding[] = [];
  if (forward.temporary) {
    findings.push(
      warn(
        'forward-dns',
        `${hostname} could not be looked up now (${forward.temporary}).`,
        'run posthorn doctor again',
        hostname,
      ),
    );
  } else if (forward.found.length === 0) {
    findings.push(
      fail(
        'forward-dns',
        `delivery.hostname ${hostname} has no address (A or AAAA): receivers cannot confirm the name Posthorn greets with.`,
        `publish an A (and AAAA) record for ${hostname} with the address this host sends from`,
        hostname,
      ),
    );
  }
  const addresses = ips.length > 0 ? ips : forward.found;
  if (ips.length === 0 && forward.found.length > 0)
    findings.push(
      ok('forward-dns', `delivery.hostname ${hostname} resolves to ${forward.found.join(', ')}.`, hostname),
    );
  for (const ip of addresses) {
    if (reachOf(ip).kind === 'local') continue;
    if (ips.length > 0 && forward.found.length > 0) {
      findings.push(
        forward.found.some((address) => sameAddress(address, ip))
          ? ok('forward-dns', `delivery.hostname ${hostname} resolves to ${ip}.`, ip)
          : fail(
              'forward-dns',
              `delivery.hostname ${hostname} resolves to ${forward.found.join(', ')}, not to the sending address ${ip}.`,
              `publish an ${ip.includes(':') ? 'AAAA' : 'A'} record ${hostname} → ${ip}`,
              ip,
            ),
      );
    }
    findings.push(await ptrFinding(resolver, ip, hostname, forward.found));
  }
  return findings;
}
