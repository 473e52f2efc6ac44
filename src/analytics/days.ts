/** UTC days as integers (days since the epoch): what analytics rows are keyed by. */
export const DAY_MS = 86_400_000;

/** @example dayNumber(Date.UTC(2025, 0, 2, 23, 59)) // 20090 */
export function dayNumber(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** @example dayString(20090) // '2025-01-02' */
export function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
