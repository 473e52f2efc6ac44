/**
 * Sending-domain names: lower case, IDNA A-labels (punycode) that decode, no trailing dot, at
 * least two labels, never an IP address, and never a public suffix itself (`co.uk`, `com.au`:
 * nobody can own one, and DMARC's organizational domain is found with the same list, RFC 7489
 * §3.2). The Public Suffix List comes from tldts (its ICANN section; a name under a suffix the list
 * does not know, such as `.test`, is taken as registrable). Whether the domain is really the
 * user's is the DNS check's business.
 *
 * The IP and numeric checks run again after IDNA conversion, which maps full-width digits and
 * parses `1.0x7f` as the URL standard's IPv4 (`1.0.0.127`).
 */
import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { getPublicSuffix } from 'tldts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type ParsedDomainName =
  | { readonly ok: true; readonly name: string }
  | { readonly ok: false; readonly reason: string };

/** RFC 5890 §2.3.2.1: an A-label must decode to a U-label that encodes back to it. */
function isValidALabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode !== label && !unicode.startsWith('xn--') && domainToASCII(unicode) === label;
}

function numericProblem(name: string): string | undefined {
  if (isIP(name) !== 0 || isIP(name.replace(/^\[|\]$/g, '')) !== 0)
    return 'is an IP address; use a domain name';
  if (/\.\d+$/.test(name)) return 'has an all-numeric top-level label';
  return undefined;
}

/**
 * `maxLength` caps the name so that the hosts of its records (`<selector>._domainkey.<name>`)
 * still fit DNS's 253 characters; see `maxDomainLength` in records.ts.
 *
 * @example parseDomainName('Bücher.DE.') // { ok: true, name: 'xn--bcher-kva.de' }
 */
export function parseDomainName(input: string, maxLength = 253): ParsedDomainName {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '') return { ok: false, reason: 'is empty' };
  const before = numericProblem(trimmed);
  if (before !== undefined) return { ok: false, reason: before };
  if (/[\s/@:]/.test(trimmed))
    return { ok: false, reason: 'is not a host name (no scheme, path, port or address)' };
  // The URL standard's host parser would percent-decode it: `exam%70le.com` is example.com.
  if (trimmed.includes('%'))
    return { ok: false, reason: 'contains "%"; write the name without percent-encoding' };
  const name = domainToASCII(trimmed).toLowerCase();
  if (name === '') return { ok: false, reason: 'is not a valid internationalized domain name' };
  const after = numericProblem(name);
  if (after !== undefined) return { ok: false, reason: after };
  if (name.length > maxLength) {
    return {
      ok: false,
      reason:
        maxLength === 253
          ? 'is longer than 253 characters'
          : `is longer than ${maxLength} characters (the hosts of its DNS records, such as <selector>._domainkey.<name>, must fit in 253)`,
    };
  }
  const labels = name.split('.');
  if (labels.length < 2) return { ok: false, reason: 'needs at least two labels, e.g. example.com' };
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return {
      ok: false,
      reason: `has an invalid label "${bad}" (letters, digits and inner hyphens, 1 to 63 characters)`,
    };
  }
  const badALabel = labels.find((label) => label.startsWith('xn--') && !isValidALabel(label));
  if (badALabel !== undefined)
    return {
      ok: false,
      reason: `has an invalid internationalized label "${badALabel}" (not valid punycode)`,
    };
  if (getPublicSuffix(name) === name) {
    return { ok: false, reason: 'is a public suffix; use a domain registered under it' };
  }
  return { ok: true, name };
}
