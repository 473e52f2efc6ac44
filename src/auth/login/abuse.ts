/**
 * Sign-in limits: per address and per client IP, in fixed one-hour windows kept in memory (each
 * node counts its own; a restart forgets). Past a limit the request is a 429 with `Retry-After`,
 * the seconds until the window ends. Unknown addresses count like known ones, so the limits
 * reveal nothing about which accounts exist.
 */
import { AppError } from '../../platform/http/errors.js';

const HOUR = 3_600_000;

export class HourlyCounter {
  #window = -1;
  #counts = new Map<string, number>();

  /** Counts one for `key`; returns the seconds to wait when that makes it exceed `limit`. */
  take(key: string, limit: number, now = Date.now()): number | undefined {
    const window = Math.floor(now / HOUR);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts.clear();
    }
    const used = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, used);
    if (used <= limit) return undefined;
    return Math.max(1, Math.ceil(((window + 1) * HOUR - now) / 1000));
  }
}

export function tooMany(message: string, retryAfter: number): AppError {
  return new AppError('rate_limited', `${message} Try again in ${retryAfter} s.`, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

export interface SignInLimits {
  readonly perAddress: number;
  readonly perIp: number;
  readonly codesPerAddress: number;
}

export function createSignInLimiter(limits: SignInLimits) {
  const byAddress = new HourlyCounter();
  const byIp = new HourlyCounter();
  const codes = new HourlyCounter();
  return {
    /** Counts one sign-in request of `email` from `ip`; throws 429 past either limit. */
    attempt(email: string, ip: string | null): void {
      const ipWait = ip === null ? undefined : byIp.take(ip, limits.perIp);
      if (ipWait !== undefined) throw tooMany('Too many sign-in requests from this address.', ipWait);
      const wait = byAddress.take(email, limits.perAddress);
      if (wait !== undefined) throw tooMany('Too many sign-in requests for this email address.', wait);
    },
    /** Counts one login code mailed to `email`; throws 429 past the limit. */
    codeMailed(email: string): void {
      const wait = codes.take(email, limits.codesPerAddress);
      if (wait !== undefined) throw tooMany('Too many login codes requested for this email address.', wait);
    },
  };
}
