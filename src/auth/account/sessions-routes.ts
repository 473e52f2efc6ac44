/**
 * `/v1/dashboard/account/sessions`: the signed-in person sees where they are signed in and ends
 * sessions they do not recognise (ASVS 3.3.4). Not in the spec; documented like every route.
 */
import { requireSession } from '../../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { sessionIdParams, sessionList, sessionsEnded } from './schemas.js';
import type { AccountService } from './service.js';

const TAG = 'Account';

export function accountSessionRoutes(account: AccountService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/account/sessions',
      summary: "The signed-in person's active sessions, in every organization",
      description:
        'Newest first; `current` marks the one making the request. Addresses are shown truncated to their network and user agents as the kind of client.',
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The live sessions.', schema: sessionList } },
      handler: async (req) => ({
        status: 200,
        body: { data: await account.listSessions(requireSession(req.principal)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/account/sessions/{id}',
      summary: 'End one of your other sessions: its token stops working at once',
      tag: TAG,
      auth: 'session',
      params: sessionIdParams,
      responses: {
        204: { description: 'Ended.' },
        404: { description: 'You have no live session with this ID.' },
        409: { description: 'It is the current session: sign out with `POST /v1/auth/logout`.' },
      },
      handler: async (req) => {
        await account.endSession(requireSession(req.principal), req.params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/sessions/end-others',
      summary: 'End every session of yours but the current one',
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'Ended; how many.', schema: sessionsEnded } },
      handler: async (req) => ({
        status: 200,
        body: await account.endOtherSessions(requireSession(req.principal)),
      }),
    }),
  ];
}
