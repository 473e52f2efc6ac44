/**
 * The failing streak that disables an endpoint after `webhooks.disable_after` ("failing for 5 days
 * straight", DESIGN.md §4). Straight means continuous: a failure extends the streak only when the
 * endpoint's previous failure finished at most `maxGapMs` before this attempt started, the longest
 * retry delay plus a little slack, i.e. no longer than a retry of a failing delivery would have
 * waited. After a longer quiet gap the streak starts again at this failure, so one transient error
 * days after an old outage (whose deliveries were given up, no success since to clear the streak)
 * cannot disable the endpoint at once. A success clears the streak (the dispatcher), as do a
 * re-enable and a URL change (the service).
 *
 * A receiver that pushes its retries further apart with `Retry-After` than the longest scheduled
 * delay, with no other deliveries failing in between, restarts its streak each time: it asked us to
 * wait, and is never disabled for failing that way.
 */
export interface FailingStreak {
  readonly failing_since: number | null;
  readonly last_failed_at: number | null;
}

/**
 * The streak after an attempt that started at `requestedAt` and failed at `finishedAt`.
 * @example afterFailure({ failing_since: 0, last_failed_at: 1_000 }, 2_000, 2_100, 5_000)
 * // { failing_since: 0, last_failed_at: 2_100 }
 * @example afterFailure({ failing_since: 0, last_failed_at: 1_000 }, 9_000, 9_100, 5_000)
 * // { failing_since: 9_000, last_failed_at: 9_100 }
 */
export function afterFailure(
  streak: FailingStreak,
  requestedAt: number,
  finishedAt: number,
  maxGapMs: number,
): { failing_since: number; last_failed_at: number } {
  const { failing_since: since, last_failed_at: last } = streak;
  // Failures of concurrent attempts can finish out of order: the latest finish counts.
  const lastFailedAt = Math.max(last ?? finishedAt, finishedAt);
  const continues = since !== null && last !== null && requestedAt - last <= maxGapMs;
  return { failing_since: continues ? since : requestedAt, last_failed_at: lastFailedAt };
}
