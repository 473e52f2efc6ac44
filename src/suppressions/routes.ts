/** `/v1/suppressions`: add (or update the reason), look up, remove, and list (spec §4.3). */
import { AppError } from '../platform/http/errors.js';
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { emailParams, listQuery, suppressionList, suppressionRecord, suppressionRequest } from './schemas.js';
import type { SuppressionService } from './service.js';

const TAG = 'Suppressions';

const notSuppressed = (email: string) =>
  new AppError('not_found', `${email} is not on the suppression list.`);

export function suppressionRoutes(suppressions: SuppressionService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/suppressions',
      summary: 'Suppress an address (or change the reason of one already suppressed)',
      tag: TAG,
      auth: 'key',
      scope: 'suppressions:write',
      body: suppressionRequest,
      responses: { 201: { description: 'The suppression record.', schema: suppressionRecord } },
      handler: async (req) => {
        const { projectId, mode } = requireKey(req.principal);
        const record = await suppressions.add({
          projectId,
          mode,
          email: req.body.email,
          reason: req.body.reason,
          source: 'api',
        });
        return { status: 201, body: record };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/suppressions',
      summary: "List suppressed addresses, newest first (the calling key's mode's list: live or test)",
      tag: TAG,
      auth: 'key',
      scope: 'suppressions:read',
      query: listQuery,
      responses: { 200: { description: 'One page of suppressions.', schema: suppressionList } },
      handler: async (req) => {
        const { projectId, mode } = requireKey(req.principal);
        return { status: 200, body: await suppressions.list(projectId, { ...req.query, mode }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/suppressions/{email}',
      summary: 'Look up one address',
      tag: TAG,
      auth: 'key',
      scope: 'suppressions:read',
      params: emailParams,
      responses: {
        200: { description: 'The address is suppressed.', schema: suppressionRecord },
        404: { description: 'The address is not suppressed.' },
      },
      handler: async (req) => {
        const { projectId, mode } = requireKey(req.principal);
        const record = await suppressions.get(projectId, req.params.email, mode);
        if (!record) throw notSuppressed(req.params.email);
        return { status: 200, body: record };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/suppressions/{email}',
      summary: 'Remove an address from the suppression list',
      tag: TAG,
      auth: 'key',
      scope: 'suppressions:write',
      params: emailParams,
      responses: {
        204: { description: 'Removed; the address may be sent to again.' },
        404: { description: 'The address is not suppressed.' },
      },
      handler: async (req) => {
        const { projectId, mode } = requireKey(req.principal);
        if (!(await suppressions.remove(projectId, req.params.email, mode)))
          throw notSuppressed(req.params.email);
        return { status: 204 };
      },
    }),
  ];
}
