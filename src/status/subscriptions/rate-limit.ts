/**
 * Hourly limits of `POST /v1/status/subscriptions` (config `[status]`): per client address and per
 * destination, since every accepted request may send a mail or a challenge to someone. Fixed
 * windows counted in memory; a restart forgets them, which only errs on the side of the caller.
 */
import { AppError } from '../../platform/http/errors.js';
import { rateLimitHeaders } from '../../platform/http/rate-limit-headers.js';

const HOUR_MS = 3_600_000;

export function createSubscribeLimits(perIp: number, perDestination: number) {
  let window = -1;
  let counts = new Map<string, number>();

  function take(key: string, limit: number, policy: string, now: number): void {
    if (limit === 0) return;
    const current = Math.floor(now / HOUR_MS);
    if (current > window) {
      window = current;
      counts = new Map();
    }
    const used = counts.get(key) ?? 0;
    if (used >= limit) {
      const resetSeconds = ((current + 1) * HOUR_MS - now) / 1000;
      throw new AppError('rate_limited', `Too many subscription requests ${policy}; try again later.`, {
        headers: rateLimitHeaders({ policy, limit, remaining: 0, windowSeconds: 3600, resetSeconds }, true),
      });
    }
    counts.set(key, used + 1);
  }

  return {
    /** Counts one request; throws a 429 with `Retry-After` when a limit is used up. */
    take(ip: string, destinationKey: string, now = Date.now()): void {
      take(`ip:${ip}`, perIp, 'per-ip', now);
      take(`dest:${destinationKey}`, perDestination, 'per-destination', now);
    },
  };
}
