/** `GET /v1/dashboard/projects`: the projects of the session's organization, for the project switcher. */
import { z } from 'zod';
import type { ProjectService } from '../projects/service.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';

const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['sandbox', 'active', 'suspended']),
});

export function webProjectRoutes(projects: ProjectService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/projects',
      summary: "The projects of the session's organization",
      description: 'Select one with the `X-Posthorn-Project-ID` header on any dashboard request.',
      tag: 'Web dashboard',
      auth: 'session',
      responses: {
        200: { description: 'Oldest first.', schema: z.object({ data: z.array(projectSchema) }) },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        const rows = await projects.listOf(session.organizationId);
        return {
          status: 200,
          body: { data: rows.map((row) => ({ id: row.id, name: row.name, status: row.status })) },
        };
      },
    }),
  ];
}
