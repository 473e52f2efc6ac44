/**
 * The local addresses delivery sends from (`delivery.source_ips`), taken in turn within each
 * address family. A connection to an IPv6 address must come from an IPv6 source and one to an
 * IPv4 address from an IPv4 source (binding the other family fails with EINVAL), so a destination
 * of a family that no source has is skipped, as a connect failure, and the next address is tried.
 */
import { isIP } from 'node:net';

export class SourceAddresses {
  readonly #byFamily: ReadonlyMap<number, readonly string[]>;
  readonly #any: boolean;
  #next = 0;

  constructor(addresses: readonly string[]) {
    this.#any = addresses.length > 0;
    this.#byFamily = new Map(
      [4, 6].map((family) => [family, addresses.filter((address) => isIP(address) === family)]),
    );
  }

  /**
   * The source for a connection to `destination`: undefined lets the system choose (no source is
   * configured); null when no configured source has the destination's family.
   */
  for(destination: string): string | undefined | null {
    if (!this.#any) return undefined;
    const family = isIP(destination);
    const sources = this.#byFamily.get(family) ?? [];
    if (sources.length === 0) return null;
    return sources[this.#next++ % sources.length];
  }
}

/** Why `destination` was not tried: a connect failure (EADDRNOTAVAIL), so delivery moves on. */
export function noSourceFor(destination: string): Error {
  const family = isIP(destination) === 6 ? 'IPv6' : 'IPv4';
  return Object.assign(
    new Error(`no delivery.source_ips address is ${family}, so ${destination} cannot be reached`),
    { code: 'EADDRNOTAVAIL' },
  );
}
