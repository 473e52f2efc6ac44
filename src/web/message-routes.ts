/**
 * What the dashboard's message page needs beside the history API: each recipient's timeline of
 * events, and the HTML body as a document of its own, served with a CSP that allows no script, no
 * remote load and no same-origin access, for a sandboxed frame (email HTML relies on inline
 * styles, which the dashboard's own CSP rightly refuses).
 */
import { z } from 'zod';
import type { EventService } from '../events/service.js';
import type { EmailService } from '../emails/service.js';
import { requirePermission } from '../members/permissions.js';
import { notFound } from '../platform/http/errors.js';
import { requireSession, type SessionPrincipal } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import type { ProjectService } from '../projects/service.js';
import { frameQuery, inProject } from './frame-project.js';

const TAG = 'Web dashboard';
const params = z.strictObject({ id: z.string().min(1).max(64) });

export const PREVIEW_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "frame-ancestors 'self'",
  'sandbox',
].join('; ');

const timelineEvent = z.object({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  recipient: z.string().nullable().describe('The recipient the event concerns; null for the whole message.'),
  data: z.record(z.string(), z.unknown()),
});

/** The HTML body of a message of the project, or undefined (no such message, or no HTML). */
export type HtmlOf = (projectId: string, messageId: string) => Promise<string | null | undefined>;

export function webMessageRoutes(deps: {
  readonly emails: Pick<EmailService, 'get' | 'messageModes'>;
  readonly events: Pick<EventService, 'timeline'>;
  readonly htmlOf?: HtmlOf;
  readonly projects?: Pick<ProjectService, 'get'>;
}): RouteSpec[] {
  const ownMessage = async (session: SessionPrincipal, id: string) => {
    requirePermission(session, 'messages:read');
    const mode = (await deps.emails.messageModes([id])).get(id);
    const found = mode && (await deps.emails.get({ projectId: session.projectId, mode }, id));
    if (!found) throw notFound(`Message ${id}`);
  };
  const routes: RouteSpec[] = [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/emails/{id}/events',
      summary: "A message's events, oldest first, each naming its recipient",
      description:
        'The timeline of the message page: queued, deferred (with the MX reply), delivered, bounced, opened, clicked. Roles: owner, admin, developer, analyst (permission `messages:read`).',
      tag: TAG,
      auth: 'session',
      params,
      responses: {
        200: { description: 'The events.', schema: z.object({ data: z.array(timelineEvent) }) },
        404: { description: 'Not a message of the selected project.' },
      },
      handler: async (req) => {
        await ownMessage(requireSession(req.principal), req.params.id);
        return { status: 200, body: { data: await deps.events.timeline(req.params.id) } };
      },
    }),
  ];
  const htmlOf = deps.htmlOf;
  if (htmlOf)
    routes.push(
      defineRoute({
        method: 'get',
        path: '/v1/dashboard/emails/{id}/preview',
        summary: "A message's HTML body, for a sandboxed frame",
        description:
          "Served as text/html with `Content-Security-Policy: sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:`: no script runs, nothing remote loads (no tracking pixel fires), and only the dashboard may frame it.",
        tag: TAG,
        auth: 'session',
        params,
        query: frameQuery,
        responses: {
          200: { description: 'The HTML as submitted.', contentType: 'text/html' },
          404: { description: 'Not a message of the selected project, or it has no HTML body.' },
        },
        handler: async (req) => {
          const signedIn = requireSession(req.principal);
          const session = deps.projects
            ? await inProject(signedIn, req.query.project, deps.projects)
            : signedIn;
          requirePermission(session, 'messages:read');
          const html = await htmlOf(session.projectId, req.params.id);
          if (html === undefined || html === null)
            throw notFound(`The HTML body of message ${req.params.id}`);
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
    );
  return routes;
}
