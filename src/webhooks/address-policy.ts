/**
 * Which network addresses a webhook may be sent to. Without `webhooks.allow_private_targets`, a
 * customer-supplied URL must not reach this host or its network (SSRF): loopback, private
 * (RFC 1918, RFC 4193), carrier-grade NAT (RFC 6598), link-local (RFC 3927, RFC 4291; this
 * includes the 169.254.169.254 cloud metadata service), "this network", multicast, reserved and
 * documentation ranges. IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 inside.
 */
import { BlockList, isIP } from 'node:net';

const v4: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local or metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v6: readonly (readonly [string, number, string])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const lists = [
  ...v4.map(([net, bits, why]) => ({ net, bits, why, type: 'ipv4' as const })),
  ...v6.map(([net, bits, why]) => ({ net, bits, why, type: 'ipv6' as const })),
].map((range) => {
  const list = new BlockList();
  list.addSubnet(range.net, range.bits, range.type);
  return { list, why: range.why, type: range.type };
});

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) address. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  for (const prefix of ['::ffff:', '64:ff9b::']) {
    if (!lower.startsWith(prefix)) continue;
    const rest = lower.slice(prefix.length);
    if (isIP(rest) === 4) return rest;
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
    if (hex) {
      const high = Number.parseInt(hex[1] as string, 16);
      const low = Number.parseInt(hex[2] as string, 16);
      return [high >> 8, high & 255, low >> 8, low & 255].join('.');
    }
  }
  return undefined;
}

/**
 * Why `address` must not be a webhook target, or undefined when it may be.
 * @example forbiddenReason('169.254.169.254') // 'link-local or metadata'
 */
export function forbiddenReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const inner = family === 6 ? embeddedV4(address) : undefined;
  const [target, type] = inner
    ? [inner, 'ipv4' as const]
    : [address, family === 4 ? ('ipv4' as const) : ('ipv6' as const)];
  for (const range of lists) {
    if (range.type === type && range.list.check(target, type)) return range.why;
  }
  return undefined;
}
