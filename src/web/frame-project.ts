/**
 * The project a dashboard frame reads. A frame's request cannot carry `X-Posthorn-Project-ID`, so
 * the preview routes take the project the page has selected as `?project=`, checked against the
 * session's organization exactly as the header is.
 */
import { z } from 'zod';
import { notFound } from '../platform/http/errors.js';
import type { SessionPrincipal } from '../platform/http/principal.js';
import type { ProjectService } from '../projects/service.js';

export const frameQuery = z.strictObject({
  project: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "The project selected in the dashboard (a frame cannot send X-Posthorn-Project-ID); the session's when left out.",
    ),
});

export async function inProject(
  session: SessionPrincipal,
  project: string | undefined,
  projects: Pick<ProjectService, 'get'>,
): Promise<SessionPrincipal> {
  if (project === undefined || project === session.projectId) return session;
  const found = await projects.get(project);
  if (!found || found.organizationId !== session.organizationId) throw notFound(`Project ${project}`);
  return { ...session, projectId: found.id, projectStatus: found.status };
}
