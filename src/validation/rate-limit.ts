/**
 * The validation rate limit (`validation.requests_per_minute`): requests per project in a fixed
 * minute aligned to the clock, counted in memory (a restart starts an empty window, which only
 * errs on the caller's side). The check and the count are one synchronous step. A refusal is a
 * 429 with `Retry-After` and the RateLimit headers; an accepted request carries the headers too.
 */
import { AppError } from '../platform/http/errors.js';
import { rateLimitHeaders } from '../platform/http/rate-limit-headers.js';

const MINUTE = 60_000;

export function createValidationLimit(perMinute: number) {
  let window = -1;
  let counts = new Map<string, number>();
  return {
    /** Counts one request of `projectId`; returns the headers to send, or throws 429. */
    take(projectId: string, now = Date.now()): Record<string, string> {
      if (perMinute === 0) return {};
      const current = Math.floor(now / MINUTE);
      if (current > window) {
        window = current;
        counts = new Map();
      }
      const used = counts.get(projectId) ?? 0;
      const state = {
        policy: 'validations-per-project',
        limit: perMinute,
        remaining: perMinute - used - 1,
        windowSeconds: 60,
        resetSeconds: (MINUTE - (now % MINUTE)) / 1000,
      };
      if (used >= perMinute) {
        throw new AppError(
          'rate_limited',
          `This project is limited to ${perMinute} validations per minute; retry after the window resets.`,
          { headers: rateLimitHeaders({ ...state, remaining: 0 }, true) },
        );
      }
      counts.set(projectId, used + 1);
      return rateLimitHeaders(state);
    },
  };
}
