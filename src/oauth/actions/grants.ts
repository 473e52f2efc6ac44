/**
 * Connected applications (spec §4.7): `GET /v1/dashboard/oauth/grants` lists the live grants of
 * the selected project (every member's to those who manage API keys, their own to the others),
 * and `DELETE .../grants/{id}` ends one: every token of it stops working at once. A member may end
 * their own grants whatever their role.
 */
import type { AuditService } from '../../audit/service.js';
import { can } from '../../members/permissions.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import type { SessionPrincipal } from '../../platform/http/principal.js';
import type { GrantListRow, OAuthStore } from '../store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function grantsActions(
  store: OAuthStore,
  audit: AuditService,
  lastUsed: (grantId: string) => number | undefined,
) {
  const view = (row: GrantListRow) => ({
    id: row.id,
    client: { client_id: row.client_id, client_name: row.client_name },
    user_id: row.user_id,
    project_id: row.project_id,
    scopes: JSON.parse(row.scopes) as string[],
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(lastUsed(row.id) ?? row.last_used_at),
  });

  return {
    async list(session: SessionPrincipal) {
      const everyone = can(session.role, 'api_keys:manage');
      const rows = await store.listGrants(session.projectId, everyone ? undefined : session.userId);
      return rows.map(view);
    },

    async revoke(session: SessionPrincipal, id: string): Promise<void> {
      const grant = await store.findGrant(id);
      if (!grant || grant.project_id !== session.projectId || grant.revoked_at !== null)
        throw notFound(`Grant ${id}`);
      if (grant.user_id !== session.userId && !can(session.role, 'api_keys:manage'))
        throw forbidden(
          `Your role (${session.role}) may disconnect only the applications you connected yourself.`,
        );
      await store.revokeGrant(id, Date.now());
      await audit.record({
        action: 'oauth.grant.revoke',
        organizationId: session.organizationId,
        projectId: session.projectId,
        target: id,
        details: { client_id: grant.client_id, user_id: grant.user_id },
      });
    },
  };
}
