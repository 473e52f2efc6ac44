/**
 * RFC 7208 check_host() for one address (§4.6.2): the first matching mechanism decides, `include:`
 * matches where the included record passes (§5.2), `redirect=` applies when nothing matched
 * (§6.1), and domain-specs are macro-expanded as they are reached (§7). `ptr`, deprecated but still
 * evaluated by receivers, matches a validated domain name of the address (§5.5, spf-ptr.ts).
 * Without an address (a check only for the `include:` of `delivery.spf_include`), what needs the
 * address matches nothing, and that include matches, as the record that lists the appliance's
 * addresses; a walk notes whether it reached it.
 */
import { BlockList, isIP } from 'node:net';
import { type DomainSpec, expandDomain, type MacroContext } from './spf-macros.js';
import { ptrMatches, withValidatedName } from './spf-ptr.js';
import {
  addressesOf,
  countLookup,
  exists,
  familiesFor,
  type Limits,
  mxHosts,
  type SpfDns,
  spfRecord,
} from './spf-lookups.js';
import type { Mechanism, ParsedSpf, Qualifier } from './spf-terms.js';

/** One evaluation: a receiver's check of one address (or of none). */
export interface Walk extends Limits {
  readonly dns: SpfDns;
  /** The macro values of the check; `domain` follows include and redirect. */
  readonly context: Omit<MacroContext, 'domain'>;
  /** The `include:` target that authorizes the appliance ('' for none), as `spfDomain` writes it. */
  readonly include: string;
  /** Whether a `+include:` of `include` was reached. */
  includesTarget: boolean;
}

export interface Verdict {
  /** The qualifier of the first match; undefined when nothing matched (`neutral`). */
  readonly qualifier: Qualifier | undefined;
  /** With a `-` match: the deciding record's `exp=` and the domain its macros expand with (§6.2). */
  readonly exp?: { readonly spec: DomainSpec; readonly domain: string };
}

function cidrMatch(ip: string, network: string, prefix: number): boolean {
  const family = isIP(ip);
  if (family === 0 || family !== isIP(network)) return false;
  const list = new BlockList();
  const type = family === 6 ? 'ipv6' : 'ipv4';
  list.addSubnet(network, prefix, type);
  return list.check(ip, type);
}

/** Whether `ip` is in the network of one of `addresses` (§5.6 dual-cidr-length). */
function inAny(ip: string, addresses: readonly string[], cidr4: number, cidr6: number): boolean {
  return addresses.some((address) => cidrMatch(ip, address, isIP(address) === 6 ? cidr6 : cidr4));
}

/** The name a domain-spec stands for here (none: `domain` itself); undefined when it needs the address. */
async function target(walk: Walk, domain: string, spec: DomainSpec | undefined): Promise<string | undefined> {
  if (spec === undefined) return domain;
  return expandDomain(spec, await withValidatedName(walk.dns, spec.tokens, { ...walk.context, domain }));
}

async function matches(
  walk: Walk,
  domain: string,
  mechanism: Mechanism & { readonly qualifier: Qualifier },
): Promise<boolean> {
  const { ip } = walk.context;
  switch (mechanism.name) {
    case 'all':
      return true;
    case 'ip4':
    case 'ip6':
      return ip !== undefined && cidrMatch(ip, mechanism.network, mechanism.prefix);
    case 'include': {
      countLookup(walk);
      const name = await target(walk, domain, mechanism.domain);
      if (name === undefined) return false;
      const inner = await evaluate(walk, name, await spfRecord(walk.dns, name));
      if (mechanism.qualifier === '+' && walk.include !== '' && name === walk.include) {
        walk.includesTarget = true;
        if (ip === undefined) return true;
      }
      return inner.qualifier === '+';
    }
    case 'a': {
      countLookup(walk);
      const host = await target(walk, domain, mechanism.domain);
      if (host === undefined) return false;
      const found = await addressesOf(walk.dns, walk, host, familiesFor(ip));
      return ip !== undefined && inAny(ip, found, mechanism.cidr4, mechanism.cidr6);
    }
    case 'mx': {
      countLookup(walk);
      const name = await target(walk, domain, mechanism.domain);
      if (name === undefined) return false;
      const hosts = await mxHosts(walk.dns, walk, name);
      if (ip === undefined) return false;
      // The MX hosts' addresses are part of the term: they never count as void lookups.
      const lists = await Promise.all(
        hosts.map((host) => addressesOf(walk.dns, undefined, host, familiesFor(ip))),
      );
      return inAny(ip, lists.flat(), mechanism.cidr4, mechanism.cidr6);
    }
    case 'exists': {
      countLookup(walk);
      const name = await target(walk, domain, mechanism.domain);
      return name !== undefined && (await exists(walk.dns, walk, name));
    }
    case 'ptr': {
      countLookup(walk);
      const name = await target(walk, domain, mechanism.domain);
      return name !== undefined && ip !== undefined && (await ptrMatches(walk.dns, walk, ip, name));
    }
  }
}

/**
 * Evaluates `record`, published at `domain`, for the walk's address.
 *
 * @example
 * const verdict = await evaluate(walk, 'example.com', await spfRecord(dns, 'example.com'));
 * if (verdict.qualifier === '+') authorized.push(walk.context.ip);
 */
export async function evaluate(walk: Walk, domain: string, record: ParsedSpf): Promise<Verdict> {
  for (const mechanism of record.mechanisms) {
    if (!(await matches(walk, domain, mechanism))) continue;
    const { qualifier } = mechanism;
    return qualifier === '-' && record.exp ? { qualifier, exp: { spec: record.exp, domain } } : { qualifier };
  }
  // §6.1: only when no mechanism matched (an `all` always does), and with the target's exp= (§6.2).
  if (record.redirect === undefined) return { qualifier: undefined };
  countLookup(walk);
  const name = await target(walk, domain, record.redirect);
  if (name === undefined) return { qualifier: undefined };
  return evaluate(walk, name, await spfRecord(walk.dns, name));
}
