/**
 * The terms of an SPF record (RFC 7208 §4.6.1, §5, §6): mechanisms with their qualifier, domain
 * and CIDR lengths, and modifiers. A term that does not parse, or names a mechanism RFC 7208 does
 * not define, is a syntax error, which receivers turn into `permerror` (§4.6, §5); so is a second
 * `redirect=`. Macros (§7) are kept as written, never expanded.
 */
import { isIP } from 'node:net';

export type Qualifier = '+' | '-' | '~' | '?';

export type Mechanism =
  | { readonly name: 'all' }
  | { readonly name: 'include' | 'exists'; readonly domain: string }
  | { readonly name: 'ptr'; readonly domain: string | undefined }
  | {
      readonly name: 'a' | 'mx';
      readonly domain: string | undefined;
      readonly cidr4: number;
      readonly cidr6: number;
    }
  | { readonly name: 'ip4' | 'ip6'; readonly network: string; readonly prefix: number };

export interface ParsedSpf {
  readonly mechanisms: ReadonlyArray<Mechanism & { readonly qualifier: Qualifier }>;
  readonly redirect: string | undefined;
}

export class SpfSyntaxError extends Error {}

/** A domain as SPF compares and looks it up: lower case, without the trailing dot. */
export function spfDomain(domain: string): string {
  return domain.toLowerCase().replace(/\.$/, '');
}

function cidr(text: string | undefined, max: number, term: string): number {
  if (text === undefined) return max;
  const length = Number(text);
  if (length > max) throw new SpfSyntaxError(`"${term}" has a prefix length over ${max}`);
  return length;
}

function parseMechanism(name: string, rest: string, term: string): Mechanism | undefined {
  switch (name) {
    case 'all':
      return rest === '' ? { name } : undefined;
    case 'include':
    case 'exists': {
      const match = /^:([^/]+)$/.exec(rest);
      return match ? { name, domain: spfDomain(match[1] as string) } : undefined;
    }
    case 'ptr': {
      const match = /^(?::([^/]+))?$/.exec(rest);
      return match ? { name, domain: match[1] && spfDomain(match[1]) } : undefined;
    }
    case 'a':
    case 'mx': {
      // RFC 7208 §5.6: dual-cidr-length, `a:host/24//64`, `mx/24`, `a//64`.
      const match = /^(?::([^/]+))?(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(rest);
      if (!match) return undefined;
      return {
        name,
        domain: match[1] && spfDomain(match[1]),
        cidr4: cidr(match[2], 32, term),
        cidr6: cidr(match[3], 128, term),
      };
    }
    case 'ip4':
    case 'ip6': {
      const match = /^:([^/]+)(?:\/(\d+))?$/.exec(rest);
      const family = name === 'ip4' ? 4 : 6;
      if (!match || isIP(match[1] as string) !== family) return undefined;
      return { name, network: match[1] as string, prefix: cidr(match[2], family === 4 ? 32 : 128, term) };
    }
    default:
      throw new SpfSyntaxError(`"${term}" is not an SPF mechanism (RFC 7208 §5)`);
  }
}

/** Parses every term after `v=spf1`; throws SpfSyntaxError at the first one receivers reject. */
export function parseSpf(record: string): ParsedSpf {
  const mechanisms: Array<Mechanism & { qualifier: Qualifier }> = [];
  let redirect: string | undefined;
  for (const term of record.trim().split(/\s+/).slice(1)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      if ((modifier[1] as string).toLowerCase() !== 'redirect') continue; // exp= and unknown ones (§6)
      if (redirect !== undefined) throw new SpfSyntaxError('the SPF record has two redirect= modifiers');
      redirect = spfDomain(modifier[2] as string);
      continue;
    }
    const match = /^([+~?-]?)([a-z][a-z0-9_.-]*)(.*)$/i.exec(term);
    const mechanism = match && parseMechanism((match[2] as string).toLowerCase(), match[3] as string, term);
    if (!mechanism) throw new SpfSyntaxError(`"${term}" is not a valid SPF term (RFC 7208 §4.6.1)`);
    mechanisms.push({ ...mechanism, qualifier: ((match?.[1] as string) || '+') as Qualifier });
  }
  return { mechanisms, redirect };
}
