/** The name to ask for an address's PTR records (RFC 1035 §3.5, RFC 3596 §2.5). */
import { isIP } from 'node:net';

/** The eight groups of an IPv6 address, `::` expanded and an IPv4 tail written as two groups. */
function ipv6Groups(ip: string): string[] {
  const withV4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  let text = ip;
  if (withV4) {
    const [a, b, c, d] = (withV4[2] as string).split('.').map(Number) as [number, number, number, number];
    text = `${withV4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  if (tail === undefined) return groups(head);
  const start = groups(head);
  const end = groups(tail);
  return [...start, ...Array<string>(8 - start.length - end.length).fill('0'), ...end];
}

/**
 * @example reverseName('192.0.2.5') // '5.2.0.192.in-addr.arpa'
 * @example reverseName('2001:db8::1') // '1.0.0.0. ... .8.b.d.0.1.0.0.2.ip6.arpa'
 */
export function reverseName(ip: string): string {
  if (isIP(ip) === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  const nibbles = ipv6Groups(ip)
    .map((group) => group.padStart(4, '0'))
    .join('')
    .toLowerCase()
    .split('');
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}
