/**
 * Address ranges that tell a machine's fetch from a person's, kept as data with where each comes
 * from. They are matched locally (node:net BlockList): classifying a hit never asks anyone.
 * Update them from their sources when the vendors publish changes; docs/decisions/tracking.md
 * says how they are used.
 */

export interface SourcedRange {
  /** CIDR notation. */
  readonly cidr: string;
  readonly owner: string;
  /** Where the range is published. */
  readonly source: string;
}

/**
 * Apple's own network. Mail Privacy Protection fetches remote content through Apple's proxies
 * with the bare user agent `Mozilla/5.0`; a fetch from Apple's network with an agent that is no
 * browser's and no mail client's is counted as the proxy's too.
 */
export const APPLE_RANGES: readonly SourcedRange[] = [
  {
    cidr: '17.0.0.0/8',
    owner: 'Apple Inc. (AS714)',
    source: 'ARIN whois NetRange 17.0.0.0 - 17.255.255.255, APPLE-WWNET',
  },
];

/**
 * Networks of hosted mail security gateways that scan links and images of mail on arrival (the
 * ranges their customers are told to allow; the scanners' fetches are seen from them).
 */
export const SECURITY_GATEWAY_RANGES: readonly SourcedRange[] = [
  {
    cidr: '64.235.144.0/20',
    owner: 'Barracuda Email Security Service',
    source: 'Barracuda Campus, "Barracuda Email Security Service IP Ranges"',
  },
  {
    cidr: '209.222.80.0/21',
    owner: 'Barracuda Email Security Service',
    source: 'Barracuda Campus, "Barracuda Email Security Service IP Ranges"',
  },
  {
    cidr: '205.139.110.0/24',
    owner: 'Mimecast (US)',
    source: 'Mimecast Knowledge Base, "Mimecast Data Centers and URLs" (US IP ranges)',
  },
  {
    cidr: '207.211.30.0/24',
    owner: 'Mimecast (US)',
    source: 'Mimecast Knowledge Base, "Mimecast Data Centers and URLs" (US IP ranges)',
  },
  {
    cidr: '195.130.217.0/24',
    owner: 'Mimecast (UK)',
    source: 'Mimecast Knowledge Base, "Mimecast Data Centers and URLs" (UK IP ranges)',
  },
  {
    cidr: '91.220.42.0/24',
    owner: 'Mimecast (UK)',
    source: 'Mimecast Knowledge Base, "Mimecast Data Centers and URLs" (UK IP ranges)',
  },
  {
    cidr: '148.163.128.0/19',
    owner: 'Proofpoint (hosted protection, pphosted.com)',
    source: 'ARIN whois NetRange 148.163.128.0 - 148.163.159.255, PROOFPOINT',
  },
  {
    cidr: '67.231.144.0/20',
    owner: 'Proofpoint (hosted protection, pphosted.com)',
    source: 'ARIN whois NetRange 67.231.144.0 - 67.231.159.255, PROOFPOINT',
  },
];
