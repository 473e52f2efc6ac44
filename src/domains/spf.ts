/**
 * Does a domain's SPF record authorize this appliance? A focused evaluator for verification,
 * not a receiver's full check_host(): it follows `include:` and `redirect=` and matches `ip4`,
 * `ip6`, `a` and `mx` (with dual CIDR lengths) and `all`, first match wins. `ptr` and `exists`
 * are counted towards RFC 7208 §4.6.4's limit of 10 lookups but never match (`ptr` is deprecated,
 * `exists` needs macros). Where receivers return `permerror` (a syntax error or an unknown
 * mechanism anywhere in the record, too many lookups, more than 10 MX hosts), so does this.
 * The appliance is authorized when the record includes `delivery.spf_include`, or when every
 * sending IP is matched by a `+` mechanism.
 */
import { BlockList, isIP } from 'node:net';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { type ParsedSpf, parseSpf, SpfSyntaxError, spfDomain } from './spf-terms.js';

export type SpfVerdict =
  | { readonly status: 'verified' }
  | { readonly status: 'failed'; readonly reason: string; readonly temporary: boolean };

export interface SpfTarget {
  /** Addresses that must be authorized; empty when only `include` counts. */
  readonly ips: readonly string[];
  /** An `include:` domain that authorizes the appliance; '' for none. */
  readonly include: string;
  /** Without configured IPs or include: the host whose addresses `ips` are (`delivery.hostname`). */
  readonly hostname?: string;
  /**
   * Why `ips` may be incomplete now (a temporary DNS failure looking them up). The check can then
   * still fail for an address it knows, but never pass, nor fail for want of addresses.
   */
  readonly incomplete?: string;
}

const MAX_LOOKUPS = 10;
/** RFC 7208 §4.6.4: an `mx` mechanism may look up the addresses of at most 10 MX hosts. */
const MAX_MX_HOSTS = 10;

class TemporaryDns extends Error {}
class PermError extends Error {}

interface Walk {
  lookups: number;
  readonly resolver: DnsResolver;
}

/** The one `v=spf1` record at `name`, parsed, or why there is none (RFC 7208 §4.5). */
async function spfRecord(walk: Walk, name: string): Promise<ParsedSpf> {
  const answer = await walk.resolver.txt(name, { fresh: true });
  if (answer.status === 'temporary')
    throw new TemporaryDns(`the DNS lookup of ${name} failed temporarily (${answer.code})`);
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

function countLookup(walk: Walk): void {
  walk.lookups++;
  if (walk.lookups > MAX_LOOKUPS)
    throw new PermError('the SPF record needs more than 10 DNS lookups (RFC 7208 §4.6.4)');
}

function cidrMatch(ip: string, network: string, prefix: number): boolean {
  const family = isIP(ip);
  const networkFamily = isIP(network);
  if (family === 0 || family !== networkFamily) return false;
  const list = new BlockList();
  const type = family === 6 ? 'ipv6' : 'ipv4';
  list.addSubnet(network, prefix, type);
  return list.check(ip, type);
}

/** Whether `ip` is in the network of one of `addresses` (RFC 7208 §5.6 dual-cidr-length). */
function inAny(ip: string, addresses: readonly string[], cidr4: number, cidr6: number): boolean {
  return addresses.some((address) => cidrMatch(ip, address, isIP(address) === 6 ? cidr6 : cidr4));
}

/** RFC 7208 §5.4: the addresses of the domain's MX hosts; no MX (not even an implicit one) matches nothing. */
async function mxAddresses(walk: Walk, domain: string): Promise<string[]> {
  const answer = await walk.resolver.mx(domain, { fresh: true });
  if (answer.status === 'temporary')
    throw new TemporaryDns(`the DNS lookup of ${domain} failed temporarily (${answer.code})`);
  if (answer.status !== 'found' || answer.implicit) return [];
  if (answer.hosts.length > MAX_MX_HOSTS) {
    throw new PermError(
      `the MX of ${domain} has ${answer.hosts.length} hosts; an SPF mx mechanism may look up at most ${MAX_MX_HOSTS} (RFC 7208 §4.6.4)`,
    );
  }
  const lists = await Promise.all(answer.hosts.map((host) => addressesOf(walk, host.exchange)));
  return lists.flat();
}

async function addressesOf(walk: Walk, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([
    walk.resolver.a(host, { fresh: true }),
    walk.resolver.aaaa(host, { fresh: true }),
  ]);
  for (const answer of [v4, v6]) {
    if (answer.status === 'temporary')
      throw new TemporaryDns(`the DNS lookup of ${host} failed temporarily (${answer.code})`);
  }
  return [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
}

interface WalkState {
  /** Whether a `+include:` of the configured domain appears anywhere in the tree. */
  includesTarget: boolean;
}

/**
 * Evaluates one record for the target IPs, first match wins (RFC 7208 §4.6.2): the result maps
 * each IP some mechanism matched to whether that mechanism's qualifier was `+`.
 */
async function evaluate(
  walk: Walk,
  domain: string,
  record: ParsedSpf,
  target: SpfTarget,
  state: WalkState,
): Promise<Map<string, boolean>> {
  const decided = new Map<string, boolean>();
  const undecided = () => target.ips.filter((ip) => !decided.has(ip));
  for (const mechanism of record.mechanisms) {
    // A receiver stops at the first match: lookups after it count for nothing.
    if (target.ips.length > 0 && undecided().length === 0) return decided;
    const pass = mechanism.qualifier === '+';
    switch (mechanism.name) {
      case 'include': {
        if (pass && mechanism.domain === spfDomain(target.include)) state.includesTarget = true;
        countLookup(walk);
        const inner = await evaluate(
          walk,
          mechanism.domain,
          await spfRecord(walk, mechanism.domain),
          target,
          state,
        );
        // RFC 7208 §5.2: include matches only where the included record passes.
        for (const ip of undecided()) if (inner.get(ip) === true) decided.set(ip, pass);
        break;
      }
      case 'ip4':
      case 'ip6':
        for (const ip of undecided())
          if (cidrMatch(ip, mechanism.network, mechanism.prefix)) decided.set(ip, pass);
        break;
      case 'a':
      case 'mx': {
        countLookup(walk);
        const host = mechanism.domain ?? domain;
        const addresses =
          mechanism.name === 'a' ? await addressesOf(walk, host) : await mxAddresses(walk, host);
        for (const ip of undecided()) {
          if (inAny(ip, addresses, mechanism.cidr4, mechanism.cidr6)) decided.set(ip, pass);
        }
        break;
      }
      case 'ptr':
      case 'exists':
        countLookup(walk);
        break;
      case 'all':
        // RFC 7208 §6.1: redirect is ignored when the record has an `all`.
        for (const ip of undecided()) decided.set(ip, pass);
        return decided;
    }
  }
  if (record.redirect !== undefined && (target.ips.length === 0 || undecided().length > 0)) {
    countLookup(walk);
    const inner = await evaluate(
      walk,
      record.redirect,
      await spfRecord(walk, record.redirect),
      target,
      state,
    );
    for (const ip of undecided()) {
      const result = inner.get(ip);
      if (result !== undefined) decided.set(ip, result);
    }
  }
  return decided;
}

/**
 * @example
 * const verdict = await checkSpf(resolver, 'example.com', { ips: ['192.0.2.10'], include: '' });
 * if (verdict.status === 'failed') log.warn(verdict.reason);
 */
export async function checkSpf(
  resolver: DnsResolver,
  domain: string,
  target: SpfTarget,
): Promise<SpfVerdict> {
  const walk: Walk = { lookups: 0, resolver };
  try {
    const record = await spfRecord(walk, domain);
    const state: WalkState = { includesTarget: false };
    const decided = await evaluate(walk, domain, record, target, state);
    if (target.include !== '' && state.includesTarget) return { status: 'verified' };
    const missing = target.ips.filter((ip) => decided.get(ip) !== true);
    // Temporary DNS failures never change a domain's status: without every address, no verdict.
    if (missing.length === 0 && target.incomplete !== undefined)
      return { status: 'failed', reason: target.incomplete, temporary: true };
    if (target.ips.length > 0 && missing.length === 0) return { status: 'verified' };
    const wanted: string[] = [];
    if (target.include !== '') wanted.push(`include include:${target.include}`);
    if (missing.length > 0) wanted.push(`authorize ${missing.join(', ')}`);
    const reason =
      wanted.length > 0
        ? `SPF record at ${domain} does not ${wanted.join(' nor ')}`
        : target.hostname !== undefined
          ? `no address (A or AAAA) found for delivery.hostname ${target.hostname} to check SPF against; set delivery.sending_ips or delivery.spf_include`
          : 'no sending address is configured to check SPF against (set delivery.sending_ips or delivery.spf_include)';
    return { status: 'failed', reason, temporary: false };
  } catch (error) {
    if (error instanceof TemporaryDns) return { status: 'failed', reason: error.message, temporary: true };
    if (error instanceof PermError) return { status: 'failed', reason: error.message, temporary: false };
    throw error;
  }
}
