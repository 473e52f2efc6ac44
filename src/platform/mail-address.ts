/**
 * Mailbox parsing, one rule for every part of Posthorn that reads an address (the send API, the
 * config's `sandbox.from`, delivery's signing keys): `addr@example.com` or `Display Name <addr@example.com>`
 * (RFC 5322 §3.4 name-addr / addr-spec). Domains are IDNA-converted to punycode and lower-cased
 * (RFC 5890), so `ü.example` and `xn--tda.example` are the same recipient. It refuses what a
 * direct-to-MX sender cannot deliver honestly: address literals, single-label domains, non-ASCII
 * local parts (RFC 6531 SMTPUTF8 is not offered), quoted local parts and anything carrying CR/LF
 * (header injection). It never resolves DNS: that is the delivery engine's job.
 *
 * One address rule holds from the send API to delivery and the suppression list: an address it
 * accepts has a dot-atom local part, so it fits an SMTP envelope as is (no `<`, `>`, spaces or
 * controls) and `normalizeEmail` (the suppression list's key) accepts it.
 */
import { domainToASCII } from 'node:url';
import { normalizeEmail } from './normalize-email.js';

export interface Mailbox {
  /** What the caller wrote, trimmed (display name included). */
  readonly display: string;
  /** Display name without quotes, or '' when none. */
  readonly name: string;
  /** The addr-spec: local part as given, domain lower-case punycode. */
  readonly email: string;
  /** `normalizeEmail(email)`: how recipients, suppressions and throttles compare addresses. */
  readonly normalized: string;
  readonly local: string;
  readonly domain: string;
}

export type ParseResult =
  | { readonly ok: true; readonly value: Mailbox }
  | { readonly ok: false; readonly reason: string };

// RFC 5322 §3.2.3 atext.
const atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const dotAtom = new RegExp(`^${atom}(?:\\.${atom})*$`);
const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Unquoted display names may hold words, spaces, dots (obs-phrase) and non-ASCII text.
const unquotedSpecials = /[()<>[\]:;@\\,"]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const controls = /[\x00-\x08\x0a-\x1f\x7f]/;

const fail = (reason: string): ParseResult => ({ ok: false, reason });

/**
 * RFC 5322 §2.1.1: a header line MUST be at most 998 characters. The composer folds an ASCII
 * display name only at its spaces and quotes it (doubling at most every character), so a name
 * this long still fits one line.
 */
export const MAX_DISPLAY_NAME = 256;

/** Normalizes a bare address the way every Posthorn table stores it: domain lower-case punycode. */
export function normalizeAddress(input: string): string | undefined {
  const parsed = parseAddrSpec(input.trim());
  return parsed.ok ? parsed.value.email : undefined;
}

/** Parses one mailbox, with an optional display name. */
export function parseMailbox(input: string): ParseResult {
  if (controls.test(input)) return fail('must not contain control characters or line breaks');
  const text = input.trim();
  if (text === '') return fail('must not be empty');
  if (!text.endsWith('>')) {
    if (text.includes('<')) return fail('has an unclosed "<" around the address');
    return parseAddrSpec(text);
  }
  const open = text.lastIndexOf('<');
  if (open < 0) return fail('has a ">" without a matching "<"');
  const rawName = text.slice(0, open).trim();
  const spec = parseAddrSpec(text.slice(open + 1, -1).trim());
  if (!spec.ok) return spec;
  const name = displayName(rawName);
  if (name === undefined) return fail('has a display name with special characters; put it in double quotes');
  if (name.length > MAX_DISPLAY_NAME)
    return fail(`has a display name longer than ${MAX_DISPLAY_NAME} characters (RFC 5322 §2.1.1)`);
  return { ok: true, value: { ...spec.value, display: text, name } };
}

function displayName(raw: string): string | undefined {
  if (raw === '') return '';
  if (raw.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(raw)) return undefined;
    return raw.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return unquotedSpecials.test(raw) ? undefined : raw;
}

function parseAddrSpec(text: string): ParseResult {
  const at = text.lastIndexOf('@');
  if (at < 0) return fail('is not an email address (no "@")');
  const local = text.slice(0, at);
  const rawDomain = text.slice(at + 1);
  if (local === '') return fail('has an empty local part before "@"');
  if (Buffer.byteLength(local) > 64)
    return fail('has a local part longer than 64 characters (RFC 5321 §4.5.3.1.1)');
  if (/[^\x20-\x7e]/.test(local))
    return fail('has non-ASCII characters before "@" (SMTPUTF8 addresses are not supported)');
  // RFC 5321 §4.1.2: a receiving host SHOULD NOT define mailboxes that need the Quoted-string
  // form. Such a local part may hold spaces, "<" or ">", which no SMTP envelope we send can carry
  // and the suppression list cannot hold, so it is refused here rather than failing in delivery.
  if (local.startsWith('"'))
    return fail('has a quoted local part before "@"; quoted local parts are not supported');
  if (!dotAtom.test(local)) return fail('has an invalid local part before "@"');
  const domain = asciiDomain(rawDomain);
  if (typeof domain !== 'string') return domain;
  const email = `${local}@${domain}`;
  if (email.length > 254) return fail('is longer than 254 characters (RFC 5321 §4.5.3.1.3)');
  // The same rule as the suppression list's, checked rather than assumed.
  const normalized = normalizeEmail(email);
  if (normalized === undefined) return fail('is not an address Posthorn can deliver to');
  return { ok: true, value: { display: text, name: '', email, normalized, local, domain } };
}

function asciiDomain(raw: string): string | ParseResult {
  if (raw === '') return fail('has no domain after "@"');
  if (raw.startsWith('[')) return fail('uses an address literal; a domain name is required');
  if (raw.endsWith('.')) return fail('has a domain ending in "."');
  const domain = domainToASCII(raw).toLowerCase();
  if (domain === '') return fail(`has an invalid domain "${raw}"`);
  const labels = domain.split('.');
  if (labels.length < 2) return fail(`has a domain "${raw}" without a top-level domain`);
  if (domain.length > 253 || !labels.every((part) => label.test(part)))
    return fail(`has an invalid domain "${raw}"`);
  if (/^[0-9]+$/.test(labels[labels.length - 1] as string))
    return fail(`has an IP address "${raw}" instead of a domain`);
  return domain;
}
