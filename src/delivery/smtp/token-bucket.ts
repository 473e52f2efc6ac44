/**
 * A token bucket: the rate limiter of a delivery lane. Tokens refill continuously at `ratePerSecond`
 * up to `burst`; starting a message takes one. The bucket never sleeps and never schedules
 * anything: the lane asks `take()` and, when refused, waits `waitMs()` itself. The clock is
 * injectable so that tests run without waiting; by default it is monotonic (`performance.now()`),
 * so a wall-clock jump cannot flood or stall a lane.
 */

// Refill arithmetic is floating point (0.7 + 0.3 < 1); a token this close to whole counts as whole,
// so that a caller who waited `waitMs()` is never refused.
const epsilon = 1e-9;

export interface TokenBucketOptions {
  /** Tokens added per second; may be fractional (0.5 = one every two seconds). */
  readonly ratePerSecond: number;
  /** The most tokens the bucket holds, and holds at start. Defaults to max(1, ratePerSecond). */
  readonly burst?: number;
  /** Milliseconds from any fixed origin, never going backwards. */
  readonly now?: () => number;
}

/**
 * @example
 * const bucket = new TokenBucket({ ratePerSecond: 10 });
 * if (!bucket.take()) await sleep(bucket.waitMs());
 */
export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0) || !Number.isFinite(options.ratePerSecond)) {
      throw new RangeError(`ratePerSecond must be a positive number, got ${options.ratePerSecond}`);
    }
    const burst = options.burst ?? Math.max(1, options.ratePerSecond);
    if (!(burst >= 1) || !Number.isFinite(burst))
      throw new RangeError(`burst must be at least 1, got ${burst}`);
    this.ratePerSecond = options.ratePerSecond;
    this.burst = burst;
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = burst;
    this.#updatedAt = this.#now();
  }

  /** Tokens available now (fractional while refilling). */
  available(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Takes `count` tokens if they are all there; otherwise takes none and returns false. */
  take(count = 1): boolean {
    this.#check(count);
    this.#refill();
    if (this.#tokens + epsilon < count) return false;
    this.#tokens -= count;
    return true;
  }

  /** Milliseconds until `count` tokens will be there (0 when they are now). Rounded up. */
  waitMs(count = 1): number {
    this.#check(count);
    this.#refill();
    const missing = count - this.#tokens;
    return missing <= epsilon ? 0 : Math.ceil((missing * 1000) / this.ratePerSecond);
  }

  #check(count: number): void {
    // A request larger than the bucket could never be served; waiting for it would hang forever.
    if (!(count > 0) || count > this.burst) {
      throw new RangeError(`count must be between 0 and the burst (${this.burst}), got ${count}`);
    }
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
    this.#updatedAt = now;
  }
}
