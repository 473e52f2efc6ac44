/**
 * The dashboard's mailbox-provider connections (spec §4.8, session auth): list, connect (the
 * credential is checked first), sync now, and disconnect. Any member of the organization sees them;
 * an owner or an admin manages them.
 */
import { forbidden } from '../../platform/http/errors.js';
import { requireSession, type SessionPrincipal } from '../../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { connectionCreate, connectionList, connectionParams, connectionView, syncResult } from './schemas.js';
import type { ConnectionService } from './service.js';

const TAG = 'Dashboard: reputation connections';
const BASE = '/v1/dashboard/reputation/connections';
const MANAGERS: ReadonlySet<string> = new Set(['owner', 'admin']);

function manager(principal: SessionPrincipal): SessionPrincipal {
  if (!MANAGERS.has(principal.role))
    throw forbidden(`Only an owner or an admin manages provider connections; you are ${principal.role}.`);
  return principal;
}

export function connectionRoutes(connections: ConnectionService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      summary: 'The project’s mailbox-provider connections (never their credentials)',
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The connections.', schema: connectionList } },
      handler: async (req) => {
        const { projectId } = requireSession(req.principal);
        return { status: 200, body: { data: await connections.list(projectId) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: BASE,
      summary: 'Connect Google Postmaster Tools or Microsoft SNDS; the credential is checked first',
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
        403: { description: 'Only an owner or an admin connects providers.' },
        503: { description: 'The provider did not answer; nothing was stored.' },
      },
      handler: async (req) => {
        const principal = manager(requireSession(req.principal));
        const view = await connections.create(principal.projectId, principal.userId, req.body);
        req.log.info({ connection_id: view.id, provider: view.provider }, 'provider connected');
        return { status: 201, body: view };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/{id}/sync`,
      summary: 'Fetch the provider’s latest data now',
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
        const principal = manager(requireSession(req.principal));
        return { status: 200, body: await connections.sync(principal.projectId, req.params.id) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/{id}`,
      summary: 'Disconnect: the connection is revoked and its credential and data erased',
      tag: TAG,
      auth: 'session',
      params: connectionParams,
      responses: {
        204: { description: 'Revoked and erased.' },
        404: { description: 'No such connection in this project.' },
      },
      handler: async (req) => {
        const principal = manager(requireSession(req.principal));
        await connections.remove(principal.projectId, req.params.id);
        return { status: 204 };
      },
    }),
  ];
}
