/**
 * MTA-STS (RFC 8461): a recipient domain that publishes `_mta-sts.<domain>` TXT `v=STSv1; id=...`
 * and a policy at `https://mta-sts.<domain>/.well-known/mta-sts.txt` tells senders which MX hosts
 * are genuine and that they must speak TLS with a valid certificate to them.
 *
 * - Discovery and the policy host's address go through the configured resolver; the policy is
 *   fetched over HTTPS with a certificate that must be valid for the policy host (§3.3), no
 *   redirects, at most 64 KB, `text/plain`.
 * - Policies are cached in memory and in `mta_sts_policies` until their max_age runs out (§5.1),
 *   refetched when the TXT id changes, and a cached policy outlives a failed refresh (§3.3), so an
 *   attacker who blocks the fetch cannot downgrade a domain that had one. A failed first fetch is
 *   remembered for a few minutes so that every job to the domain does not try again.
 * - Parsing and MX matching are mailauth's (`parsePolicy`, `validateMx`).
 *
 * It never throws: a lookup that goes wrong means "no policy known", which delivers as before.
 */
import { request } from 'node:https';
import { parsePolicy, validateMx } from 'mailauth/lib/mta-sts.js';
import type { DnsResolver } from '../../platform/dns/resolver.js';
import type { Logger } from '../../platform/log.js';
import { addressesOf } from './route.js';
import type { DeliveryStore, StoredPolicy } from '../queue/store.js';

export type MtaStsPolicy = StoredPolicy;

export interface MtaStsOptions {
  readonly dns: DnsResolver;
  readonly store: Pick<DeliveryStore, 'policy' | 'savePolicy'>;
  readonly log: Logger;
  /** HTTPS port of policy hosts (443 outside tests). */
  readonly port: number;
  /** Extra trusted CAs (PEM). */
  readonly ca?: string | undefined;
  readonly timeoutMs?: number;
  readonly now?: () => number;
  /** How many domains the policy memory and the failure back-off each hold (tests lower it). */
  readonly memoryDomains?: number;
}

const MAX_POLICY_BYTES = 64 * 1024;
const FAILURE_BACKOFF_MS = 5 * 60_000;
/** Domains whose stored policy (or its absence) is kept in memory. */
const MEMORY_DOMAINS = 10_000;
const TXT_PREFIX = /^v=STSv1\s*;/i;

export class MtaSts {
  readonly #options: MtaStsOptions;
  /** What the table holds per domain: its policy, or null for none. */
  readonly #memory = new Map<string, MtaStsPolicy | null>();
  readonly #failedUntil = new Map<string, number>();
  readonly #pending = new Map<string, Promise<MtaStsPolicy | null>>();
  readonly #now: () => number;
  readonly #memoryDomains: number;

  constructor(options: MtaStsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#memoryDomains = options.memoryDomains ?? MEMORY_DOMAINS;
  }

  /** The policy that applies to `domain` now, or null when it has none (or none could be learned). */
  policyFor(domain: string): Promise<MtaStsPolicy | null> {
    const key = domain.toLowerCase();
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#lookup(key).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  async #lookup(domain: string): Promise<MtaStsPolicy | null> {
    const now = this.#now();
    const cached = await this.#cached(domain, now);
    const txt = await this.#options.dns.txt(`_mta-sts.${domain}`);
    if (txt.status !== 'found') return cached; // none published, or DNS trouble: keep what we know
    const records = txt.records.filter((record) => TXT_PREFIX.test(record.trim()));
    const id =
      records.length === 1
        ? /(?:^|;)\s*id=([A-Za-z0-9]{1,32})\s*(?:;|$)/.exec(records[0] ?? '')?.[1]
        : undefined;
    if (id === undefined) return cached;
    if (cached !== null && cached.policyId === id) return cached;
    if ((this.#failedUntil.get(domain) ?? 0) > now) return cached;
    try {
      const parsed = parsePolicy(await this.#fetch(domain));
      const maxAge = parsed.maxAge ?? 0;
      const policy: MtaStsPolicy = {
        domain,
        policyId: id,
        mode: parsed.mode,
        mx: parsed.mx ?? [],
        maxAge,
        fetchedAt: now,
        expiresAt: now + maxAge * 1000,
      };
      this.#failedUntil.delete(domain);
      this.#remember(domain, policy);
      await this.#options.store.savePolicy(policy);
      return policy;
    } catch (error) {
      this.#backOff(domain, now);
      this.#options.log.warn({ domain, err: error }, 'MTA-STS policy fetch failed');
      return cached;
    }
  }

  /**
   * The stored policy, read from the table once per domain: this class is its only writer, so
   * after that (a policy or none) memory knows. Most domains publish none, and a query per job
   * to learn that again cost the event loop a database round trip per message.
   */
  async #cached(domain: string, now: number): Promise<MtaStsPolicy | null> {
    let policy = this.#memory.get(domain);
    if (policy === undefined) {
      policy = (await this.#options.store.policy(domain)) ?? null;
      this.#remember(domain, policy);
    }
    return policy !== null && policy.expiresAt > now ? policy : null;
  }

  /** Bounded: past MEMORY_DOMAINS the domain read longest ago is forgotten (and read again when needed). */
  #remember(domain: string, policy: MtaStsPolicy | null): void {
    this.#memory.delete(domain);
    if (this.#memory.size >= this.#memoryDomains)
      this.#memory.delete(this.#memory.keys().next().value as string);
    this.#memory.set(domain, policy);
  }

  /**
   * No new fetch for `domain` for FAILURE_BACKOFF_MS. Bounded like the policy memory: entries
   * whose back-off is over go first, then the oldest.
   */
  #backOff(domain: string, now: number): void {
    this.#failedUntil.delete(domain);
    if (this.#failedUntil.size >= this.#memoryDomains) {
      for (const [known, until] of this.#failedUntil) if (until <= now) this.#failedUntil.delete(known);
      if (this.#failedUntil.size >= this.#memoryDomains)
        this.#failedUntil.delete(this.#failedUntil.keys().next().value as string);
    }
    this.#failedUntil.set(domain, now + FAILURE_BACKOFF_MS);
  }

  /** GET https://mta-sts.<domain>/.well-known/mta-sts.txt (RFC 8461 §3.3). */
  async #fetch(domain: string): Promise<string> {
    const host = `mta-sts.${domain}`;
    const addresses = await addressesOf(this.#options.dns, host);
    if (addresses === 'temporary' || addresses.length === 0) throw new Error(`no address for ${host}`);
    const address = addresses[0] as string;
    const timeout = this.#options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: address,
          port: this.#options.port,
          path: '/.well-known/mta-sts.txt',
          method: 'GET',
          servername: host,
          headers: { host },
          rejectUnauthorized: true,
          ...(this.#options.ca ? { ca: this.#options.ca } : {}),
          agent: false,
          timeout,
        },
        (res) => {
          const type = String(res.headers['content-type'] ?? '')
            .split(';')[0]
            ?.trim()
            .toLowerCase();
          if (res.statusCode !== 200) return fail(new Error(`policy host answered HTTP ${res.statusCode}`));
          if (type !== 'text/plain')
            return fail(new Error(`policy served as ${type || 'no type'}, not text/plain`));
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_POLICY_BYTES) fail(new Error('policy larger than 64 KB'));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', fail);
        },
      );
      const fail = (error: Error) => {
        req.destroy();
        reject(error);
      };
      req.on('timeout', () => fail(new Error(`policy fetch timed out after ${timeout} ms`)));
      req.on('error', fail);
      req.end();
    });
  }
}

/** The MX hosts a policy allows, in their order. `testing` and `none` allow every host. */
export function allowedHosts(policy: MtaStsPolicy, hosts: readonly string[]): string[] {
  if (policy.mode !== 'enforce') return [...hosts];
  return hosts.filter((host) => validateMx(host, { mode: policy.mode, mx: [...policy.mx] }).valid);
}
