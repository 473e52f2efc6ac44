/**
 * The permission matrix of organization roles (spec §5 rule 8). Written once, here; routes check it
 * and their OpenAPI descriptions quote it, so what the document says is what the server enforces.
 *
 * | permission        | owner | admin | developer | analyst | billing |
 * |-------------------|:-----:|:-----:|:---------:|:-------:|:-------:|
 * | members:read      |   ✓   |   ✓   |     ✓     |    ✓    |    ✓    |
 * | members:manage    |   ✓   |   ✓   |           |         |         |
 * | api_keys:manage   |   ✓   |   ✓   |     ✓     |         |         |
 * | emails:send       |   ✓   |   ✓   |     ✓     |         |         |
 * | messages:read     |   ✓   |   ✓   |     ✓     |    ✓    |         |
 * | audit:read        |   ✓   |   ✓   |           |         |         |
 * | billing:read      |   ✓   |   ✓   |           |         |    ✓    |
 * | reputation:read   |   ✓   |   ✓   |     ✓     |    ✓    |         |
 * | reputation:manage |   ✓   |   ✓   |           |         |         |
 * | security:manage   |   ✓   |           |           |         |         |
 *
 * Beyond the matrix: only an owner may make someone an owner, change an owner's role or remove an
 * owner, and an organization always keeps at least one owner. When the organization requires
 * two-factor authentication of owners and admins (members/two-factor.ts), the administrative
 * permissions (those no developer, analyst or billing member has) need the person's authenticator
 * to be on: 403 until they turn it on.
 */
import type { Role } from '../platform/db/tables.js';
import { forbidden } from '../platform/http/errors.js';
import type { SessionPrincipal } from '../platform/http/principal.js';

export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'analyst', 'billing'];

export const PERMISSIONS = {
  'members:read': ['owner', 'admin', 'developer', 'analyst', 'billing'],
  'members:manage': ['owner', 'admin'],
  'api_keys:manage': ['owner', 'admin', 'developer'],
  'emails:send': ['owner', 'admin', 'developer'],
  'messages:read': ['owner', 'admin', 'developer', 'analyst'],
  'audit:read': ['owner', 'admin'],
  'billing:read': ['owner', 'admin', 'billing'],
  'reputation:read': ['owner', 'admin', 'developer', 'analyst'],
  'reputation:manage': ['owner', 'admin'],
  'security:manage': ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

const WHAT: Record<Permission, string> = {
  'members:read': 'see the members',
  'members:manage': 'invite, remove or change the role of members',
  'api_keys:manage': 'manage API keys',
  'emails:send': 'send or approve sends',
  'messages:read': 'read messages',
  'audit:read': 'read the audit log',
  'billing:read': 'see billing',
  'reputation:read': 'see the reputation provider connections',
  'reputation:manage': 'connect, sync or disconnect reputation providers',
  'security:manage': "change the organization's security settings",
};

/** Permissions that only owners and admins hold: the ones two-factor is required for. */
export function isAdministrative(permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).every((role) => role === 'owner' || role === 'admin');
}

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Throws 403 naming the roles that may, unless the session's role may. */
export function requirePermission(principal: SessionPrincipal, permission: Permission): void {
  if (can(principal.role, permission)) {
    if (principal.twoFactorMissing && isAdministrative(permission))
      throw forbidden(
        `This organization requires two-factor authentication of owners and admins: turn on an authenticator for your account (POST /v1/dashboard/account/totp, or the Account page) before you ${WHAT[permission]}.`,
      );
    return;
  }
  throw forbidden(
    `Your role (${principal.role}) may not ${WHAT[permission]}; that takes one of: ${PERMISSIONS[permission].join(', ')}.`,
  );
}

/** The sentence a route's OpenAPI description carries. */
export function rolesNote(permission: Permission): string {
  return `Roles: ${PERMISSIONS[permission].join(', ')} (permission \`${permission}\`).`;
}
