/** `GET /v1/dashboard/emails` and `GET /v1/dashboard/emails/{id}` (spec §4.8). */
import { z } from 'zod';
import { PROJECT_HEADER } from '../../auth/authenticators.js';
import { requirePermission, rolesNote } from '../../members/permissions.js';
import { notFound } from '../../platform/http/errors.js';
import { requireSession } from '../../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { historyPage, historyQuery, messageDetail } from './schemas.js';
import type { HistoryService } from './service.js';

const TAG = 'Message history';
const projectHeader = {
  [PROJECT_HEADER]: {
    description: "A project of the session's organization; default: the session's project.",
  },
};

export function historyRoutes(history: HistoryService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/emails',
      summary: "A page of the selected project's messages: sorted, filtered, searched",
      description: rolesNote('messages:read'),
      tag: TAG,
      auth: 'session',
      query: historyQuery,
      requestHeaders: projectHeader,
      responses: { 200: { description: 'The page.', schema: historyPage } },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'messages:read');
        const q = req.query;
        const body = await history.page({
          projectId: session.projectId,
          mode: q.mode,
          page: q.page,
          pageSize: q.page_size,
          search: q.search === undefined || q.search.trim() === '' ? undefined : q.search.trim(),
          status: q.status,
          sort: q.sort,
          order: q.order,
        });
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/emails/{id}',
      summary: 'One message of the selected project in detail',
      description: rolesNote('messages:read'),
      tag: TAG,
      auth: 'session',
      params: z.strictObject({ id: z.string().min(1).max(64) }),
      requestHeaders: projectHeader,
      responses: {
        200: { description: 'The message.', schema: messageDetail },
        404: { description: 'Not a message of the selected project.' },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'messages:read');
        const detail = await history.detail(session.projectId, req.params.id);
        if (!detail) throw notFound(`Message ${req.params.id}`);
        return { status: 200, body: detail };
      },
    }),
  ];
}
