/**
 * Sending-domain names: lower case, IDNA A-labels (punycode), no trailing dot, at least two
 * labels, never an IP address, and never a public suffix itself (`co.uk`, `com.au`: nobody can
 * own one, and DMARC's organizational domain is found with the same list, RFC 7489 §3.2). The
 * Public Suffix List comes from tldts (its ICANN section; a name under a suffix the list does not
 * know, such as `.test`, is taken as registrable). Whether the domain is really the user's is the
 * DNS check's business.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getPublicSuffix } from 'tldts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type ParsedDomainName =
  | { readonly ok: true; readonly name: string }
  | { readonly ok: false; readonly reason: string };

/** @example parseDomainName('Bücher.DE.') // { ok: true, name: 'xn--bcher-kva.de' } */
export function parseDomainName(input: string): ParsedDomainName {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '') return { ok: false, reason: 'is empty' };
  if (isIP(trimmed) !== 0 || isIP(trimmed.replace(/^\[|\]$/g, '')) !== 0) {
    return { ok: false, reason: 'is an IP address; use a domain name' };
  }
  if (/[\s/@:]/.test(trimmed))
    return { ok: false, reason: 'is not a host name (no scheme, path, port or address)' };
  if (/\.\d+$/.test(trimmed)) return { ok: false, reason: 'has an all-numeric top-level label' };
  const name = domainToASCII(trimmed).toLowerCase();
  if (name === '') return { ok: false, reason: 'is not a valid internationalized domain name' };
  if (name.length > 253) return { ok: false, reason: 'is longer than 253 characters' };
  const labels = name.split('.');
  if (labels.length < 2) return { ok: false, reason: 'needs at least two labels, e.g. example.com' };
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return {
      ok: false,
      reason: `has an invalid label "${bad}" (letters, digits and inner hyphens, 1 to 63 characters)`,
    };
  }
  if (getPublicSuffix(name) === name) {
    return { ok: false, reason: 'is a public suffix; use a domain registered under it' };
  }
  return { ok: true, name };
}
