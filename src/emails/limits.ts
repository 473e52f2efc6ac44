/**
 * Quotas and rate limits of the send path (config `[limits]`): a daily quota per project, sends
 * per minute per API key, and sends per hour to one recipient address per project. Fixed windows
 * aligned to the clock, counted in memory: the check and the reservation happen in one synchronous
 * step, so concurrent requests cannot both take the last slot. The daily quota is seeded from the
 * messages table once per project and day, so a restart does not reset it; the minute and hour
 * windows start empty after a restart, which only ever errs on the side of the sender. The daily
 * quota counts live sends only: a `ph_test_` key's mail never leaves the box, so it neither uses
 * nor meets the quota. Test sends have counters of their own (DESIGN.md §4a): a test key's
 * per-minute window is its own key's, and the recipient throttle counts live and test sends apart,
 * so testing never uses up what live mail may send. The reserved test recipients
 * (platform/test-recipients.ts) work every time: a test send to them meets no recipient throttle.
 */
import type { Config } from '../platform/config/schema.js';
import type { KeyMode } from '../platform/db/tables.js';
import { AppError } from '../platform/http/errors.js';
import { type RateLimitState, rateLimitHeaders } from '../platform/http/rate-limit-headers.js';
import { isTestRecipient } from '../platform/test-recipients.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * Counts per key within the current fixed window; the map is dropped when the window rolls. The
 * window only ever moves forward: a `now` from an earlier window (a stale timestamp, or the clock
 * stepping back) is counted in the current one rather than emptying it.
 */
class FixedWindow {
  #window = -1;
  #counts = new Map<string, number>();
  constructor(readonly lengthMs: number) {}

  /** The current window after moving to the one `now` falls in, if that is later. */
  #roll(now: number): number {
    const window = Math.floor(now / this.lengthMs);
    if (window > this.#window) {
      this.#window = window;
      this.#counts = new Map();
    }
    return this.#window;
  }
  used(key: string, now: number): number {
    this.#roll(now);
    return this.#counts.get(key) ?? 0;
  }
  /** Counts `amount` for `key`; returns the window it was counted in (for `remove`). */
  add(key: string, amount: number, now: number): number {
    const window = this.#roll(now);
    const next = (this.#counts.get(key) ?? 0) + amount;
    if (next <= 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
    return window;
  }
  /** Takes back one count made in `window`; a no-op once that window has rolled over (its counts are gone). */
  remove(key: string, window: number): void {
    if (window !== this.#window) return;
    const next = (this.#counts.get(key) ?? 0) - 1;
    if (next <= 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
  }
  has(key: string, now: number): boolean {
    this.#roll(now);
    return this.#counts.has(key);
  }
  resetSeconds(now: number): number {
    return (this.lengthMs - (now % this.lengthMs)) / 1000;
  }
}

export interface LimitRequest {
  readonly projectId: string;
  readonly keyId: string;
  /** The key's mode: a test send is outside the daily quota. */
  readonly mode: KeyMode;
  /** Normalized recipient addresses of the message (to, cc and bcc). */
  readonly recipients: readonly string[];
}

export interface Reservation {
  /** Headers describing the per-key limit after this send. */
  readonly headers: Record<string, string>;
  /** Gives the reserved slots back (the write failed). */
  release(): void;
}

/** Counts today's live messages of a project (seeds the daily quota). */
export type DailyCounter = (projectId: string, dayStart: number) => Promise<number>;

export function createSendLimits(
  limits: Config['limits'],
  countToday: DailyCounter,
  testDomain = 'posthorn.test',
) {
  const perKey = new FixedWindow(MINUTE);
  const perRecipient = new FixedWindow(HOUR);
  const daily = new FixedWindow(DAY);

  const refuse = (message: string, state: RateLimitState) =>
    new AppError('rate_limited', message, { headers: rateLimitHeaders(state, true) });

  const keyState = (keyId: string, now: number): RateLimitState => ({
    policy: 'sends-per-key',
    limit: limits.sends_per_minute_per_key,
    remaining: limits.sends_per_minute_per_key - perKey.used(keyId, now),
    windowSeconds: 60,
    resetSeconds: perKey.resetSeconds(now),
  });

  return {
    /**
     * The daily quota alone, for `count` messages no API key sends (a broadcast's batch: the
     * per-key and per-recipient limits are for what applications send). Throws 429 when the
     * quota has no room for all of them.
     */
    reserveDaily(projectId: string, mode: KeyMode, count: number, now = Date.now()): Reservation {
      const quota = mode === 'live' ? limits.daily_quota : 0;
      if (quota === 0 || count === 0) return { headers: {}, release() {} };
      if (daily.used(projectId, now) + count > quota) {
        throw refuse(
          `This project reached its daily quota of ${quota} messages; it resets at midnight UTC.`,
          {
            policy: 'daily-quota',
            limit: quota,
            remaining: Math.max(0, quota - daily.used(projectId, now)),
            windowSeconds: DAY / 1000,
            resetSeconds: daily.resetSeconds(now),
          },
        );
      }
      const at = daily.add(projectId, count, now);
      let released = false;
      return {
        headers: {},
        release() {
          if (released) return;
          released = true;
          for (let i = 0; i < count; i++) daily.remove(projectId, at);
        },
      };
    },

    /** Loads today's live count for the project once per day; call before a live `reserve`. */
    async prepare(projectId: string, mode: KeyMode, now = Date.now()): Promise<void> {
      if (limits.daily_quota === 0 || mode === 'test' || daily.has(projectId, now)) return;
      const count = await countToday(projectId, now - (now % DAY));
      if (!daily.has(projectId, now)) daily.add(projectId, count, now);
    },

    /** Checks every limit for one message and reserves its slots, or throws 429 naming the limit. */
    reserve(request: LimitRequest, now = Date.now()): Reservation {
      const quota = request.mode === 'live' ? limits.daily_quota : 0;
      if (quota > 0 && daily.used(request.projectId, now) + 1 > quota) {
        throw refuse(
          `This project reached its daily quota of ${quota} messages; it resets at midnight UTC.`,
          {
            policy: 'daily-quota',
            limit: quota,
            remaining: 0,
            windowSeconds: DAY / 1000,
            resetSeconds: daily.resetSeconds(now),
          },
        );
      }
      const perMinute = limits.sends_per_minute_per_key;
      if (perMinute > 0 && perKey.used(request.keyId, now) + 1 > perMinute) {
        throw refuse(
          `This API key is limited to ${perMinute} sends per minute; retry after the window resets.`,
          {
            ...keyState(request.keyId, now),
            remaining: 0,
          },
        );
      }
      const perHour = limits.sends_per_hour_per_recipient;
      // Live and test sends to one address are counted apart; reserved test recipients not at all.
      const throttled = request.recipients
        .filter((email) => request.mode === 'live' || !isTestRecipient(email, testDomain))
        .map((email) => ({ email, key: `${request.projectId} ${request.mode} ${email}` }));
      if (perHour > 0) {
        for (const { email, key } of throttled) {
          if (perRecipient.used(key, now) + 1 > perHour) {
            throw refuse(
              `${email} already received ${perHour} messages from this project in the current hour.`,
              {
                policy: 'sends-per-recipient',
                limit: perHour,
                remaining: 0,
                windowSeconds: HOUR / 1000,
                resetSeconds: perRecipient.resetSeconds(now),
              },
            );
          }
        }
      }
      // Each count remembers its window, so a release after a boundary gives back nothing of the
      // new window (whose counts do not include this send).
      const taken: Array<() => void> = [];
      const take = (window: FixedWindow, key: string) => {
        const at = window.add(key, 1, now);
        taken.push(() => window.remove(key, at));
      };
      if (quota > 0) take(daily, request.projectId);
      if (perMinute > 0) take(perKey, request.keyId);
      if (perHour > 0) for (const { key } of throttled) take(perRecipient, key);
      let released = false;
      return {
        headers: perMinute > 0 ? rateLimitHeaders(keyState(request.keyId, now)) : {},
        release() {
          if (released) return;
          released = true;
          for (const give of taken) give();
        },
      };
    },
  };
}

export type SendLimits = ReturnType<typeof createSendLimits>;
