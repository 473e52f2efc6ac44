/**
 * What other capabilities ask about domains on their hot paths: is this sender domain verified
 * (send API, inbound routes), and the unsealed DKIM keys of a domain (delivery). Unsealed keys are
 * cached in memory for the life of the process and dropped when the domain is deleted, on every
 * node sharing the store (a notification, platform/db/notifications.ts; all of them when this node
 * may have missed one); they are never logged.
 */
import { unsealDkimKey } from '../dkim/key-seal.js';
import type { Notifications } from '../platform/db/notifications.js';
import { parseDomainName } from './name.js';
import type { DomainStore } from './store.js';

/** What the delivery engine needs to sign mail from a domain; spreads into the signer's SignRequest. */
export interface SigningKeys {
  readonly domainId: string;
  /** d=, the domain name. */
  readonly domain: string;
  readonly selector: string;
  readonly privateKeyPem: string;
  readonly algorithm: 'rsa-sha256';
  readonly ed25519?: { readonly selector: string; readonly privateKeyPem: string };
}

export interface VerifiedDomain {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
}

const SIGNING_CACHE_MAX = 1000;
/** The channel on which a node tells the others that a domain's keys are gone. */
const KEYS_CHANGED = 'posthorn_dkim_keys';

export function createDomainLookups(store: DomainStore, masterKey: Buffer, notifications?: Notifications) {
  const signingCache = new Map<string, SigningKeys>();
  /** Heard from the first key cached on: a node that caches nothing needs no connection to listen on. */
  let listening = false;
  const listen = () => {
    if (listening || notifications === undefined) return;
    listening = true;
    notifications.listen(KEYS_CHANGED, (key) => {
      if (key === null) signingCache.clear();
      else signingCache.delete(key);
    });
  };

  const findVerifiedByName = async (projectId: string, name: string): Promise<VerifiedDomain | undefined> => {
    const parsed = parseDomainName(name);
    if (!parsed.ok) return undefined;
    const row = await store.findByName(projectId, parsed.name);
    return row?.status === 'verified' ? { id: row.id, projectId: row.project_id, name: row.name } : undefined;
  };

  return {
    /**
     * The project's domain of that name if it is verified: the send API's sender check. `name` is
     * normalized (case, IDN, trailing dot); an invalid name is simply not found.
     */
    findVerifiedByName,

    /** `findVerifiedByName` as a yes/no (the send API's port). */
    async isVerified(projectId: string, name: string): Promise<boolean> {
      return (await findVerifiedByName(projectId, name)) !== undefined;
    },

    /** Whether the project's domain with this ID is verified (inbound routes need one). */
    async isVerifiedById(projectId: string, domainId: string): Promise<boolean> {
      return (await store.find(projectId, domainId))?.status === 'verified';
    },

    /**
     * The unsealed DKIM keys of the project's domain `domainName` (whatever its verification
     * status), or undefined when the project has no such domain (delivery then fails mail from a
     * deleted domain rather than send it unsigned). Cached in memory; never log it.
     *
     * @example
     * const keys = await services.domains.signingKeys(projectId, 'example.com');
     * if (keys) signed = await signer.sign(raw, keys);
     */
    async signingKeys(projectId: string, domainName: string): Promise<SigningKeys | undefined> {
      const parsed = parseDomainName(domainName);
      if (!parsed.ok) return undefined;
      const cacheKey = `${projectId}\n${parsed.name}`;
      const cached = signingCache.get(cacheKey);
      if (cached) return cached;
      const row = await store.findByName(projectId, parsed.name);
      if (!row) return undefined;
      const sealed = await store.sealedKeys(row.id);
      const rsa = sealed.find((key) => key.algorithm === 'rsa-sha256');
      if (!rsa) return undefined;
      const ed = sealed.find((key) => key.algorithm === 'ed25519-sha256');
      const keys: SigningKeys = {
        domainId: row.id,
        domain: row.name,
        selector: rsa.selector,
        privateKeyPem: unsealDkimKey(masterKey, rsa.private_key_sealed, row.id),
        algorithm: 'rsa-sha256',
        ...(ed
          ? {
              ed25519: {
                selector: ed.selector,
                privateKeyPem: unsealDkimKey(masterKey, ed.private_key_sealed, row.id),
              },
            }
          : {}),
      };
      listen();
      if (signingCache.size >= SIGNING_CACHE_MAX)
        signingCache.delete(signingCache.keys().next().value as string);
      signingCache.set(cacheKey, keys);
      return keys;
    },

    /** Whether the project has a domain of this name, whatever its status or keys. */
    async hasDomain(projectId: string, name: string): Promise<boolean> {
      const parsed = parseDomainName(name);
      return parsed.ok && (await store.findByName(projectId, parsed.name)) !== undefined;
    },

    /** Drops the cached keys of a deleted domain, on every node. */
    forget(projectId: string, name: string): void {
      const key = `${projectId}\n${name}`;
      signingCache.delete(key);
      notifications?.notify(KEYS_CHANGED, key);
    },
  };
}
