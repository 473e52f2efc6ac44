/**
 * The DNS side of one SPF check (RFC 7208 §4.6.4): answers fetched once per check (every address
 * is evaluated against the same answers), and the limits receivers enforce per evaluation: at most
 * 10 terms that cause lookups, at most 2 void lookups (an answer of NXDOMAIN or no records), at
 * most 10 MX hosts. Exceeding one is `permerror`; a temporary DNS failure is `temperror`.
 */
import { isIP } from 'node:net';
import type { DnsLookup, DnsResolver, MxLookup } from '../platform/dns/resolver.js';
import { type ParsedSpf, parseSpf, SpfSyntaxError } from './spf-terms.js';

export class TemporaryDns extends Error {}
export class PermError extends Error {}

const MAX_LOOKUPS = 10;
const MAX_VOID_LOOKUPS = 2;
const MAX_MX_HOSTS = 10;

/** Fresh answers (verification wants what the world sees now), each asked once per check. */
export class SpfDns {
  readonly #resolver: DnsResolver;
  readonly #answers = new Map<string, Promise<DnsLookup<string> | MxLookup>>();

  constructor(resolver: DnsResolver) {
    this.#resolver = resolver;
  }

  #once<T extends DnsLookup<string> | MxLookup>(
    type: string,
    name: string,
    ask: () => Promise<T>,
  ): Promise<T> {
    const key = `${type} ${name}`;
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      answer = ask();
      this.#answers.set(key, answer);
    }
    return answer as Promise<T>;
  }

  txt(name: string): Promise<DnsLookup<string>> {
    return this.#once('TXT', name, () => this.#resolver.txt(name, { fresh: true }));
  }

  address(name: string, family: 4 | 6): Promise<DnsLookup<string>> {
    const resolver = this.#resolver;
    return family === 4
      ? this.#once('A', name, () => resolver.a(name, { fresh: true }))
      : this.#once('AAAA', name, () => resolver.aaaa(name, { fresh: true }));
  }

  mx(name: string): Promise<MxLookup> {
    return this.#once('MX', name, () => this.#resolver.mx(name, { fresh: true, implicit: false }));
  }

  ptr(name: string): Promise<DnsLookup<string>> {
    return this.#once('PTR', name, () => this.#resolver.ptr(name, { fresh: true }));
  }
}

/** The limits of one evaluation: a receiver's check of one address. */
export interface Limits {
  lookups: number;
  readonly voids: string[];
}

/** §4.6.4: counted before the lookup, so the 11th term fails without being looked up. */
export function countLookup(limits: Limits): void {
  limits.lookups++;
  if (limits.lookups > MAX_LOOKUPS)
    throw new PermError(`the SPF record needs more than ${MAX_LOOKUPS} DNS lookups (RFC 7208 §4.6.4)`);
}

/** A term whose lookup found nothing (NXDOMAIN or no records); the third is `permerror`. */
export function countVoid(limits: Limits, name: string): void {
  limits.voids.push(name);
  if (limits.voids.length > MAX_VOID_LOOKUPS) {
    throw new PermError(
      `the SPF record has more than ${MAX_VOID_LOOKUPS} lookups that find nothing (${limits.voids.join(', ')}); receivers return permerror after ${MAX_VOID_LOOKUPS} (RFC 7208 §4.6.4)`,
    );
  }
}

function temporary(name: string, code: string): TemporaryDns {
  return new TemporaryDns(`the DNS lookup of ${name} failed temporarily (${code})`);
}

/** The one `v=spf1` record at `name`, parsed, or why there is none (RFC 7208 §4.5). */
export async function spfRecord(dns: SpfDns, name: string): Promise<ParsedSpf> {
  const answer = await dns.txt(name);
  if (answer.status === 'temporary') throw temporary(name, answer.code);
  const records =
    answer.status === 'found' ? answer.records.filter((r) => /^v=spf1(\s|$)/i.test(r.trim())) : [];
  if (records.length === 0) throw new PermError(`no SPF record (v=spf1) at ${name}`);
  if (records.length > 1) {
    throw new PermError(
      `${name} has ${records.length} SPF records; RFC 7208 §4.5 makes that an error, merge them into one`,
    );
  }
  try {
    return parseSpf(records[0] as string);
  } catch (error) {
    if (!(error instanceof SpfSyntaxError)) throw error;
    throw new PermError(`the SPF record at ${name} is invalid: ${error.message}; receivers reject all of it`);
  }
}

/** §5.3: a receiver asks A for an IPv4 client and AAAA for IPv6; a check without an address, both. */
export function familiesFor(ip: string | undefined): ReadonlyArray<4 | 6> {
  return ip === undefined ? [4, 6] : [isIP(ip) === 6 ? 6 : 4];
}

/** The addresses of `host` in `families`; finding none is a void lookup when `limits` are given. */
export async function addressesOf(
  dns: SpfDns,
  limits: Limits | undefined,
  host: string,
  families: ReadonlyArray<4 | 6>,
): Promise<string[]> {
  const answers = await Promise.all(families.map((family) => dns.address(host, family)));
  const found: string[] = [];
  for (const answer of answers) {
    if (answer.status === 'temporary') throw temporary(host, answer.code);
    if (answer.status === 'found') found.push(...answer.records);
  }
  if (found.length === 0 && limits !== undefined) countVoid(limits, host);
  return found;
}

/** §5.4: the MX hosts of `domain`; none (not even an implicit MX) is a void lookup. */
export async function mxHosts(dns: SpfDns, limits: Limits, domain: string): Promise<string[]> {
  const answer = await dns.mx(domain);
  if (answer.status === 'temporary') throw temporary(domain, answer.code);
  if (answer.status === 'null_mx') return [];
  if (answer.status !== 'found') {
    countVoid(limits, domain);
    return [];
  }
  if (answer.hosts.length > MAX_MX_HOSTS) {
    throw new PermError(
      `the MX of ${domain} has ${answer.hosts.length} hosts; an SPF mx mechanism may look up at most ${MAX_MX_HOSTS} (RFC 7208 §4.6.4)`,
    );
  }
  return answer.hosts.map((host) => host.exchange);
}

/** §5.7: `exists` asks for A records whatever the client's family; whether there are any. */
export async function exists(dns: SpfDns, limits: Limits, name: string): Promise<boolean> {
  return (await addressesOf(dns, limits, name, [4])).length > 0;
}
