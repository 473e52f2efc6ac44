/**
 * `posthorn doctor`: the checks an operator runs before the first send, in the order they are
 * printed: the config and the identity it gives this host, forward and reverse DNS of each sending
 * address, SPF, DKIM, DMARC and the bounce MX of every domain, inbound mail reaching this host
 * and the MX of every domain inbound routes receive mail for, the database (reachable, version,
 * migrations),
 * ClamAV, disk space and the clock. The network checks run side by side; none writes anything.
 */
import type { InspectedDomain } from '../domains/service.js';
import type { Config } from '../platform/config/schema.js';
import { createDnsResolver } from '../platform/dns/resolver.js';
import { clamavFindings } from './clamav.js';
import { clockFindings } from './clock.js';
import { configFindings } from './config-findings.js';
import { diskFindings } from './disk.js';
import { domainFindings } from './domain-findings.js';
import type { Finding } from './finding.js';
import { inboundHostFindings, routedDomainFindings } from './inbound-host.js';
import { sendingAddressFindings } from './sending-addresses.js';

export interface DoctorInput {
  readonly config: Config;
  /** Where the config came from: its file, or the embedded defaults. */
  readonly source: string;
  /** `host[:port]` of an NTP server to measure the clock against. */
  readonly timeServer?: string;
  /**
   * What the store holds: every sending domain, inspected in DNS now, and the domains inbound
   * routes receive mail for; both undefined when there is no database yet. `where` names it.
   */
  /** The database: reachable, its version, its migrations (database.ts). */
  readonly database?: () => Promise<Finding[]>;
  readonly store: () => Promise<{
    readonly where: string;
    readonly domains?: readonly InspectedDomain[];
    readonly routed?: readonly string[];
  }>;
}

export async function runDoctor(input: DoctorInput): Promise<Finding[]> {
  const { config } = input;
  // Fresh answers for every lookup, and a short cache life: nothing here is reused.
  const resolver = createDnsResolver(config);
  const stored = input.store();
  const [configs, database, addresses, domains, inbound, routed, clamav, clock] = await Promise.all([
    configFindings(config, input.source),
    input.database?.() ?? [],
    sendingAddressFindings(config, resolver),
    stored.then(({ where, domains: list }) =>
      list === undefined
        ? domainFindings([], `${where} (no database yet: serve creates it)`)
        : domainFindings(list, where),
    ),
    inboundHostFindings(config, resolver),
    stored.then(({ routed: names }) => routedDomainFindings(config, resolver, names ?? [])),
    clamavFindings(config),
    clockFindings(input.timeServer !== undefined ? { timeServer: input.timeServer } : {}),
  ]);
  return [
    ...configs,
    ...database,
    ...addresses,
    ...domains,
    ...inbound,
    ...routed,
    ...clamav,
    ...diskFindings(config.storage.data_dir),
    ...clock,
  ];
}
