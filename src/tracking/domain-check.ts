/**
 * Does a custom tracking domain point at this server? Yes when it is a CNAME of the host of
 * `server.public_url` (directly or through a chain of aliases), or when its A/AAAA addresses
 * include one of that host's (or that address, when the public URL names one). Asked of the
 * configured resolver, fresh; a temporary failure leaves the domain `pending`, never `failed`.
 */
import { isIP } from 'node:net';
import type { DnsLookup, DnsResolver } from '../platform/dns/resolver.js';

export type DomainCheck =
  | { readonly status: 'verified'; readonly reason: null }
  | { readonly status: 'failed' | 'pending'; readonly reason: string };

const FRESH = { fresh: true } as const;
const MAX_ALIASES = 8;

const temporary = (name: string, answer: DnsLookup<unknown>): DomainCheck => ({
  status: 'pending',
  reason: `the DNS lookup of ${name} failed for now (${answer.status === 'temporary' ? answer.code : answer.status}); it is checked again hourly`,
});

async function addresses(
  resolver: DnsResolver,
  name: string,
): Promise<{ found: string[]; failed?: DnsLookup<string> }> {
  if (isIP(name) !== 0) return { found: [name] };
  const [v4, v6] = await Promise.all([resolver.a(name, FRESH), resolver.aaaa(name, FRESH)]);
  const found = [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
  const failed = [v4, v6].find((answer) => answer.status === 'temporary');
  return failed && found.length === 0 ? { found, failed } : { found };
}

/** @example await checkCustomDomain(resolver, 'links.acme.com', 'mail.example.net') // { status: 'verified', reason: null } */
export async function checkCustomDomain(
  resolver: DnsResolver,
  domain: string,
  target: string,
): Promise<DomainCheck> {
  let name = domain;
  for (let hop = 0; hop < MAX_ALIASES; hop++) {
    const alias = await resolver.cname(name, FRESH);
    if (alias.status === 'temporary') return temporary(name, alias);
    if (alias.status !== 'found' || alias.records.length === 0) break;
    name = alias.records[0] as string;
    if (name === target) return { status: 'verified', reason: null };
  }
  const [mine, theirs] = await Promise.all([addresses(resolver, name), addresses(resolver, target)]);
  if (mine.failed) return temporary(name, mine.failed);
  if (mine.found.length === 0)
    return {
      status: 'failed',
      reason: `${domain} has no CNAME, A or AAAA record; publish "${domain} CNAME ${target}"`,
    };
  if (theirs.failed) return temporary(target, theirs.failed);
  if (mine.found.some((address) => theirs.found.includes(address)))
    return { status: 'verified', reason: null };
  const via = name === domain ? '' : ` (through ${name})`;
  return {
    status: 'failed',
    reason: `${domain}${via} points at ${mine.found.join(', ')}, not at ${target}; publish "${domain} CNAME ${target}"`,
  };
}
