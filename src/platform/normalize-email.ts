/**
 * The one rule for comparing addresses. Suppressions, throttles and member checks all match on
 * `normalizeEmail(address)`: the whole address in lower case (the list is matched
 * case-insensitively, although RFC 5321 §2.4 lets a host treat local parts as case-sensitive, no
 * mailbox provider does), the domain in IDNA A-labels without a trailing dot. It never strips
 * `+tags` or dots: those are different mailboxes at most providers.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LOCAL_MAX = 64; // RFC 5321 §4.5.3.1.1
const ADDRESS_MAX = 254; // RFC 5321 §4.5.3.1.3 path limit minus the angle brackets
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Dot-atom characters (RFC 5322 §3.2.3) plus any non-ASCII character (RFC 6531 SMTPUTF8).
const LOCAL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+)*$/;

/** A domain in lower-case A-labels, or undefined when it is not a host name. */
export function normalizeDomain(domain: string): string | undefined {
  const trimmed = domain.trim().replace(/\.$/, '');
  if (trimmed === '' || isIP(trimmed) !== 0) return undefined;
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  // A top-level domain is never all digits (RFC 3696 §2), which also rules out "1.2" look-alikes of IPs.
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return undefined;
  return ascii;
}

/**
 * The normalized form of an addr-spec, or undefined when `address` is not one. Accepts an
 * address with surrounding white space; display names (`Ann <ann@x>`) are the caller's to strip.
 *
 * @example normalizeEmail(' Ann.Lee@Bücher.DE ') // 'ann.lee@xn--bcher-kva.de'
 */
export function normalizeEmail(address: string): string | undefined {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0 || at === trimmed.length - 1) return undefined;
  const local = trimmed.slice(0, at).normalize('NFC').toLowerCase();
  if (local.length > LOCAL_MAX || !LOCAL.test(local)) return undefined;
  const domain = normalizeDomain(trimmed.slice(at + 1));
  if (domain === undefined) return undefined;
  const normalized = `${local}@${domain}`;
  return normalized.length > ADDRESS_MAX ? undefined : normalized;
}
