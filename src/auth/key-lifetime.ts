/**
 * How long an API key may live when it expires at all. Zero is refused rather than read as "never"
 * (a `0d` key that never expires is the opposite of what was asked), and ten years is the cap: a
 * longer lifetime is a mistake, and far enough out it cannot even be stored as a date.
 */
export const MAX_KEY_LIFETIME_DAYS = 3650;
const MAX_KEY_LIFETIME_MS = MAX_KEY_LIFETIME_DAYS * 86_400_000;

/** Why a lifetime in milliseconds is refused, or undefined when it is fine. */
export function keyLifetimeProblem(ms: number): string | undefined {
  if (ms > MAX_KEY_LIFETIME_MS)
    return `A key lifetime may be at most ${MAX_KEY_LIFETIME_DAYS} days (10 years); omit it for a key that never expires.`;
  if (!Number.isInteger(ms) || ms <= 0)
    return 'A key lifetime must be a whole number of milliseconds above zero.';
  return undefined;
}
