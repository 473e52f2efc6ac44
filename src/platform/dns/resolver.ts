/**
 * DNS lookups for delivery (MX) and domain verification (TXT), on node's c-ares `Resolver` with
 * the servers of `[dns]`. Every answer is a closed result that tells a permanent failure (the
 * name does not exist, a null MX, no mail host) from a temporary one (SERVFAIL, timeout,
 * refused), because delivery bounces on the first and retries on the second. It must never turn
 * a temporary failure into a permanent one: that would bounce mail for a resolver hiccup.
 *
 * Answers are cached by TTL (A/AAAA carry theirs; c-ares does not report one for MX and TXT, so
 * those use `defaultTtlSeconds`) in platform/dns/answer-cache.ts, which also shares one query
 * among concurrent lookups of one name.
 */
import { Resolver } from 'node:dns/promises';
import { domainToASCII } from 'node:url';
import type { Config } from '../config/schema.js';
import { AnswerCache, type RawAnswer } from './answer-cache.js';

export interface DnsTemporaryFailure {
  readonly status: 'temporary';
  /** c-ares code: ESERVFAIL, ETIMEOUT, EREFUSED, ECONNREFUSED, ... */
  readonly code: string;
  readonly message: string;
}

/** One lookup: records found, the name exists without such records, it does not exist, or no answer now. */
export type DnsLookup<T> =
  | { readonly status: 'found'; readonly records: readonly T[]; readonly ttl: number }
  | { readonly status: 'nodata' }
  | { readonly status: 'nxdomain' }
  | DnsTemporaryFailure;

export interface MxHost {
  readonly exchange: string;
  readonly preference: number;
}

/**
 * Where mail for a domain goes. `found` hosts are in the order to try them; `implicit` means the
 * domain has no MX and its own address is used (RFC 5321 §5.1). `null_mx` (RFC 7505),
 * `nxdomain` and `no_mail_host` are permanent; `temporary` is worth a retry.
 */
export type MxLookup =
  | { readonly status: 'found'; readonly hosts: readonly MxHost[]; readonly implicit: boolean }
  | { readonly status: 'null_mx' }
  | { readonly status: 'nxdomain' }
  | { readonly status: 'no_mail_host' }
  | DnsTemporaryFailure;

/** True when retrying the lookup later cannot change the outcome. */
export function isPermanentDnsFailure(result: MxLookup | DnsLookup<unknown>): boolean {
  return result.status !== 'found' && result.status !== 'temporary';
}

export interface DnsResolverOptions {
  /** `ip:port` or `[ipv6]:port`; empty uses the system resolver. */
  readonly servers?: readonly string[];
  /** Timeout of one attempt, in milliseconds. */
  readonly timeoutMs?: number;
  /** Attempts per server before a lookup fails with ETIMEOUT. */
  readonly tries?: number;
  readonly minTtlSeconds?: number;
  readonly maxTtlSeconds?: number;
  /** TTL assumed where c-ares reports none (MX, TXT). */
  readonly defaultTtlSeconds?: number;
  /** How long "no such name" and "no such records" are remembered. */
  readonly negativeTtlSeconds?: number;
  /** How long a temporary failure is remembered; 0 retries on every call. */
  readonly failureTtlSeconds?: number;
  readonly maxEntries?: number;
  /** Milliseconds clock, for tests. */
  readonly now?: () => number;
}

export interface LookupOptions {
  /** Skip the cache (domain verification wants what the world sees now); the answer is still cached. */
  readonly fresh?: boolean;
}

/** Lower case A-labels without the trailing dot; '' when the name cannot be a DNS name. */
function normalizeName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  return trimmed === '' ? '' : domainToASCII(trimmed).toLowerCase();
}

/** RFC 5321 §5.1: lowest preference first; hosts of equal preference in random order. */
function orderHosts(hosts: readonly MxHost[]): MxHost[] {
  return hosts
    .map((host) => ({ host, tiebreak: Math.random() }))
    .sort((a, b) => a.host.preference - b.host.preference || a.tiebreak - b.tiebreak)
    .map(({ host }) => host);
}

/**
 * @example
 * const dns = createDnsResolver(config);
 * const route = await dns.mx('example.com');
 * if (route.status === 'found') for (const host of route.hosts) { ... }
 */
export class DnsResolver {
  readonly #resolver: Resolver;
  readonly #cache: AnswerCache;

  constructor(options: DnsResolverOptions = {}) {
    this.#resolver = new Resolver({ timeout: options.timeoutMs ?? 5000, tries: options.tries ?? 2 });
    if (options.servers && options.servers.length > 0) {
      try {
        this.#resolver.setServers([...options.servers]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `dns.servers must be IP addresses with ports, e.g. "127.0.0.1:53" or "[::1]:53": ${reason}`,
        );
      }
    }
    this.#cache = new AnswerCache({
      now: options.now ?? Date.now,
      minTtl: options.minTtlSeconds ?? 5,
      maxTtl: options.maxTtlSeconds ?? 3600,
      defaultTtl: options.defaultTtlSeconds ?? 300,
      negativeTtl: options.negativeTtlSeconds ?? 60,
      failureTtl: options.failureTtlSeconds ?? 5,
      maxEntries: options.maxEntries ?? 10_000,
    });
  }

  /**
   * Where to deliver mail for `domain`: MX hosts, the implicit MX, or why there is none. With
   * `implicit: false` a domain without MX records has no mail host, and its A/AAAA records are not
   * asked for (SPF's `mx`, RFC 7208 §5.4, never uses the implicit MX).
   */
  async mx(domain: string, options: LookupOptions & { readonly implicit?: boolean } = {}): Promise<MxLookup> {
    const name = normalizeName(domain);
    if (name === '') return { status: 'nxdomain' };
    const answer = await this.#lookup<MxHost>(name, 'MX', options, async () => ({
      records: (await this.#resolver.resolveMx(name)).map((mx) => ({
        exchange: mx.exchange.toLowerCase().replace(/\.$/, ''),
        preference: mx.priority,
      })),
    }));
    if (answer.status === 'found') {
      // RFC 7505 §3: a null MX is a single record whose exchange is the root ("." arrives as "").
      const real = answer.records.filter((host) => host.exchange !== '');
      if (real.length === 0) return { status: 'null_mx' };
      return { status: 'found', hosts: orderHosts(real), implicit: false };
    }
    if (answer.status !== 'nodata') return answer;
    if (options.implicit === false) return { status: 'no_mail_host' };
    return this.#implicitMx(name, options);
  }

  /** TXT records of `name`, each with its character-strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
  async txt(name: string, options: LookupOptions = {}): Promise<DnsLookup<string>> {
    const normalized = normalizeName(name);
    if (normalized === '') return { status: 'nxdomain' };
    return this.#lookup<string>(normalized, 'TXT', options, async () => ({
      records: (await this.#resolver.resolveTxt(normalized)).map((chunks) => chunks.join('')),
    }));
  }

  async a(name: string, options: LookupOptions = {}): Promise<DnsLookup<string>> {
    const normalized = normalizeName(name);
    if (normalized === '') return { status: 'nxdomain' };
    return this.#lookup<string>(normalized, 'A', options, async () =>
      withTtl(await this.#resolver.resolve4(normalized, { ttl: true })),
    );
  }

  async aaaa(name: string, options: LookupOptions = {}): Promise<DnsLookup<string>> {
    const normalized = normalizeName(name);
    if (normalized === '') return { status: 'nxdomain' };
    return this.#lookup<string>(normalized, 'AAAA', options, async () =>
      withTtl(await this.#resolver.resolve6(normalized, { ttl: true })),
    );
  }

  /** The canonical name `name` is an alias of (RFC 1034 §3.6.2), lower case, no trailing dot. */
  async cname(name: string, options: LookupOptions = {}): Promise<DnsLookup<string>> {
    const normalized = normalizeName(name);
    if (normalized === '') return { status: 'nxdomain' };
    return this.#lookup<string>(normalized, 'CNAME', options, async () => ({
      records: (await this.#resolver.resolveCname(normalized)).map(normalizeName),
    }));
  }

  /** The host names a reverse name points to (RFC 1035 §3.5, RFC 3596 §2.5), lower case, no trailing dot. */
  async ptr(name: string, options: LookupOptions = {}): Promise<DnsLookup<string>> {
    const normalized = normalizeName(name);
    if (normalized === '') return { status: 'nxdomain' };
    return this.#lookup<string>(normalized, 'PTR', options, async () => ({
      records: (await this.#resolver.resolvePtr(normalized)).map(normalizeName),
    }));
  }

  /** Forgets every cached answer. */
  clearCache(): void {
    this.#cache.clear();
  }

  /** Ends every query in flight at once: each answers as a temporary failure (ECANCELLED). */
  cancel(): void {
    this.#resolver.cancel();
  }

  /** RFC 5321 §5.1: no MX records but an address means the domain is its own MX at preference 0. */
  async #implicitMx(name: string, options: LookupOptions): Promise<MxLookup> {
    const [v4, v6] = await Promise.all([this.a(name, options), this.aaaa(name, options)]);
    if (v4.status === 'found' || v6.status === 'found') {
      return { status: 'found', hosts: [{ exchange: name, preference: 0 }], implicit: true };
    }
    if (v4.status === 'temporary') return v4;
    if (v6.status === 'temporary') return v6;
    return { status: 'no_mail_host' };
  }

  #lookup<T>(
    name: string,
    type: string,
    options: LookupOptions,
    query: () => Promise<RawAnswer<T>>,
  ): Promise<DnsLookup<T>> {
    return this.#cache.lookup(`${type} ${name}`, options.fresh === true, query);
  }
}

function withTtl(answers: readonly { address: string; ttl: number }[]): RawAnswer<string> {
  return {
    records: answers.map((answer) => answer.address),
    ttl: answers.length > 0 ? Math.min(...answers.map((answer) => answer.ttl)) : undefined,
  };
}

/** The resolver `[dns]` describes; `overrides` tune the cache (tests, tools). */
export function createDnsResolver(
  config: Pick<Config, 'dns'>,
  overrides: DnsResolverOptions = {},
): DnsResolver {
  return new DnsResolver({ servers: config.dns.servers, timeoutMs: config.dns.timeout_ms, ...overrides });
}
