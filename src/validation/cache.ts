/**
 * The validation cache: the project-independent checks of an address (checks.ts), kept for
 * `validation.cache_ttl` and at most `validation.cache_entries`, least recently used first out.
 * An `unknown` domain result (DNS failed) is never kept, so the next request asks again. Memory
 * only: a restart empties it, which costs DNS lookups, never correctness.
 */
import type { AddressChecks } from './checks.js';

/**
 * The checks as cached: with the address as the suppression list spells it (`normalizeEmail`'s
 * form; null when it has none), worked out once per entry rather than on every cached answer.
 */
export interface CachedChecks extends AddressChecks {
  readonly listAddress: string | null;
}

export class ValidationCache {
  readonly #entries = new Map<string, CachedChecks>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlMs: number, maxEntries: number) {
    this.#ttlMs = ttlMs;
    this.#max = maxEntries;
  }

  get(key: string, now = Date.now()): CachedChecks | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (now - hit.checkedAt >= this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    // Map order is insertion order: moving the entry to the end keeps the oldest-used first.
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit;
  }

  set(key: string, checks: CachedChecks): void {
    if (this.#ttlMs <= 0 || this.#max === 0 || checks.domain.result === 'unknown') return;
    this.#entries.delete(key);
    this.#entries.set(key, checks);
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
