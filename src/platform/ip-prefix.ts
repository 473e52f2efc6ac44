/**
 * A client address truncated to its network: IPv4 to its /24, IPv6 to its /48, enough to tell
 * networks apart and not people. Tracking stores hits with it, and the access log writes it for
 * routes whose clients are recipients rather than API users (`RouteSpec.privateClient`).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as Node reports IPv4 on a dual-stack socket). */
function unmapped(ip: string): string {
  return ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
}

/**
 * @example truncateIp('203.0.113.77') // '203.0.113.0/24'
 * @example truncateIp('2001:db8:1234:5678::1') // '2001:db8:1234::/48'
 */
export function truncateIp(ip: string | null): string | null {
  if (ip === null) return null;
  const address = unmapped(ip);
  if (isIPv4(address)) {
    const [a, b, c] = address.split('.');
    return `${a}.${b}.${c}.0/24`;
  }
  if (!isIPv6(address)) return null;
  const groups = expandIpv6(address)
    .slice(0, 3)
    .map((g) => Number.parseInt(g, 16).toString(16));
  while (groups.at(-1) === '0') groups.pop();
  return `${groups.join(':')}::/48`;
}

/** The eight groups of an IPv6 address (an embedded IPv4 tail counts as two). */
function expandIpv6(address: string): string[] {
  let text = address.split('%')[0] as string;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  if (rest === undefined) return left;
  const right = rest === '' ? [] : rest.split(':');
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}
