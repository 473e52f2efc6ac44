/**
 * The dashboard's side of OAuth (spec §4.7, session routes of the selected project): the consent
 * context, approving or declining a request, and the connected applications. A refusal that goes
 * back to the client is answered with `redirect_to` (its redirect URI carrying the error), which
 * the dashboard follows; any other is a 400 for the person, as `{"error": "..."}`.
 */
import { rolesNote } from '../members/permissions.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteResult, type RouteSpec } from '../platform/http/route.js';
import { Redirectable } from './actions/authorization.js';
import type { OAuth } from './build.js';
import {
  approveRequest,
  authorizeQuery,
  consentContext,
  grantList,
  grantParams,
  redirectableError,
  redirectResponse,
} from './schemas.js';

const TAG = 'OAuth consent';

async function redirecting(run: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Redirectable)) throw error;
    return { status: error.error.status, body: { error: error.message, redirect_to: error.redirectTo } };
  }
}

const refusals = {
  400: {
    description:
      'Bad client or redirect URI (`{error}` only), or a refusal for the client (with `redirect_to`).',
    schema: redirectableError,
  },
  403: {
    description: 'The role may not connect applications (`redirect_to` carries access_denied).',
    schema: redirectableError,
  },
};

export function oauthDashboardRoutes(oauth: OAuth): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/oauth/authorize-context',
      summary: 'What the consent screen shows for an authorization request',
      description: `The request's parameters as the client sent them. ${rolesNote('api_keys:manage')}`,
      tag: TAG,
      auth: 'session',
      query: authorizeQuery,
      responses: {
        200: { description: 'Client, redirect URI, scopes, project, member.', schema: consentContext },
        ...refusals,
      },
      handler: (req) =>
        redirecting(async () => ({
          status: 200,
          body: await oauth.authorization.context(req.query, requireSession(req.principal)),
        })),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/oauth/authorize',
      summary: 'Approve: a single-use authorization code for the client, with state and iss',
      description: `The grant is for the selected project. ${rolesNote('api_keys:manage')}`,
      tag: TAG,
      auth: 'session',
      body: approveRequest,
      responses: {
        200: { description: 'Send the browser to `redirect_to`.', schema: redirectResponse },
        ...refusals,
      },
      handler: (req) =>
        redirecting(async () => ({
          status: 200,
          body: { redirect_to: await oauth.authorization.approve(req.body, requireSession(req.principal)) },
        })),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/oauth/deny',
      summary: 'Decline: the client is told access_denied',
      tag: TAG,
      auth: 'session',
      body: approveRequest,
      responses: {
        200: { description: 'Send the browser to `redirect_to`.', schema: redirectResponse },
        ...refusals,
      },
      handler: async (req) => ({
        status: 200,
        body: { redirect_to: await oauth.authorization.deny(req.body, requireSession(req.principal)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/oauth/grants',
      summary: 'Connected applications of the selected project',
      description: `Every member's grants to the roles of api_keys:manage; one's own to the others. ${rolesNote('api_keys:manage')}`,
      tag: TAG,
      auth: 'session',
      responses: {
        200: { description: 'Live grants, newest first.', schema: grantList },
      },
      handler: async (req) => ({
        status: 200,
        body: { data: await oauth.grants.list(requireSession(req.principal)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/oauth/grants/{id}',
      summary: 'Disconnect an application: every token of the grant stops working at once',
      description: `One's own grant, or any of the project with ${rolesNote('api_keys:manage')}`,
      tag: TAG,
      auth: 'session',
      params: grantParams,
      responses: {
        204: { description: 'Revoked.' },
        404: { description: 'No live grant of that ID in this project.' },
      },
      handler: async (req) => {
        await oauth.grants.revoke(requireSession(req.principal), req.params.id);
        return { status: 204 };
      },
    }),
  ];
}
