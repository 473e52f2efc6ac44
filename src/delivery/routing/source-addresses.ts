/**
 * The local addresses delivery sends from (`delivery.source_ips`), taken in turn within each
 * address family. A connection to an IPv6 address must come from an IPv6 source and one to an
 * IPv4 address from an IPv4 source (binding the other family fails with EINVAL), so a destination
 * of a family that no source has is skipped, as a connect failure, and the next address is tried.
 *
 * A project may have a dedicated address (one of `delivery.source_ips`): the port below says,
 * job by job, whether its mail leaves from it now (the reputation capability answers it, counting
 * the mail against the address's warm-up plan) and which addresses the others share.
 */
import { isIP } from 'node:net';

/** Which local address a project's mail leaves from: "which source for this project and provider now?". */
export interface SourcePort {
  /**
   * The dedicated address `recipients` of `projectId` through `lane` leave from now (they are
   * counted against its plan); undefined sends them from the shared addresses.
   */
  dedicatedFor(projectId: string, lane: string, recipients: number): string | undefined;
  /** The addresses shared by mail without a dedicated one: delivery.source_ips less the assigned ones. */
  shared(): readonly string[];
}

export class SourceAddresses {
  readonly #addresses: () => readonly string[];
  #seen: readonly string[] | undefined;
  #byFamily: ReadonlyMap<number, readonly string[]> = new Map();
  #next = 0;

  /** `addresses`: the shared addresses, or a function answering them now (they change as IPs are assigned). */
  constructor(addresses: readonly string[] | (() => readonly string[])) {
    this.#addresses = typeof addresses === 'function' ? addresses : () => addresses;
  }

  /**
   * The source for a connection to `destination`: `dedicated` when given and of the destination's
   * family; else a shared one in turn. Undefined lets the system choose (no source is configured);
   * null when no shared source has the destination's family.
   */
  for(destination: string, dedicated?: string): string | undefined | null {
    const family = isIP(destination);
    if (dedicated !== undefined && isIP(dedicated) === family) return dedicated;
    const addresses = this.#addresses();
    if (addresses.length === 0) return undefined;
    if (addresses !== this.#seen) {
      this.#seen = addresses;
      this.#byFamily = new Map([4, 6].map((f) => [f, addresses.filter((address) => isIP(address) === f)]));
    }
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
