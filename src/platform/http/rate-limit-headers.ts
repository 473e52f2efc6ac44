/**
 * Rate-limit response headers. Both spellings clients meet in the wild are written: the
 * structured fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy`
 * and `RateLimit`) and the older `RateLimit-Limit` / `-Remaining` / `-Reset` trio. On a refusal,
 * `Retry-After` (RFC 9110 §10.2.3) says when to come back, in whole seconds.
 */

export interface RateLimitState {
  /** Policy name, e.g. "per-key". */
  readonly policy: string;
  /** Quota of the window. */
  readonly limit: number;
  readonly remaining: number;
  readonly windowSeconds: number;
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number;
}

export function rateLimitHeaders(state: RateLimitState, refused = false): Record<string, string> {
  const reset = String(Math.max(1, Math.ceil(state.resetSeconds)));
  const remaining = String(Math.max(0, state.remaining));
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"${state.policy}";r=${remaining};t=${reset}`,
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': remaining,
    'RateLimit-Reset': reset,
  };
  if (refused) headers['Retry-After'] = reset;
  return headers;
}
