/**
 * When a failed webhook is tried again (DESIGN.md §4): after attempt n fails, wait the n-th delay
 * of `webhooks.retry_schedule` (5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h by default); after the last
 * delay's attempt fails, the delivery is given up. A `Retry-After` from the receiver
 * (RFC 9110 §10.2.3) can push a retry later, never earlier than the schedule, and at most a day.
 */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay before the attempt after `attempt` (1-based), or undefined when there is none.
 * @example nextRetryDelay(1, [5000, 300000], null) // 5000
 * @example nextRetryDelay(1, [5000, 300000], 60000) // 60000
 * @example nextRetryDelay(3, [5000, 300000], null) // undefined
 */
export function nextRetryDelay(
  attempt: number,
  scheduleMs: readonly number[],
  retryAfterMs: number | null,
): number | undefined {
  const base = scheduleMs[attempt - 1];
  if (base === undefined) return undefined;
  if (retryAfterMs === null) return base;
  return Math.max(base, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/**
 * A `Retry-After` value in milliseconds from `now`: delay-seconds or an HTTP-date; null when
 * absent or unreadable.
 * @example parseRetryAfter('120', 0) // 120000
 */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
