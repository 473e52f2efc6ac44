/**
 * Client addresses: which of the sourced ranges (ranges.ts) one falls in, and the truncated form
 * that is all a hit keeps (IPv4 to its /24, IPv6 to its /48: enough to tell networks apart, not
 * people).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { APPLE_RANGES, SECURITY_GATEWAY_RANGES, type SourcedRange } from './ranges.js';

function blockList(ranges: readonly SourcedRange[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [network, bits] = range.cidr.split('/') as [string, string];
    list.addSubnet(network, Number(bits), isIPv6(network) ? 'ipv6' : 'ipv4');
  }
  return list;
}

const apple = blockList(APPLE_RANGES);
const gateways = blockList(SECURITY_GATEWAY_RANGES);

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as Node reports IPv4 on a dual-stack socket). */
function unmapped(ip: string): string {
  return ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
}

function check(list: BlockList, ip: string | null): boolean {
  if (ip === null) return false;
  const address = unmapped(ip);
  if (isIPv4(address)) return list.check(address, 'ipv4');
  if (isIPv6(address)) return list.check(address, 'ipv6');
  return false;
}

export const isAppleNetwork = (ip: string | null): boolean => check(apple, ip);
export const isSecurityGateway = (ip: string | null): boolean => check(gateways, ip);

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
