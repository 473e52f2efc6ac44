/**
 * The dashboard's mailbox-provider connections (spec §4.8, session auth): list, connect (the
 * credential is checked first), sync now, and disconnect. The roles that may are the permission
 * matrix's `reputation:read` and `reputation:manage` (members/permissions.ts).
 */
import { type Permission, requirePermission, rolesNote } from '../../members/permissions.js';
import { requireSession, type SessionPrincipal } from '../../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { connectionCreate, connectionList, connectionParams, connectionView, syncResult } from './schemas.js';
import type { ConnectionService } from './service.js';

const TAG = 'Dashboard: reputation connections';
const BASE = '/v1/dashboard/reputation/connections';
function allowed(principal: SessionPrincipal, permission: Permission): SessionPrincipal {
  requirePermission(principal, permission);
  return principal;
}

export function connectionRoutes(connections: ConnectionService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      summary: 'The project’s mailbox-provider connections (never their credentials)',
      description: rolesNote('reputation:read'),
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The connections.', schema: connectionList } },
      handler: async (req) => {
        const { projectId } = allowed(requireSession(req.principal), 'reputation:read');
        return { status: 200, body: { data: await connections.list(projectId) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: BASE,
      summary: 'Connect Google Postmaster Tools or Microsoft SNDS; the credential is checked first',
      description: rolesNote('reputation:manage'),
      tag: TAG,
      auth: 'session',
      body: connectionCreate,
      responses: {
        201: {
          description: 'Connected: the provider accepted the credential, now stored sealed.',
          schema: connectionView,
        },
        400: {
          description: 'The provider refused the credential (nothing stored), or the request is invalid.',
        },
        403: { description: 'The role may not manage provider connections.' },
        503: { description: 'The provider did not answer; nothing was stored.' },
      },
      handler: async (req) => {
        const principal = allowed(requireSession(req.principal), 'reputation:manage');
        const view = await connections.create(principal.projectId, principal.userId, req.body);
        req.log.info({ connection_id: view.id, provider: view.provider }, 'provider connected');
        return { status: 201, body: view };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/{id}/sync`,
      summary: 'Fetch the provider’s latest data now',
      description: rolesNote('reputation:manage'),
      tag: TAG,
      auth: 'session',
      params: connectionParams,
      responses: {
        200: { description: 'What was fetched, also kept for GET /v1/reputation.', schema: syncResult },
        404: { description: 'No such connection in this project.' },
        422: {
          description:
            'The provider no longer accepts the stored credential; the data fetched before is kept.',
        },
        503: { description: 'The provider is down; the data fetched before is kept.' },
      },
      handler: async (req) => {
        const principal = allowed(requireSession(req.principal), 'reputation:manage');
        return { status: 200, body: await connections.sync(principal.projectId, req.params.id) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/{id}`,
      summary: 'Disconnect: the connection is revoked and its credential and data erased',
      description: rolesNote('reputation:manage'),
      tag: TAG,
      auth: 'session',
      params: connectionParams,
      responses: {
        204: { description: 'Revoked and erased.' },
        404: { description: 'No such connection in this project.' },
      },
      handler: async (req) => {
        const principal = allowed(requireSession(req.principal), 'reputation:manage');
        await connections.remove(principal.projectId, req.params.id);
        return { status: 204 };
      },
    }),
  ];
}
