/**
 * The reserved test recipients (DESIGN.md §4, §4a): `bounce@`, `complaint@` and `delay@` at
 * `sandbox.test_domain`. A `ph_test_` send hands them to the built-in sink, which answers as a real
 * MX would; they work every time: a sandbox project's test key may send to them, they are never
 * suppressed, and they never meet the per-recipient throttle of a test key.
 */
export const TEST_RECIPIENT_LOCAL_PARTS = ['bounce', 'complaint', 'delay'] as const;

/**
 * Whether `email` (any case) is a reserved test recipient at `testDomain`.
 * @example isTestRecipient('Bounce@posthorn.test', 'posthorn.test') // true
 */
export function isTestRecipient(email: string, testDomain: string): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const local = email.slice(0, at).toLowerCase();
  return (
    email.slice(at + 1).toLowerCase() === testDomain.toLowerCase() &&
    (TEST_RECIPIENT_LOCAL_PARTS as readonly string[]).includes(local)
  );
}
