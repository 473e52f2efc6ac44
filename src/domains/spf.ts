/**
 * Does a domain's SPF record authorize this appliance? A focused evaluator for verification,
 * not a receiver's full check_host(): it follows `include:` and `redirect=` (within RFC 7208
 * §4.6.4's limit of 10 lookups) and matches `ip4`, `ip6`, `a` and `all` with the `+` qualifier.
 * The appliance is authorized when the record includes `delivery.spf_include`, or when every
 * sending IP is matched by a `+` mechanism.
 */
import { BlockList, isIP } from 'node:net';
import type { DnsResolver } from '../platform/dns/resolver.js';

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

class TemporaryDns extends Error {}
class PermError extends Error {}

interface Walk {
  lookups: number;
  readonly resolver: DnsResolver;
}

/** The one `v=spf1` record at `name`, or why there is none (RFC 7208 §4.5). */
async function spfRecord(walk: Walk, name: string): Promise<string> {
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
  return (records[0] as string).trim();
}

function countLookup(walk: Walk): void {
  walk.lookups++;
  if (walk.lookups > MAX_LOOKUPS)
    throw new PermError('the SPF record needs more than 10 DNS lookups (RFC 7208 §4.6.4)');
}

function cidrMatch(ip: string, network: string, prefix: number | undefined): boolean {
  const family = isIP(ip);
  const networkFamily = isIP(network);
  if (family === 0 || family !== networkFamily) return false;
  const list = new BlockList();
  const type = family === 6 ? 'ipv6' : 'ipv4';
  list.addSubnet(network, prefix ?? (family === 6 ? 128 : 32), type);
  return list.check(ip, type);
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
  record: string,
  target: SpfTarget,
  state: WalkState,
): Promise<Map<string, boolean>> {
  const decided = new Map<string, boolean>();
  const undecided = () => target.ips.filter((ip) => !decided.has(ip));
  let redirect: string | undefined;
  for (const term of record.split(/\s+/).slice(1)) {
    const redirectMatch = /^redirect=(.+)$/i.exec(term);
    if (redirectMatch) {
      redirect = redirectMatch[1] as string;
      continue;
    }
    const match = /^([+?~-]?)([a-z0-9]+)(?::([^/]*))?(?:\/(\d+))?(?:\/\/(\d+))?$/i.exec(term);
    if (!match) continue;
    const pass = (match[1] || '+') === '+';
    const mechanism = (match[2] as string).toLowerCase();
    const argument = match[3];
    if (mechanism === 'include' && argument) {
      if (pass && argument.toLowerCase() === target.include.toLowerCase()) state.includesTarget = true;
      countLookup(walk);
      const inner = await evaluate(walk, argument, await spfRecord(walk, argument), target, state);
      // RFC 7208 §5.2: include matches only where the included record passes.
      for (const ip of undecided()) if (inner.get(ip) === true) decided.set(ip, pass);
    } else if ((mechanism === 'ip4' || mechanism === 'ip6') && argument) {
      const prefix = match[4] === undefined ? undefined : Number(match[4]);
      for (const ip of undecided()) if (cidrMatch(ip, argument, prefix)) decided.set(ip, pass);
    } else if (mechanism === 'a') {
      countLookup(walk);
      const addresses = await addressesOf(walk, argument || domain);
      for (const ip of undecided()) {
        if (addresses.some((address) => cidrMatch(ip, address, undefined))) decided.set(ip, pass);
      }
    } else if (mechanism === 'all') {
      // RFC 7208 §6.1: redirect is ignored when the record has an `all`.
      for (const ip of undecided()) decided.set(ip, pass);
      return decided;
    }
  }
  if (redirect !== undefined) {
    countLookup(walk);
    const inner = await evaluate(walk, redirect, await spfRecord(walk, redirect), target, state);
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
 * if (verdict.status === 'failed') console.log(verdict.reason);
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
