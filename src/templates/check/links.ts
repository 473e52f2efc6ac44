/**
 * Link and image address rules of the template check. Placeholders are filled at send time, so
 * a `{{name}}` part is treated as unknown: a link that is only a placeholder is not judged, and
 * a host made of one is not compared with the example domains.
 */
import { isIP } from 'node:net';
import { type Issue, issue } from './issues.js';

const PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}/g;
/**
 * Template syntaxes of other systems that a send would leave in place. Every repeat is bounded
 * and stops at the next opening: an unbounded `[^\]]*` after `[[` read to the end of the
 * address from every `[[` in it (quadratic in an address full of them).
 */
const FOREIGN_SYNTAX =
  /[{}]|\$\{|\*\|[^|]{0,100}\|\*|%[A-Z][A-Z_]{2,100}%|\[\[[^[\]]{0,100}\]\]|\[[A-Z][A-Z_]{1,100}\]|<%/;
const UNSAFE_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'file:']);
const HARMLESS_SCHEMES = new Set(['mailto:', 'tel:', 'sms:']);
/** RFC 2606 and RFC 6761 reserved names, and the usual stand-ins. */
const EXAMPLE_SUFFIXES = ['example', 'test', 'invalid', 'localhost'];
const EXAMPLE_DOMAINS = [
  'example.com',
  'example.net',
  'example.org',
  'localhost',
  'yourdomain.com',
  'your-domain.com',
];

export function isExampleHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const tld = name.slice(name.lastIndexOf('.') + 1);
  if (EXAMPLE_SUFFIXES.includes(tld)) return true;
  return EXAMPLE_DOMAINS.some((domain) => name === domain || name.endsWith(`.${domain}`));
}

type Kind = 'link' | 'image';

interface Classified {
  readonly issues: Issue[];
}

function scheme(value: string): string | undefined {
  // Browsers drop control characters and spaces inside a scheme (`java\tscript:`).
  let compact = '';
  for (const ch of value) if (ch.charCodeAt(0) > 0x20) compact += ch;
  compact = compact.toLowerCase();
  const match = /^([a-z][a-z0-9+.-]*:)/.exec(compact);
  return match?.[1];
}

/** Judges one href or src; `target` in the issues is the address as written. */
export function checkAddress(raw: string | undefined, kind: Kind): Issue[] {
  return classify(raw, kind).issues;
}

function classify(raw: string | undefined, kind: Kind): Classified {
  const value = (raw ?? '').trim();
  const target = value;
  if (value === '') {
    return kind === 'link'
      ? { issues: [issue('link_empty', 'A link has no address.', target)] }
      : { issues: [issue('image_missing_src', 'An image has no src.', target)] };
  }
  if (kind === 'link' && value === '#') {
    return { issues: [issue('link_placeholder', 'A link points to "#"; give it its real address.', target)] };
  }
  if (kind === 'link' && value.startsWith('#')) return { issues: [] };
  const withoutPlaceholders = value.replace(PLACEHOLDER, 'x');
  if (FOREIGN_SYNTAX.test(withoutPlaceholders)) {
    const message = `"${value}" holds template syntax that is never filled; use {{name}}.`;
    return { issues: [issue('link_unfilled_placeholder', message, target)] };
  }
  if (/^\{\{[^}]{0,100}\}\}/.test(value)) {
    // Filled at send time, so not judged further; but the value decides the scheme.
    const message = `The ${kind} "${value}" starts with a placeholder, so its value decides the scheme and a javascript: or data: value would pass; write https:// and the host in the template.`;
    return {
      issues: [issue(kind === 'link' ? 'link_variable_scheme' : 'image_variable_scheme', message, target)],
    };
  }
  const found = scheme(value);
  if (found && UNSAFE_SCHEMES.has(found)) {
    if (kind === 'image' && found === 'data:') {
      return {
        issues: [
          issue(
            'image_data_uri',
            'An image is a data: URI; Gmail and Outlook do not show those.',
            target.slice(0, 60),
          ),
        ],
      };
    }
    return {
      issues: [
        issue(
          'link_unsafe_scheme',
          `A ${kind} uses the ${found} scheme, which email clients block.`,
          target.slice(0, 200),
        ),
      ],
    };
  }
  if (kind === 'link' && found && HARMLESS_SCHEMES.has(found)) return { issues: [] };
  if (!found) {
    return kind === 'link'
      ? {
          issues: [
            issue(
              'link_relative',
              `The link "${value}" is relative; use an absolute https:// address.`,
              target,
            ),
          ],
        }
      : {
          issues: [
            issue(
              'image_relative',
              `The image "${value}" is relative; use an absolute https:// address.`,
              target,
            ),
          ],
        };
  }
  let url: URL;
  try {
    url = new URL(withoutPlaceholders);
  } catch {
    return { issues: [issue('link_malformed', `"${value}" is not a valid URL.`, target)] };
  }
  const issues: Issue[] = [];
  if (url.protocol === 'http:') {
    issues.push(
      kind === 'link'
        ? issue('link_insecure', `The link "${value}" uses http:; use https:.`, target)
        : issue('image_insecure', `The image "${value}" loads over http:; use https:.`, target),
    );
  }
  const hostHasPlaceholder = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\{\{/i.test(value);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!hostHasPlaceholder && host !== '') {
    if (isExampleHost(host)) {
      issues.push(
        kind === 'link'
          ? issue('link_example_domain', `The link points to ${host}, a reserved example domain.`, target)
          : issue('image_example_domain', `The image loads from ${host}, a reserved example domain.`, target),
      );
    } else if (kind === 'link' && isIP(host) !== 0) {
      issues.push(
        issue('link_ip_address', `The link points to the IP address ${host}; use a domain name.`, target),
      );
    }
  }
  return { issues };
}
