/**
 * When to try a deferred delivery again. A temporary failure (4xx, a dropped connection) backs
 * off along the configured schedule, whose last step repeats, until the message is older than the
 * maximum age; then the recipient bounces. RFC 5321 §4.5.4.1 asks for a retry interval of at least
 * 30 minutes after the first tries and a give-up time of at least 4 to 5 days; the defaults (1m,
 * 5m, 15m, 30m, 1h, 2h, 4h; 4 days) follow it.
 *
 * A server may say when to come back ("try again in 300 seconds"). That hint replaces the
 * schedule's step for this attempt, but never sooner than 30 seconds (a server's hint must not
 * turn into a hammering loop) and never past the maximum age.
 *
 * Pure: it reads no clock and no config file; the caller passes `now` and the parsed schedule.
 */
import { parseDuration } from '../../platform/config/duration.js';

export const defaultRetrySchedule: readonly string[] = ['1m', '5m', '15m', '30m', '1h', '2h', '4h'];
export const defaultMaxAge = '4d';
/** The shortest wait a server's hint may ask for. */
export const minimumHintMs = 30_000;

/** The schedule in milliseconds, as `retryPolicyFrom` builds it from config. */
export interface RetryPolicy {
  /** Delays after the 1st, 2nd, ... failed attempt; the last one repeats. Never empty. */
  readonly scheduleMs: readonly number[];
  /** How long after acceptance (or a scheduled send's due time) a message may still be tried. */
  readonly maxAgeMs: number;
}

/**
 * Builds the policy from `delivery.retry_schedule` and `delivery.max_age` (duration strings).
 *
 * @example retryPolicyFrom({ retry_schedule: ['1m', '1h'], max_age: '2d' })
 */
export function retryPolicyFrom(config: {
  readonly retry_schedule?: readonly string[];
  readonly max_age?: string;
}): RetryPolicy {
  const schedule = config.retry_schedule?.length ? config.retry_schedule : defaultRetrySchedule;
  return {
    scheduleMs: schedule.map(parseDuration),
    maxAgeMs: parseDuration(config.max_age ?? defaultMaxAge),
  };
}

export interface RetryInput {
  /** How many attempts have been made so far, counting the one that just failed (1 after the first). */
  readonly attempt: number;
  /**
   * The start of the maximum age: when the message was accepted or, for a scheduled send, when it
   * was due (due-time.ts); a send scheduled days ahead must not start its first attempt expired.
   */
  readonly acceptedAt: Date;
  readonly now: Date;
  /** The text of the server's reply, read for a "try again in ..." hint. */
  readonly replyText?: string;
}

/**
 * The time of the next attempt, or 'expired' when the message has reached its maximum age. The
 * last attempt is placed at the deadline itself rather than dropped, so a message is never given
 * up before its maximum age.
 *
 * @example
 * nextAttempt(retryPolicyFrom({}), { attempt: 1, acceptedAt: t0, now: t0 }) // t0 + 1 minute
 */
export function nextAttempt(policy: RetryPolicy, input: RetryInput): Date | 'expired' {
  const deadline = input.acceptedAt.getTime() + policy.maxAgeMs;
  const now = input.now.getTime();
  if (now >= deadline) return 'expired';
  const hint = input.replyText === undefined ? null : parseRetryHint(input.replyText);
  const delay = hint === null ? scheduledDelay(policy, input.attempt) : Math.max(hint, minimumHintMs);
  return new Date(Math.min(now + delay, deadline));
}

/** The schedule's delay after the given attempt (1-based); the last step repeats. */
export function scheduledDelay(policy: RetryPolicy, attempt: number): number {
  const steps = policy.scheduleMs;
  const index = Math.min(Math.max(Math.floor(attempt), 1), steps.length) - 1;
  const delay = steps[index];
  if (delay === undefined) throw new Error('retry schedule is empty');
  return delay;
}

const unitMs: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000 };

// "retry in 5 minutes", "try again in 300 seconds", "please wait 60s", "retry after 10 min".
// The number must carry a unit, so "try again later (4.7.0)" gives no hint.
const hintPattern =
  /\b(?:retry|try(?:\s+(?:again|back))?|again|wait|resend|come\s+back)\b[^.;!?\n]{0,30}?\b(?:in|after|for)?\s*(\d{1,7})\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b/i;

/**
 * Reads how long a server asks us to wait, in milliseconds, or null when it names no duration.
 *
 * @example parseRetryHint('451 4.7.1 Greylisted, try again in 300 seconds') // 300000
 * @example parseRetryHint('421 4.7.0 Try again later') // null
 */
export function parseRetryHint(text: string): number | null {
  const match = hintPattern.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const unit = unitMs[match[2].charAt(0).toLowerCase()];
  return unit === undefined ? null : Number(match[1]) * unit;
}
