/**
 * Name formats of the config sections: host names, subdomains, domains and mail addresses. Each
 * refuses what would only fail later, in an SMTP greeting, a DNS record Posthorn advises or a
 * comparison with a received address, so that `posthorn config check` stops it at boot.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getPublicSuffix } from 'tldts';
import { z } from 'zod';

// RFC 1123 §2.1: letters, digits and inner hyphens, 1 to 63 characters (RFC 1035 §2.3.4).
const ldhLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const lowerLdhLabel = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// SPF's own names often start with an underscore (`_spf.example.com`), which DNS allows there.
const spfLabel = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
// RFC 5322 §3.2.3 dot-atom: the only local part an SMTP envelope carries without quoting.
const dotAtom = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

function labelsMatch(name: string, label: RegExp, maxLength = 253): boolean {
  return name.length <= maxLength && name.split('.').every((part) => label.test(part));
}

/** LDH labels, not an IPv4 address: a top-level label is never all digits (RFC 3696 §2). */
export function isHostName(name: string): boolean {
  return labelsMatch(name, ldhLabel) && !/(^|\.)\d+$/.test(name);
}

/**
 * A host name such as `mail.example.com` (one label, like `localhost`, is allowed): what an SMTP
 * greeting, EHLO and an MX record need. Not an IP address and no trailing dot.
 */
export const hostName = z
  .string()
  .refine(
    isHostName,
    'must be a host name such as "mail.example.com": letters, digits and "-" in labels separated by dots, no trailing dot, not an IP address',
  );

/** A host name, or an IP address where a name is not required (a CNAME target may be an A record). */
export function isHostOrAddress(value: string): boolean {
  return isIP(value) !== 0 || isHostName(value);
}

export const hostOrAddress = z
  .string()
  .refine(isHostOrAddress, 'must be a host name such as "clamd.internal" or an IP address');

/**
 * A domain whose DKIM signature Posthorn trusts, for itself and its subdomains (a feedback loop's):
 * a host name of two labels or more, in any case, that is not itself a public suffix of the Public
 * Suffix List, ICANN or private section (tldts). `com` or `co.uk` would trust every domain under
 * them, `blogspot.com` every blog.
 */
export const trustedDomain = z
  .string()
  .refine(
    (value) => isHostName(value) && value.includes('.'),
    'must be a domain name of two labels or more such as "fbl.example.net": letters, digits and "-" in labels separated by dots, no empty label or trailing dot, not an IP address',
  )
  .refine(
    (value) => getPublicSuffix(value, { allowPrivateDomains: true }) !== value.toLowerCase(),
    'is a public suffix (such as "co.uk"): trusting it would trust every domain under it; name the feedback loop\'s own domain',
  );

/** A domain name of two labels or more, in the lower-case ASCII form received addresses take. */
export const mailDomain = z
  .string()
  .refine(
    (value) => labelsMatch(value, lowerLdhLabel) && value.includes('.') && isHostName(value),
    'must be a lower-case domain name of two labels or more, such as "posthorn.test"',
  );

/**
 * Lower-case labels put in front of a sending domain (`<subdomain>.<domain>`). At most 63
 * characters in all, so a sending domain of 189 characters still fits DNS's 253.
 */
export function subdomain(example: string) {
  return z
    .string()
    .refine(
      (value) => labelsMatch(value, lowerLdhLabel, 63),
      `must be one or more lower-case DNS labels such as "${example}": a-z, 0-9 and "-" separated by dots, no leading or trailing dot, at most 63 characters`,
    );
}

/** The domain of an SPF `include:`, or '' for none. */
export const spfIncludeDomain = z
  .string()
  .refine(
    (value) => value === '' || (labelsMatch(value.replace(/\.$/, ''), spfLabel) && value.includes('.')),
    'must be a domain name such as "_spf.example.net" (without "include:"), or empty',
  );

/**
 * A bare address `local@domain`, or '' for none. The local part is a dot-atom and the domain a
 * host name (an internationalized one in its punycode form), so the address compares equal to
 * the same address in a RCPT TO (recipients.ts lower-cases both).
 */
export const bareAddress = z.string().refine((value) => {
  if (value === '') return true;
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const local = value.slice(0, at);
  const domain = domainToASCII(value.slice(at + 1));
  return local.length <= 64 && dotAtom.test(local) && domain !== '' && isHostName(domain);
}, 'must be a bare address such as "fbl@mail.example.com" (no display name or <>), or empty for none');
