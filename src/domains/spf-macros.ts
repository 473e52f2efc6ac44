/**
 * SPF macros (RFC 7208 §7). A macro-string is parsed once, with the record, so that a bad macro
 * anywhere in the record is a syntax error (receivers: `permerror`) before any lookup; it is then
 * expanded for one check (one sending address) with its transformers, delimiters and URL escaping.
 * This module never looks anything up: the value of `%{p}` (a validated domain name of the address,
 * §7.3) comes in the context, found (spf-ptr.ts) only for a macro-string that uses it.
 */
import { isIP } from 'node:net';

export class SpfSyntaxError extends Error {}

type Letter = 's' | 'l' | 'o' | 'd' | 'i' | 'p' | 'v' | 'h' | 'c' | 'r' | 't';

export interface Macro {
  readonly letter: Letter;
  /** Keep this many right-hand parts; undefined keeps them all. */
  readonly digits: number | undefined;
  readonly reverse: boolean;
  /** The characters the value is split on ('.' when none are given). */
  readonly delimiters: string;
  /** An upper-case letter: the value is URL-escaped (§7.3). */
  readonly escape: boolean;
}

/** Literal text (with `%%`, `%_` and `%-` already replaced) or a macro. */
export type MacroToken = string | Macro;

/** A parsed domain-spec (§7.1); `text` is how the record wrote it. */
export interface DomainSpec {
  readonly text: string;
  readonly tokens: readonly MacroToken[];
}

/** What one check expands macros from (§7.3). */
export interface MacroContext {
  /** `<sender>`: local-part@domain. */
  readonly sender: string;
  /** `<domain>`: the domain whose record is being evaluated. */
  readonly domain: string;
  /** `<ip>`; undefined when the check is not about one address (then macros needing it cannot expand). */
  readonly ip: string | undefined;
  /** The HELO/EHLO name. */
  readonly helo: string;
  /** `%{p}`: the validated domain name of `ip` (§7.3), 'unknown' when absent (withValidatedName). */
  readonly validated?: string;
}

const DOMAIN_LETTERS = 'slodipvh';
/** §7.1: "c", "r" and "t" are allowed only in the explanation text an `exp=` points to. */
const EXPLANATION_LETTERS = 'slodipvhcrt';
/** `%%`, `%_` and `%-` (§7.1). */
const ESCAPES = new Map([
  ['%', '%'],
  ['_', ' '],
  ['-', '%20'],
]);
const MACRO = /^%\{([a-z])(\d*)(r?)([.+,/_=-]*)\}/i;
/** §7.1 domain-end: "." toplabel ["."], where a toplabel is not all digits. */
const DOMAIN_END = /\.(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])\.?$/i;

function parse(text: string, letters: string, spaces: boolean, term: string) {
  const tokens: MacroToken[] = [];
  let literal = '';
  /** Where the last macro-expand ended: a domain-spec may end with one instead of a toplabel. */
  let lastExpandEnd = -1;
  let i = 0;
  while (i < text.length) {
    const char = text.charAt(i);
    const code = char.charCodeAt(0);
    if (char !== '%') {
      // macro-literal is visible US-ASCII (%x21-7E); explanation text also allows spaces.
      if (!(code >= 0x21 && code <= 0x7e) && !(spaces && char === ' '))
        throw new SpfSyntaxError(`"${term}" contains a character SPF does not allow (RFC 7208 §7.1)`);
      literal += char;
      i++;
      continue;
    }
    const escaped = ESCAPES.get(text.charAt(i + 1));
    const match = escaped === undefined ? MACRO.exec(text.slice(i)) : null;
    if (escaped !== undefined) {
      literal += escaped;
      i += 2;
    } else if (match) {
      const [whole, letter = '', digits = '', reverse, delimiters = ''] = match;
      const lower = letter.toLowerCase();
      if (!letters.includes(lower)) {
        throw new SpfSyntaxError(
          `"${term}" uses %{${letter}}, which ${EXPLANATION_LETTERS.includes(lower) ? 'is allowed only in explanation text' : 'is not an SPF macro'} (RFC 7208 §7.1)`,
        );
      }
      if (digits !== '' && Number(digits) === 0)
        throw new SpfSyntaxError(`"${term}" keeps 0 parts of a macro value (RFC 7208 §7.3)`);
      if (literal !== '') tokens.push(literal);
      literal = '';
      tokens.push({
        letter: lower as Letter,
        digits: digits === '' ? undefined : Number(digits),
        reverse: reverse !== '',
        delimiters: delimiters || '.',
        escape: letter !== lower,
      });
      i += whole.length;
    } else {
      throw new SpfSyntaxError(
        `"${term}" has a "%" that starts no macro (RFC 7208 §7.1: %{...}, %%, %_ or %-)`,
      );
    }
    lastExpandEnd = i;
  }
  if (literal !== '') tokens.push(literal);
  return { tokens, lastExpandEnd };
}

/** A domain-spec: macros from "slodipvh", ending with a toplabel or a macro (§7.1). */
export function parseDomainSpec(text: string, term: string): DomainSpec {
  const { tokens, lastExpandEnd } = parse(text, DOMAIN_LETTERS, false, term);
  if (!(lastExpandEnd === text.length || DOMAIN_END.test(text.slice(Math.max(lastExpandEnd, 0))))) {
    throw new SpfSyntaxError(
      `"${term}" does not name a domain: it must end with a dot and a top-level label that is not all digits, or with a macro (RFC 7208 §7.1)`,
    );
  }
  return { text, tokens };
}

/** An unknown modifier's value (§6: ignored, but its macros must still be valid). */
export function checkMacroString(text: string, term: string): void {
  parse(text, EXPLANATION_LETTERS, false, term);
}

/** The text an `exp=` points to (§6.2); undefined when it is not a valid explain-string. */
export function parseExplanation(text: string): readonly MacroToken[] | undefined {
  try {
    return parse(text, EXPLANATION_LETTERS, true, 'exp').tokens;
  } catch (error) {
    if (error instanceof SpfSyntaxError) return undefined;
    throw error;
  }
}

/** Every 16-bit group of an IPv6 address, written out (`::` and an embedded IPv4 expanded). */
function ipv6Groups(ip: string): string[] {
  const groups = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [head = '', tail] = ip.split('::');
  if (tail === undefined) return groups(head);
  const start = groups(head);
  const end = groups(tail);
  return [...start, ...Array<string>(8 - start.length - end.length).fill('0'), ...end];
}

/** §7.3: `i` is dotted-quad for IPv4 and dot-separated nibbles for IPv6. */
function dottedIp(ip: string): string {
  if (isIP(ip) === 4) return ip;
  return [
    ...ipv6Groups(ip)
      .map((group) => group.padStart(4, '0'))
      .join(''),
  ]
    .join('.')
    .toLowerCase();
}

/** The name to ask for the PTR records of `ip` (RFC 1035 §3.5, RFC 3596 §2.5): `%{ir}.%{v}.arpa`. */
export function reverseName(ip: string): string {
  return `${dottedIp(ip).split('.').reverse().join('.')}.${isIP(ip) === 4 ? 'in-addr' : 'ip6'}.arpa`;
}

/** §7.3: `c` is the address as people write it (RFC 5952 for IPv6). */
function readableIp(ip: string): string {
  return isIP(ip) === 4 ? ip : new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

function value(letter: Letter, context: MacroContext): string | undefined {
  const at = context.sender.lastIndexOf('@');
  const { ip } = context;
  switch (letter) {
    case 's':
      return context.sender;
    case 'l':
      return context.sender.slice(0, at);
    case 'o':
      return context.sender.slice(at + 1);
    case 'd':
      return context.domain;
    case 'h':
      return context.helo;
    case 'p':
      return ip === undefined ? undefined : (context.validated ?? 'unknown');
    case 'r':
      // The host performing the check: a receiver, not this appliance (§7.3 allows "unknown").
      return 'unknown';
    case 't':
      return String(Math.floor(Date.now() / 1000));
    case 'i':
      return ip === undefined ? undefined : dottedIp(ip);
    case 'c':
      return ip === undefined ? undefined : readableIp(ip);
    case 'v':
      return ip === undefined ? undefined : isIP(ip) === 4 ? 'in-addr' : 'ip6';
  }
}

/** Whether a macro-string uses `%{p}` (whose value takes DNS lookups, so is found only then). */
export function usesValidatedName(tokens: readonly MacroToken[]): boolean {
  return tokens.some((token) => typeof token !== 'string' && token.letter === 'p');
}

/** RFC 3986 §2.3: everything but the unreserved characters is percent-encoded. */
function urlEscape(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function expandMacro(macro: Macro, context: MacroContext): string | undefined {
  const raw = value(macro.letter, context);
  if (raw === undefined) return undefined;
  // §7.3: split on any of the delimiters, reverse, keep the right-most parts, join with ".".
  const split = new RegExp(`[${macro.delimiters.replace(/[-\\\]^/]/g, '\\$&')}]`);
  const parts = raw.split(split);
  if (macro.reverse) parts.reverse();
  const kept = macro.digits === undefined ? parts : parts.slice(-macro.digits);
  const text = kept.join('.');
  return macro.escape ? urlEscape(text) : text;
}

/**
 * The expanded text, or undefined when it needs the address and the context has none.
 *
 * @example
 * expand(parseDomainSpec('%{ir}.%{v}._spf.%{d2}', 'exists').tokens, context)
 * // '3.2.0.192.in-addr._spf.example.com' for 192.0.2.3 and email.example.com
 */
export function expand(tokens: readonly MacroToken[], context: MacroContext): string | undefined {
  let text = '';
  for (const token of tokens) {
    const part = typeof token === 'string' ? token : expandMacro(token, context);
    if (part === undefined) return undefined;
    text += part;
  }
  return text;
}

/**
 * A domain-spec expanded to the name to look up: lower case, without the trailing dot, and cut
 * from the left, label by label, to DNS's 253 characters (§7.3).
 */
export function expandDomain(spec: DomainSpec, context: MacroContext): string | undefined {
  const text = expand(spec.tokens, context);
  if (text === undefined) return undefined;
  let name = text.toLowerCase().replace(/\.$/, '');
  while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
  return name;
}
