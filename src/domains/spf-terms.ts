/**
 * The terms of an SPF record (RFC 7208 §4.6.1, §5, §6): mechanisms with their qualifier, domain
 * and CIDR lengths, and modifiers. A term that does not parse, names a mechanism RFC 7208 does
 * not define, or holds a bad macro or domain-spec (§7.1) is a syntax error, which receivers turn
 * into `permerror` (§4.6, §5); so is a second `redirect=` or `exp=` (§6). Domain-specs are parsed
 * into macros here and expanded only when a check evaluates them.
 */
import { isIP } from 'node:net';
import { checkMacroString, type DomainSpec, parseDomainSpec, SpfSyntaxError } from './spf-macros.js';

export { SpfSyntaxError };

export type Qualifier = '+' | '-' | '~' | '?';

export type Mechanism =
  | { readonly name: 'all' }
  | { readonly name: 'include' | 'exists'; readonly domain: DomainSpec }
  | { readonly name: 'ptr'; readonly domain: DomainSpec | undefined }
  | {
      readonly name: 'a' | 'mx';
      readonly domain: DomainSpec | undefined;
      readonly cidr4: number;
      readonly cidr6: number;
    }
  | { readonly name: 'ip4' | 'ip6'; readonly network: string; readonly prefix: number };

export interface ParsedSpf {
  readonly mechanisms: ReadonlyArray<Mechanism & { readonly qualifier: Qualifier }>;
  readonly redirect: DomainSpec | undefined;
  /** `exp=`: where the explanation of a `fail` is published (§6.2). */
  readonly exp: DomainSpec | undefined;
}

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

function optionalSpec(text: string | undefined, term: string): DomainSpec | undefined {
  return text === undefined ? undefined : parseDomainSpec(text, term);
}

function parseMechanism(name: string, rest: string, term: string): Mechanism | undefined {
  switch (name) {
    case 'all':
      return rest === '' ? { name } : undefined;
    case 'include':
    case 'exists':
      return rest.startsWith(':') ? { name, domain: parseDomainSpec(rest.slice(1), term) } : undefined;
    case 'ptr': {
      const match = /^(?::(.*))?$/.exec(rest);
      return match ? { name, domain: optionalSpec(match[1], term) } : undefined;
    }
    case 'a':
    case 'mx': {
      // RFC 7208 §5.6: dual-cidr-length, `a:host/24//64`, `mx/24`, `a//64`. The domain-spec is
      // the shortest that leaves a valid CIDR suffix: a macro's delimiters may include "/".
      const match = /^(?::(.*?))?(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(rest);
      if (!match) return undefined;
      return {
        name,
        domain: optionalSpec(match[1], term),
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
  const modifiers = new Map<'redirect' | 'exp', DomainSpec>();
  for (const term of record.trim().split(/\s+/).slice(1)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      const name = (modifier[1] as string).toLowerCase();
      const value = modifier[2] as string;
      if (name !== 'redirect' && name !== 'exp') {
        checkMacroString(value, term); // §6: unknown modifiers are ignored, but must still parse
        continue;
      }
      if (modifiers.has(name)) throw new SpfSyntaxError(`the SPF record has two ${name}= modifiers`);
      modifiers.set(name, parseDomainSpec(value, term));
      continue;
    }
    const match = /^([+~?-]?)([a-z][a-z0-9_.-]*)(.*)$/i.exec(term);
    const mechanism = match && parseMechanism((match[2] as string).toLowerCase(), match[3] as string, term);
    if (!mechanism) throw new SpfSyntaxError(`"${term}" is not a valid SPF term (RFC 7208 §4.6.1)`);
    mechanisms.push({ ...mechanism, qualifier: ((match?.[1] as string) || '+') as Qualifier });
  }
  return { mechanisms, redirect: modifiers.get('redirect'), exp: modifiers.get('exp') };
}
