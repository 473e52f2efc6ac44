/**
 * The reserved test recipients at `sandbox.test_domain` (DESIGN §4): `bounce@`, `complaint@` and
 * `delay@`. The built-in sink of `ph_test_` sends keys its answers by this list
 * (delivery/sandbox-sink.ts), and the sender check lets a test key reach them from the sandbox
 * sender besides the organization's members (checks.ts): one list, so the two never disagree.
 */
export const RESERVED_TEST_LOCAL_PARTS = ['bounce', 'complaint', 'delay'] as const;

export type ReservedTestLocalPart = (typeof RESERVED_TEST_LOCAL_PARTS)[number];

/**
 * The reserved local part `address` names at `testDomain`, or undefined; case does not matter.
 *
 * @example reservedTestRecipient('Bounce@posthorn.test', 'posthorn.test') // 'bounce'
 */
export function reservedTestRecipient(
  address: string,
  testDomain: string,
): ReservedTestLocalPart | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== testDomain.toLowerCase()) return undefined;
  const local = address.slice(0, at).toLowerCase();
  return RESERVED_TEST_LOCAL_PARTS.find((part) => part === local);
}

/** The reserved addresses written out, for messages: `bounce@x, complaint@x and delay@x`. */
export function reservedTestAddresses(testDomain: string): string {
  const all = RESERVED_TEST_LOCAL_PARTS.map((part) => `${part}@${testDomain}`);
  return `${all.slice(0, -1).join(', ')} and ${all.at(-1)}`;
}
