/**
 * The special-use IP ranges (RFC 6890 and the RFCs it gathers): loopback, private (RFC 1918,
 * RFC 4193), carrier-grade NAT (RFC 6598), link-local (RFC 3927, RFC 4291; this includes the
 * 169.254.169.254 cloud metadata service), "this network", multicast, reserved and documentation
 * ranges. IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 address inside. Used where an
 * address must be one the internet can reach: a webhook target (SSRF), a sending address an SPF
 * record names, the tracking host.
 */
import { BlockList, isIP } from 'node:net';

/** `local`: this host itself (loopback, unspecified); `special`: any other special-use range. */
export type RangeKind = 'local' | 'special';

type Range = readonly [network: string, bits: number, name: string, kind: RangeKind];

const v4: readonly Range[] = [
  ['0.0.0.0', 8, 'this network', 'local'],
  ['10.0.0.0', 8, 'private', 'special'],
  ['100.64.0.0', 10, 'carrier-grade NAT', 'special'],
  ['127.0.0.0', 8, 'loopback', 'local'],
  ['169.254.0.0', 16, 'link-local or metadata', 'special'],
  ['172.16.0.0', 12, 'private', 'special'],
  ['192.0.0.0', 24, 'IETF protocol assignments', 'special'],
  ['192.0.2.0', 24, 'documentation', 'special'],
  ['192.88.99.0', 24, 'relay anycast', 'special'],
  ['192.168.0.0', 16, 'private', 'special'],
  ['198.18.0.0', 15, 'benchmarking', 'special'],
  ['198.51.100.0', 24, 'documentation', 'special'],
  ['203.0.113.0', 24, 'documentation', 'special'],
  ['224.0.0.0', 4, 'multicast', 'special'],
  ['240.0.0.0', 4, 'reserved', 'special'],
];

const v6: readonly Range[] = [
  ['::', 128, 'unspecified', 'local'],
  ['::1', 128, 'loopback', 'local'],
  ['100::', 64, 'discard', 'special'],
  ['2001:db8::', 32, 'documentation', 'special'],
  ['fc00::', 7, 'private', 'special'],
  ['fe80::', 10, 'link-local', 'special'],
  ['fec0::', 10, 'site-local', 'special'],
  ['ff00::', 8, 'multicast', 'special'],
];

const lists = [
  ...v4.map((range) => ({ range, type: 'ipv4' as const })),
  ...v6.map((range) => ({ range, type: 'ipv6' as const })),
].map(({ range: [network, bits, name, kind], type }) => {
  const list = new BlockList();
  list.addSubnet(network, bits, type);
  return { list, name, kind, type };
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

export interface SpecialRange {
  /** The range's name, e.g. `loopback`, `private`, `documentation`. */
  readonly name: string;
  readonly kind: RangeKind;
}

/**
 * The special-use range `address` lies in, or undefined for an address the internet can reach
 * (or a string that is no IP address).
 * @example specialRange('169.254.169.254') // { name: 'link-local or metadata', kind: 'special' }
 */
export function specialRange(address: string): SpecialRange | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const inner = family === 6 ? embeddedV4(address) : undefined;
  const [target, type] = inner
    ? [inner, 'ipv4' as const]
    : [address, family === 4 ? ('ipv4' as const) : ('ipv6' as const)];
  for (const range of lists) {
    if (range.type === type && range.list.check(target, type)) return { name: range.name, kind: range.kind };
  }
  return undefined;
}
