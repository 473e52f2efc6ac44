/**
 * The validated domain names of an address (RFC 7208 §5.5), for the deprecated `ptr` mechanism
 * and the `%{p}` macro (§7.3): the names its PTR records give (only the first 10, §4.6.4), each kept
 * only when its A records (IPv4) or AAAA records (IPv6) hold the address. A DNS error here is never
 * `temperror` (§5.5): one on the PTR lookup leaves no names, one on a name's lookup drops that name.
 * The lookups go through the check's SpfDns, so each is made once per check however many terms and
 * macros ask; `%{p}` is looked up only for a macro-string that uses it.
 */
import { BlockList, isIP } from 'node:net';
import { countVoid, type Limits, type SpfDns } from './spf-lookups.js';
import { type MacroContext, type MacroToken, reverseName, usesValidatedName } from './spf-macros.js';
import { spfDomain } from './spf-terms.js';

/** §4.6.4: PTR names past the first 10 are ignored (not an error, unlike MX hosts). */
const MAX_PTR_NAMES = 10;

interface Validated {
  /** The PTR lookup found no names (NXDOMAIN or no records). */
  readonly void: boolean;
  /** The names that map back to the address, in the PTR answer's order. */
  readonly names: readonly string[];
}

function sameAddress(ip: string, other: string): boolean {
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(other) !== isIP(ip)) return false;
  const list = new BlockList();
  list.addAddress(ip, type);
  return list.check(other, type);
}

/** `name` is `domain` or a subdomain of it (both lower case, without the trailing dot). */
function within(name: string, domain: string): boolean {
  return name === domain || name.endsWith(`.${domain}`);
}

async function validatedNames(dns: SpfDns, ip: string): Promise<Validated> {
  const answer = await dns.ptr(reverseName(ip));
  // §5.5: "If a DNS error occurs while doing the PTR RR lookup, then this mechanism fails to match."
  if (answer.status === 'temporary') return { void: false, names: [] };
  if (answer.status !== 'found') return { void: true, names: [] };
  const names = answer.records.slice(0, MAX_PTR_NAMES);
  const family = isIP(ip) === 6 ? 6 : 4;
  const forward = await Promise.all(names.map((name) => dns.address(name, family)));
  // §5.5: a DNS error on a name's address lookup skips that name.
  return {
    void: false,
    names: names.filter((_, i) => {
      const found = forward[i];
      return found?.status === 'found' && found.records.some((address) => sameAddress(ip, address));
    }),
  };
}

/**
 * §5.5: whether a validated name of `ip` is `target` or a subdomain of it. The term's lookup is
 * the PTR lookup: finding no names there is a void lookup; its names' address lookups are not.
 *
 * @example
 * countLookup(walk);
 * if (await ptrMatches(walk.dns, walk, '192.0.2.10', 'example.com')) return true;
 */
export async function ptrMatches(dns: SpfDns, limits: Limits, ip: string, target: string): Promise<boolean> {
  const { void: empty, names } = await validatedNames(dns, ip);
  if (empty) countVoid(limits, reverseName(ip));
  return names.some((name) => within(name, spfDomain(target)));
}

/**
 * `context` with the value of `%{p}` when `tokens` use it (§7.3): a validated name of the address
 * that is `<domain>`, else one below it, else the first; "unknown" without one. Its lookups are
 * part of the term whose macro-string it is: they never count as lookups or void lookups of their own.
 *
 * @example
 * const name = expandDomain(spec, await withValidatedName(dns, spec.tokens, context));
 */
export async function withValidatedName(
  dns: SpfDns,
  tokens: readonly MacroToken[],
  context: MacroContext,
): Promise<MacroContext> {
  if (context.ip === undefined || !usesValidatedName(tokens)) return context;
  const { names } = await validatedNames(dns, context.ip);
  const domain = spfDomain(context.domain);
  const validated =
    names.find((name) => name === domain) ?? names.find((name) => within(name, domain)) ?? names[0];
  return validated === undefined ? context : { ...context, validated };
}
