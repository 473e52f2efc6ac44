/**
 * Where a dedicated IP's warm-up stands: the plan's day (1 on the UTC day of the assignment), the
 * messages per provider lane allowed that day, or none once the plan's days are over. Pure.
 */
const DAY = 86_400_000;

export const utcDay = (ms: number) => Math.floor(ms / DAY);

export interface WarmupDay {
  /** 1-based day of the plan. */
  readonly day: number;
  readonly days: number;
  readonly complete: boolean;
  /** Messages per provider lane allowed today; null once the warm-up is complete. */
  readonly limit: number | null;
}

export function warmupDay(limits: readonly number[], startedAt: number, now: number): WarmupDay {
  const index = Math.max(0, utcDay(now) - utcDay(startedAt));
  const limit = limits[index];
  return { day: index + 1, days: limits.length, complete: limit === undefined, limit: limit ?? null };
}
