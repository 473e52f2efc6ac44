/**
 * The closed set of API key scopes (DESIGN.md §4). `full_access` grants every other scope. A route
 * names the scope it needs; a key without it is refused with 403 naming the scope.
 */
const resourceScopes = [
  'templates',
  'domains',
  'suppressions',
  'webhooks',
  'tracking',
  'inbound',
  'audiences',
  'broadcasts',
  'reputation',
].flatMap((resource) => [`${resource}:read`, `${resource}:write`]);

export const SCOPES: readonly string[] = [
  'full_access',
  'emails:send',
  'emails:read',
  'analytics:read',
  'validation:use',
  ...resourceScopes,
];

const known = new Set(SCOPES);

export function isScope(value: string): boolean {
  return known.has(value);
}

/** Returns the first unknown scope in the list, if any. */
export function unknownScope(scopes: readonly string[]): string | undefined {
  return scopes.find((scope) => !known.has(scope));
}
