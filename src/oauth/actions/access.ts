/**
 * Access tokens as credentials of the API-key routes (spec §4.7; auth/authenticators.ts hands
 * `pho_` tokens here): a token becomes a key principal of the consent's project, live mode,
 * limited to the token's scopes, naming the client and the member it acts for. A token is refused
 * (401, RFC 6750 `invalid_token`) when unknown, expired, revoked, of a revoked grant, or once its
 * member left the organization (within MEMBERSHIP_TTL_MS). Last-used times are kept in memory and
 * written in batches.
 */
import type { RejectedCredential } from '../../audit/denials.js';
import { AppError } from '../../platform/http/errors.js';
import type { KeyPrincipal } from '../../platform/http/principal.js';
import type { ProjectService } from '../../projects/service.js';
import { hashSecret, looksLike } from '../helpers/secrets.js';
import type { OAuthStore } from '../store.js';
import type { AccessTokenLookup } from '../store-access.js';

const invalidToken = (description: string, rejected?: RejectedCredential) =>
  new AppError('unauthorized', description, {
    headers: {
      'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
    },
    ...(rejected ? { cause: rejected } : {}),
  });

export interface AccessDeps {
  readonly store: OAuthStore;
  readonly tokens: AccessTokenLookup;
  readonly projects: Pick<ProjectService, 'get'>;
  readonly member: (userId: string, organizationId: string) => Promise<{ email: string } | undefined>;
}

/**
 * How long a member's standing is taken as read: a member removed from the organization has their
 * applications' tokens refused within this time. Reading it on every request cost the token's
 * sends a tenth of their throughput (`scripts/bench oauth`).
 */
const MEMBERSHIP_TTL_MS = 2000;
const MEMBERSHIP_CACHE_MAX = 10_000;

export function accessAction(deps: AccessDeps) {
  const pendingLastUsed = new Map<string, number>();
  const members = new Map<string, { email: string; until: number }>();

  async function memberOf(userId: string, organizationId: string, now: number) {
    const key = `${userId} ${organizationId}`;
    const known = members.get(key);
    if (known && known.until > now) return known;
    const member = await deps.member(userId, organizationId);
    if (members.size >= MEMBERSHIP_CACHE_MAX) members.clear();
    if (member) members.set(key, { email: member.email, until: now + MEMBERSHIP_TTL_MS });
    else members.delete(key);
    return member;
  }

  return {
    async authenticate(token: string): Promise<KeyPrincipal> {
      const row = looksLike('pho', token) ? await deps.tokens.find(hashSecret(token)) : undefined;
      // The audit log's record of a refused token (audit/denials.ts): its prefix at most.
      if (row?.kind !== 'access')
        throw invalidToken('Invalid access token.', {
          rejectedCredential: { reason: 'unknown', prefix: 'pho_' },
        });
      const now = Date.now();
      if (row.revoked_at !== null || row.grant_revoked_at !== null)
        throw invalidToken('This access token has been revoked.', {
          rejectedCredential: {
            reason: 'revoked',
            prefix: 'pho_',
            oauth: { clientId: row.client_id, grantId: row.grant_id, userId: row.user_id },
            organizationId: row.organization_id,
            projectId: row.project_id,
          },
        });
      if (row.expires_at <= now) throw invalidToken('This access token has expired; refresh it.');
      const [project, member] = await Promise.all([
        deps.projects.get(row.project_id),
        memberOf(row.user_id, row.organization_id, now),
      ]);
      if (!project || project.organizationId !== row.organization_id || !member)
        throw invalidToken('The member who connected this application no longer belongs to the project.');
      pendingLastUsed.set(row.grant_id, now);
      return {
        kind: 'key',
        keyId: row.grant_id,
        projectId: project.id,
        organizationId: project.organizationId,
        projectStatus: project.status,
        mode: 'live',
        scopes: new Set(JSON.parse(row.scopes) as string[]),
        oauth: {
          clientId: row.client_id,
          clientName: row.client_name ?? row.client_id,
          grantId: row.grant_id,
          userId: row.user_id,
          userEmail: member.email,
        },
      };
    },

    /** The last-used time of a grant not yet written, if any. */
    lastUsed: (grantId: string): number | undefined => pendingLastUsed.get(grantId),

    /** Writes the buffered last-used times; called on a timer and at a stop. */
    async flushLastUsed(): Promise<void> {
      if (pendingLastUsed.size === 0) return;
      const batch = new Map(pendingLastUsed);
      pendingLastUsed.clear();
      await deps.store.touchGrants(batch);
    },
  };
}
