/**
 * The resolver's cache of answers, by TTL: a found answer for its own TTL (or `defaultTtl` where
 * c-ares reports none), clamped to a floor and a cap; "does not exist" answers briefly (RFC 2308)
 * and failures more briefly still (RFC 2308 §7.1). Concurrent lookups of one key share one query.
 * It also turns what c-ares throws into a closed result, and must never make a temporary failure
 * permanent (platform/dns/resolver.ts says why).
 */
import type { DnsLookup } from './resolver.js';

/** Answers with TTLs, or a plain list the default TTL applies to. */
export type RawAnswer<T> = { readonly records: readonly T[]; readonly ttl?: number };

export interface AnswerCacheOptions {
  readonly now: () => number;
  readonly minTtl: number;
  readonly maxTtl: number;
  readonly defaultTtl: number;
  readonly negativeTtl: number;
  readonly failureTtl: number;
  readonly maxEntries: number;
}

interface CacheEntry {
  expiresAt: number;
  readonly result: Promise<DnsLookup<unknown>>;
}

const NXDOMAIN_CODES = new Set(['ENOTFOUND', 'EBADNAME']);
const NODATA_CODES = new Set(['ENODATA']);

function classify<T>(error: unknown): DnsLookup<T> {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && NXDOMAIN_CODES.has(code)) return { status: 'nxdomain' };
  if (typeof code === 'string' && NODATA_CODES.has(code)) return { status: 'nodata' };
  return {
    status: 'temporary',
    code: typeof code === 'string' ? code : 'EUNKNOWN',
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * @example
 * const cache = new AnswerCache({ now: Date.now, minTtl: 5, maxTtl: 3600, defaultTtl: 300,
 *   negativeTtl: 60, failureTtl: 5, maxEntries: 10_000 });
 * const txt = await cache.lookup('TXT example.com', false, async () => ({ records: ['v=spf1 -all'] }));
 */
export class AnswerCache {
  readonly #cache = new Map<string, CacheEntry>();
  readonly #options: AnswerCacheOptions;

  constructor(options: AnswerCacheOptions) {
    this.#options = options;
  }

  /** The cached answer for `key`, else (or when `fresh`) `query`'s, which is then cached. */
  async lookup<T>(key: string, fresh: boolean, query: () => Promise<RawAnswer<T>>): Promise<DnsLookup<T>> {
    const hit = this.#cache.get(key);
    if (hit && !fresh && hit.expiresAt > this.#options.now()) return hit.result as Promise<DnsLookup<T>>;

    const result = this.#query(query);
    // Until it settles the entry never expires, so concurrent lookups share the query.
    const entry: CacheEntry = { expiresAt: Number.POSITIVE_INFINITY, result };
    this.#remember(key, entry);
    const settled = await result;
    const ttl = this.#ttlFor(settled);
    if (ttl <= 0) {
      if (this.#cache.get(key) === entry) this.#cache.delete(key);
    } else {
      entry.expiresAt = this.#options.now() + ttl * 1000;
    }
    return settled;
  }

  clear(): void {
    this.#cache.clear();
  }

  async #query<T>(query: () => Promise<RawAnswer<T>>): Promise<DnsLookup<T>> {
    try {
      const answer = await query();
      if (answer.records.length === 0) return { status: 'nodata' };
      return {
        status: 'found',
        records: answer.records,
        ttl: this.#clamp(answer.ttl ?? this.#options.defaultTtl),
      };
    } catch (error) {
      return classify<T>(error);
    }
  }

  #ttlFor(result: DnsLookup<unknown>): number {
    switch (result.status) {
      case 'found':
        return result.ttl;
      case 'nodata':
      case 'nxdomain':
        return this.#options.negativeTtl;
      case 'temporary':
        return this.#options.failureTtl;
    }
  }

  #clamp(ttl: number): number {
    return Math.min(this.#options.maxTtl, Math.max(this.#options.minTtl, ttl));
  }

  #remember(key: string, entry: CacheEntry): void {
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    // Map iteration is insertion order, so the first key is the least recently stored.
    while (this.#cache.size > this.#options.maxEntries) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
  }
}
