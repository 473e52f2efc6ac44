/**
 * The syntax check of address validation: is the string a mailbox that SMTP can carry? It follows
 * RFC 5321 §4.1.2 (a local part is a dot-string or a quoted-string; the domain a host name or an
 * address literal), the length limits of §4.5.3.1, RFC 6531 for UTF-8 local parts and IDNA
 * (UTS #46, as Node's `domainToASCII` applies it) for internationalised domains. Every refusal
 * carries a reason a person can act on. It never looks anything up.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** RFC 5321 §4.5.3.1.1. */
export const LOCAL_MAX_OCTETS = 64;
/** RFC 5321 §4.5.3.1.3: a path holds 256 octets, two of them the angle brackets. */
export const ADDRESS_MAX_OCTETS = 254;
/** RFC 1035 §2.3.4. */
const LABEL_MAX_OCTETS = 63;
/** RFC 1035 §2.3.4: 255 octets on the wire are 253 characters of text. */
const DOMAIN_MAX_OCTETS = 253;

// atext of RFC 5322 §3.2.3, plus any non-ASCII character (RFC 6531 §3.3 extends atext with UTF-8).
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+$/u;
// RFC 5321 §4.1.2: qtextSMTP is %d32-33 / %d35-91 / %d93-126; quoted-pairSMTP is "\" %d32-126.
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10FFFF}]|\\[\x20-\x7e])*"$/u;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export type SyntaxResult =
  | {
      readonly ok: true;
      /** The local part as written (NFC); case is kept, since RFC 5321 §2.4 lets hosts honour it. */
      readonly local: string;
      /** The domain in lower-case A-labels. */
      readonly domain: string;
      /** The domain as written, in Unicode when it was an IDN (for messages). */
      readonly displayDomain: string;
      readonly quoted: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/** White space or a C0/DEL control character, which only a quoted string may hold (as quoted-pairs). */
function hasSpaceOrControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || /\s/.test(text.charAt(i))) return true;
  }
  return false;
}

const octets = (text: string) => Buffer.byteLength(text, 'utf8');
const fail = (reason: string): SyntaxResult => ({ ok: false, reason });

function checkLocal(local: string): string | undefined {
  if (local === '') return 'the address has nothing before the @';
  if (octets(local) > LOCAL_MAX_OCTETS)
    return `the local part is ${octets(local)} octets long; RFC 5321 §4.5.3.1.1 allows ${LOCAL_MAX_OCTETS}`;
  if (local.startsWith('"')) {
    return QUOTED.test(local)
      ? undefined
      : 'the quoted local part has a character a quoted string cannot hold';
  }
  if (local.startsWith('.') || local.endsWith('.')) return 'the local part starts or ends with a dot';
  if (local.includes('..')) return 'the local part has two dots in a row';
  const bad = local.split('.').find((atom) => !ATOM.test(atom));
  if (bad !== undefined) {
    const char = [...bad].find((c) => !ATOM.test(c)) ?? bad;
    return `the local part has a character that needs quoting (${JSON.stringify(char)})`;
  }
  return undefined;
}

/** The A-label form of `domain`, or the reason it is not a host name. */
function checkDomain(domain: string): { ascii: string } | { reason: string } {
  if (domain === '') return { reason: 'the address has nothing after the @' };
  if (domain.endsWith('.')) return { reason: 'the domain ends with a dot' };
  const ascii = domainToASCII(domain).toLowerCase();
  if (ascii === '')
    return { reason: `${JSON.stringify(domain)} is not a valid (internationalised) domain name` };
  const labels = ascii.split('.');
  if (labels.some((label) => label === ''))
    return { reason: 'the domain has an empty label (two dots in a row)' };
  const long = labels.find((label) => label.length > LABEL_MAX_OCTETS);
  if (long !== undefined)
    return {
      reason: `the domain label "${long.slice(0, 16)}…" is ${long.length} characters long; RFC 1035 §2.3.4 allows ${LABEL_MAX_OCTETS}`,
    };
  if (ascii.length > DOMAIN_MAX_OCTETS)
    return { reason: `the domain is ${ascii.length} characters long; RFC 1035 allows ${DOMAIN_MAX_OCTETS}` };
  const bad = labels.find((label) => !LDH_LABEL.test(label));
  if (bad !== undefined)
    return {
      reason: `the domain label "${bad}" is not a host name (letters, digits and inner hyphens only, RFC 5321 §4.1.2)`,
    };
  if (labels.length < 2) return { reason: `"${ascii}" is not a fully qualified domain (it has no dot)` };
  // RFC 3696 §2: a top-level domain is never all digits (which also keeps "1.2" from passing as a name).
  if (/^\d+$/.test(labels.at(-1) ?? '')) return { reason: 'the top-level domain is all digits' };
  return { ascii };
}

/**
 * @example checkSyntax('Ann@Bücher.de') // { ok: true, local: 'Ann', domain: 'xn--bcher-kva.de', ... }
 * @example checkSyntax('ann..lee@example.com') // { ok: false, reason: 'the local part has two dots in a row' }
 */
export function checkSyntax(input: string): SyntaxResult {
  const address = input.trim().normalize('NFC');
  if (octets(address) > ADDRESS_MAX_OCTETS)
    return fail(
      `the address is ${octets(address)} octets long; RFC 5321 §4.5.3.1.3 allows ${ADDRESS_MAX_OCTETS}`,
    );
  if (hasSpaceOrControl(address.replace(/"(?:[^"\\]|\\.)*"/g, '')))
    return fail('the address contains white space or a control character');
  const at = address.lastIndexOf('@');
  if (at === -1) return fail('the address has no @');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const localProblem = checkLocal(local);
  if (localProblem !== undefined) return fail(localProblem);
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1).replace(/^IPv6:/i, '');
    if (isIP(literal) === 0) return fail(`${domain} is not an address literal (RFC 5321 §4.1.3)`);
    // Valid RFC 5321 syntax, but nothing Posthorn sends to (the send API refuses it too).
    return fail(`${domain} is an address literal; Posthorn sends only to domain names`);
  }
  if (isIP(domain) !== 0) return fail(`${domain} is an IP address without brackets, not a domain`);
  const checked = checkDomain(domain);
  if ('reason' in checked) return fail(checked.reason);
  return {
    ok: true,
    local,
    domain: checked.ascii,
    displayDomain: domain.toLowerCase(),
    quoted: local.startsWith('"'),
  };
}
