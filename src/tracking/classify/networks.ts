/**
 * Client addresses: which of the sourced ranges (ranges.ts) one falls in. The truncated form a hit
 * keeps is the platform's (`truncateIp`, src/platform/ip-prefix.ts), which the access log uses too.
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

export { truncateIp } from '../../platform/ip-prefix.js';

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
