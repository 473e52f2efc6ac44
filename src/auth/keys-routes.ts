/**
 * `/v1/dashboard/api-keys`: the selected project's API keys, issued and revoked from the dashboard
 * (spec §5: "keys are scoped and issued from the dashboard"). A new key is shown once, in the 201.
 */
import { z } from 'zod';
import { requirePermission, rolesNote } from '../members/permissions.js';
import { badRequest } from '../platform/http/errors.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { MAX_KEY_LIFETIME_DAYS } from './key-lifetime.js';
import { SCOPES } from './scopes.js';
import type { KeyService } from './service.js';

const TAG = 'API keys';

const keyView = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  mode: z.enum(['live', 'test']),
  hint: z.string().describe('The last four characters.'),
  scopes: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

const createBody = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(80, 'must be at most 80 characters')
    .optional(),
  scopes: z
    .array(z.enum(SCOPES as [string, ...string[]], { error: `must be one of ${SCOPES.join(', ')}` }), {
      error: 'must be an array of scopes',
    })
    .min(1, 'must hold at least one scope')
    .max(SCOPES.length, `must hold at most ${SCOPES.length} scopes`),
  mode: z.enum(['live', 'test'], { error: 'must be live or test' }).default('live'),
  expires_at: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone' })
    .optional()
    .describe(
      `When the key stops working; within ${MAX_KEY_LIFETIME_DAYS} days. Omit for a key that does not expire.`,
    ),
});

export function dashboardKeyRoutes(keys: KeyService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/api-keys',
      summary: "The selected project's API keys (never the keys themselves)",
      description: rolesNote('api_keys:manage'),
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The keys.', schema: z.object({ data: z.array(keyView) }) } },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'api_keys:manage');
        return { status: 200, body: { data: await keys.list(session.projectId) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/api-keys',
      summary: 'Issue an API key for the selected project; the key is shown once',
      description: rolesNote('api_keys:manage'),
      tag: TAG,
      auth: 'session',
      body: createBody,
      responses: {
        201: {
          description: 'Issued.',
          schema: keyView.extend({ key: z.string().describe('ph_live_... or ph_test_...; shown once.') }),
        },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'api_keys:manage');
        const expiresInMs =
          req.body.expires_at === undefined ? undefined : Date.parse(req.body.expires_at) - Date.now();
        if (expiresInMs !== undefined && expiresInMs <= 0) {
          throw badRequest('Invalid body: expires_at: must be in the future.', [
            { path: 'expires_at', message: 'must be in the future' },
          ]);
        }
        const made = await keys.create(
          {
            projectId: session.projectId,
            scopes: req.body.scopes,
            mode: req.body.mode,
            ...(req.body.name === undefined ? {} : { name: req.body.name }),
            ...(expiresInMs === undefined ? {} : { expiresInMs }),
          },
          session.userId,
        );
        return { status: 201, body: { ...made.view, key: made.key } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/api-keys/{id}',
      summary: 'Revoke an API key of the selected project; it is a 401 from then on',
      description: rolesNote('api_keys:manage'),
      tag: TAG,
      auth: 'session',
      params: z.strictObject({ id: z.string().min(1).max(64) }),
      responses: {
        204: { description: 'Revoked.' },
        404: { description: 'No such key in the selected project.' },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        requirePermission(session, 'api_keys:manage');
        await keys.revoke(req.params.id, session.userId, session.projectId);
        return { status: 204 };
      },
    }),
  ];
}
