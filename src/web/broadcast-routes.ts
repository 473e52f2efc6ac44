/**
 * What the dashboard's broadcast page needs beside the broadcasts API: the draft's HTML as a
 * document of its own, for a sandboxed frame, with the same policy as a message's preview (no
 * script, nothing remote, no same-origin access; only the dashboard may frame it).
 */
import { z } from 'zod';
import type { BroadcastService } from '../broadcasts/service.js';
import { hasScope } from '../platform/http/app.js';
import { forbidden, notFound } from '../platform/http/errors.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import type { ProjectService } from '../projects/service.js';
import { frameQuery, inProject } from './frame-project.js';
import { PREVIEW_CSP } from './message-routes.js';
import { dashboardPrincipal } from './principal.js';

const params = z.strictObject({ id: z.string().min(1).max(64).describe('bc_...') });

export function webBroadcastRoutes(
  broadcasts: Pick<BroadcastService, 'get'>,
  projects: Pick<ProjectService, 'get'>,
): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/broadcasts/{id}/preview',
      summary: "A broadcast's HTML, for a sandboxed frame",
      description:
        "Served as text/html with `Content-Security-Policy: sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:`, as a message's preview: no script runs, nothing remote loads, and only the dashboard may frame it. Roles whose scopes include `broadcasts:read`.",
      tag: 'Web dashboard',
      auth: 'session',
      params,
      query: frameQuery,
      responses: {
        200: {
          description: 'The HTML as written (personalization tags unexpanded).',
          contentType: 'text/html',
        },
        403: { description: "The member's role may not read broadcasts." },
        404: { description: 'Not a broadcast of the selected project, or it has no HTML.' },
      },
      handler: async (req) => {
        const session = await inProject(requireSession(req.principal), req.query.project, projects);
        const key = dashboardPrincipal(session);
        if (!hasScope(key, 'broadcasts:read'))
          throw forbidden(`Your role (${key.dashboard?.role}) may not read broadcasts.`);
        const { html } = await broadcasts.get(key, req.params.id);
        if (html === null) throw notFound(`The HTML of broadcast ${req.params.id}`);
        return {
          status: 200,
          headers: {
            'Content-Security-Policy': PREVIEW_CSP,
            'X-Content-Type-Options': 'nosniff',
            'Referrer-Policy': 'no-referrer',
            'Cache-Control': 'private, no-store',
          },
          raw: { contentType: 'text/html; charset=utf-8', data: html },
        };
      },
    }),
  ];
}
