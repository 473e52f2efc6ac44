/**
 * Access-control failures as audit records (OWASP ASVS 7.2.2), through the HTTP app's `denied`
 * hook, bounded by coalescing (coalesce.ts) and never holding the credential presented:
 * - `access.denied`, reason `forbidden`: a 403 to a key, OAuth token or session acting outside
 *   its scopes or role (or a request refused before it was known, such as a failed CSRF check).
 * - `access.denied`, reason `other_project` / `other_organization`: a 404 for an ID that exists,
 *   in a project the caller may not reach. The record goes to the organization that owns the
 *   resource, never to the caller's, whose admins would otherwise learn that the ID exists; the
 *   same for a session selecting another organization's project (`X-Posthorn-Project-ID`).
 * - `auth.credential_rejected`: a well-formed API key that is unknown, revoked or expired, or an
 *   OAuth access token that is unknown or revoked (a 401; an expired one is routine, its client
 *   refreshes it); of an unknown credential only its prefix (`ph_live_`, `pho_`) is kept.
 * Plain 404s (no such ID anywhere), malformed or missing credentials and ended sessions are not
 * recorded: they are ordinary mistakes and endings, and the access log has them.
 */
import type { Context } from 'koa';
import type { DeniedHandler } from '../platform/http/app.js';
import type { AppError } from '../platform/http/errors.js';
import type { Principal } from '../platform/http/principal.js';
import type { RouteSpec } from '../platform/http/route.js';
import { type Actor, actorOf } from './actor.js';
import type { OwnerLookup } from './owners.js';
import type { AuditEntry, AuditService } from './service.js';

/** What an authenticator knew of a credential it refused, carried as the 401's `cause`. */
export interface RejectedCredential {
  readonly rejectedCredential: {
    readonly reason: 'unknown' | 'revoked' | 'expired';
    /** `ph_live_`, `ph_test_` or `pho_`: never more of the presented credential. */
    readonly prefix: string;
    readonly keyId?: string;
    /** An OAuth access token's client, grant and the person it acted for. */
    readonly oauth?: { readonly clientId: string; readonly grantId: string; readonly userId: string };
    readonly organizationId?: string | null;
    readonly projectId?: string | null;
  };
}

/**
 * A session that selected (`X-Posthorn-Project-ID`) a project it may not reach, carried as the
 * 404's `cause` by the session authenticator.
 */
export interface DeniedSession {
  readonly deniedSession: {
    readonly userId: string;
    readonly organizationId: string;
    readonly authMethod: string;
    readonly projectId: string;
  };
}

function rejectedOf(error: AppError): RejectedCredential['rejectedCredential'] | undefined {
  const cause = error.cause as Partial<RejectedCredential> | undefined;
  return typeof cause === 'object' && cause !== null ? cause.rejectedCredential : undefined;
}

const client = (ctx: Context) => ({
  ip: ctx.ip || null,
  userAgent: ctx.get('User-Agent') ? ctx.get('User-Agent').slice(0, 512) : null,
});

/** The route's path parameters that are IDs (`msg_...`), first the `id` one. */
function idsIn(params: unknown): string[] {
  if (typeof params !== 'object' || params === null) return [];
  const values = Object.entries(params as Record<string, unknown>)
    .sort(([a], [b]) => (a === 'id' ? -1 : b === 'id' ? 1 : 0))
    .map(([, value]) => value);
  return values.filter((value): value is string => typeof value === 'string' && value.length <= 64);
}

const routeOf = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;

export function auditedDenials(audit: AuditService, owners: OwnerLookup): DeniedHandler {
  const record = (entry: AuditEntry) => audit.recordBounded(entry);

  const rejected = (spec: RouteSpec, ctx: Context, error: AppError) => {
    const credential = rejectedOf(error);
    if (!credential) return;
    const { oauth } = credential;
    const actor: Actor = oauth
      ? {
          id: oauth.clientId,
          kind: 'oauth',
          authMethod: 'oauth',
          ...client(ctx),
          onBehalfOf: { userId: oauth.userId, grantId: oauth.grantId },
        }
      : credential.prefix === 'pho_'
        ? { id: 'anonymous', kind: 'oauth', authMethod: 'oauth', ...client(ctx) }
        : { id: credential.keyId ?? 'anonymous', kind: 'key', authMethod: 'api_key', ...client(ctx) };
    return record({
      actor,
      action: 'auth.credential_rejected',
      organizationId: credential.organizationId ?? null,
      projectId: credential.projectId ?? null,
      target: credential.keyId ?? oauth?.grantId ?? null,
      details: { route: routeOf(spec), reason: credential.reason, key_prefix: credential.prefix },
    });
  };

  const forbidden = (spec: RouteSpec, ctx: Context, error: AppError, principal: Principal | undefined) => {
    const { ip, userAgent } = client(ctx);
    const actor = principal ? actorOf(principal, ip, userAgent) : undefined;
    const scoped = principal && principal.kind !== 'none' ? principal : undefined;
    return record({
      actor: actor ?? { id: 'anonymous', kind: 'session', authMethod: null, ip, userAgent },
      action: 'access.denied',
      organizationId: scoped?.organizationId ?? null,
      projectId: scoped?.projectId ?? null,
      target: idsIn(ctx.params)[0] ?? null,
      details: { route: routeOf(spec), reason: 'forbidden', status: 403, message: error.message },
    });
  };

  const elsewhere = async (
    spec: RouteSpec,
    ctx: Context,
    principal: Principal | undefined,
    error: AppError,
  ) => {
    const selected = (error.cause as Partial<DeniedSession> | undefined)?.deniedSession;
    if (!principal && selected) return selectedElsewhere(spec, ctx, selected);
    if (!principal || principal.kind === 'none') return;
    const actor = actorOf(principal, client(ctx).ip, client(ctx).userAgent);
    if (!actor) return;
    for (const id of idsIn(ctx.params)) {
      const owner = await owners.ownerOf(id);
      if (!owner || owner.projectId === principal.projectId) continue;
      const sameOrganization = owner.organizationId === principal.organizationId;
      return record({
        actor,
        action: 'access.denied',
        organizationId: owner.organizationId,
        projectId: owner.projectId,
        target: id,
        details: {
          route: routeOf(spec),
          reason: sameOrganization ? 'other_project' : 'other_organization',
          status: 404,
          ...(sameOrganization ? { actor_project_id: principal.projectId } : {}),
        },
      });
    }
  };

  const selectedElsewhere = async (
    spec: RouteSpec,
    ctx: Context,
    selected: DeniedSession['deniedSession'],
  ): Promise<void> => {
    const owner = await owners.ownerOf(selected.projectId);
    if (!owner || owner.organizationId === selected.organizationId) return;
    return record({
      actor: { id: selected.userId, kind: 'session', authMethod: selected.authMethod, ...client(ctx) },
      action: 'access.denied',
      organizationId: owner.organizationId,
      projectId: owner.projectId,
      target: owner.projectId,
      details: {
        route: routeOf(spec),
        reason: 'other_organization',
        status: 404,
        selected_by: 'X-Posthorn-Project-ID',
      },
    });
  };

  return async ({ spec, principal, ctx, error }) => {
    if (error.status === 401) return rejected(spec, ctx, error);
    if (error.status === 403) return forbidden(spec, ctx, error, principal);
    if (error.status === 404) return elsewhere(spec, ctx, principal, error);
  };
}
