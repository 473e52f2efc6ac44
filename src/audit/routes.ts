/** `GET /v1/dashboard/audit-logs` (spec §4.8, §8): the organization's audit records, newest first. */
import { z } from 'zod';
import { requirePermission, rolesNote } from '../members/permissions.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import type { AuditService } from './service.js';

const record = z.object({
  id: z.string(),
  actor: z.object({
    type: z.enum(['session', 'key', 'oauth', 'cli', 'system']),
    id: z.string().describe('usr_... for a person, key_... for an API key, cli, system.'),
    auth_method: z.string().nullable().describe('email_code, password, api_key, oauth, cli.'),
  }),
  action: z
    .string()
    .describe(
      'e.g. member.add, api_key.create, auth.login_failed, auth.credential_rejected, access.denied, or "POST /v1/domains".',
    ),
  target: z.string().nullable(),
  project_id: z.string().nullable(),
  ip_address: z.string().nullable(),
  user_agent: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

export function auditRoutes(audit: AuditService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/audit-logs',
      summary: "The organization's audit log, newest first",
      description: `Every change made by a session, an API key or the command line; every failed sign-in of a member, refused API key of the organization (\`auth.credential_rejected\`) and access-control failure (\`access.denied\`: a 403, or a 404 that hid one of the organization's resources from another project or organization). Failures repeated within a minute are one record whose \`details.count\` says how many. ${rolesNote('audit:read')}`,
      tag: 'Audit log',
      auth: 'session',
      query: z.strictObject({
        limit: z.coerce
          .number({ error: 'must be an integer from 1 to 500' })
          .int('must be an integer from 1 to 500')
          .min(1, 'must be at least 1')
          .max(500, 'must be at most 500')
          .default(100),
        after: z
          .string()
          .max(64)
          .optional()
          .describe('Only records older than this one (an `aud_log_` ID of the previous page).'),
        action: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Only records whose action starts with this, e.g. `member.` or `POST /v1/domains`.'),
      }),
      responses: {
        200: {
          description: 'The records, and whether older ones remain.',
          schema: z.object({ data: z.array(record), has_more: z.boolean() }),
        },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'audit:read');
        return { status: 200, body: await audit.list(session.organizationId, req.query) };
      },
    }),
  ];
}
