/**
 * What the per-client connection limit counts by: an IPv4 address, or the /64 network of an
 * IPv6 address. One IPv6 host usually holds a whole /64 (RFC 6177 and common practice hand end
 * sites at least that), so counting each address apart would let one client open 10 connections
 * from each of 2^64 addresses. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
import { isIPv6 } from 'node:net';

/**
 * @example clientKey('2001:db8:1:2:a:b:c:d') // '2001:db8:1:2::/64'
 * @example clientKey('::ffff:192.0.2.1') // '192.0.2.1'
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1] as string;
  const address = ip.split('%')[0] ?? ip;
  if (!isIPv6(address)) return ip;
  return `${groupsOf(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function groupsOf(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const split = (part: string) => (part === '' ? [] : part.split(':'));
  const front = split(head);
  const back = tail === undefined ? [] : split(tail);
  const last = tail === undefined ? front : back;
  const dotted = last[last.length - 1];
  if (dotted?.includes('.')) {
    // An embedded IPv4 address is the last two groups (RFC 4291 §2.2, form 3).
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    last.splice(last.length - 1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const zeros = Array.from({ length: 8 - front.length - back.length }, () => '0');
  const groups = tail === undefined ? front : [...front, ...zeros, ...back];
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
