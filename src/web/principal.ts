/**
 * A person on an API-key route from the web dashboard: the session becomes a key principal of the
 * selected project in live mode, with the scopes of the member's role. The routes stay the API's,
 * so the dashboard shows and changes exactly what the API does (Resend's dashboard works on its
 * own API the same way).
 *
 * | role                     | scopes                                             |
 * |--------------------------|----------------------------------------------------|
 * | owner, admin, developer  | every scope (`full_access`)                        |
 * | analyst                  | `emails:read`, `analytics:read`, every `*:read`    |
 * | billing                  | none                                               |
 */
import { SCOPES } from '../auth/scopes.js';
import type { Role } from '../platform/db/tables.js';
import type { KeyPrincipal, SessionPrincipal } from '../platform/http/principal.js';

const READ_SCOPES = SCOPES.filter((scope) => scope.endsWith(':read'));

export const ROLE_SCOPES: Readonly<Record<Role, readonly string[]>> = {
  owner: ['full_access'],
  admin: ['full_access'],
  developer: ['full_access'],
  analyst: READ_SCOPES,
  billing: [],
};

export function dashboardPrincipal(session: SessionPrincipal): KeyPrincipal {
  return {
    kind: 'key',
    keyId: session.sessionId,
    projectId: session.projectId,
    organizationId: session.organizationId,
    projectStatus: session.projectStatus,
    mode: 'live',
    scopes: new Set(ROLE_SCOPES[session.role]),
    dashboard: session,
  };
}
