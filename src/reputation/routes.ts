/** `GET /v1/reputation` and `POST /v1/dedicated-ips/requests` (spec §4.4). */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { dedicatedIpRequest, dedicatedIpRequestView } from './dedicated-ips/schemas.js';
import { reputationReport } from './schemas.js';
import type { ReputationService } from './service.js';

const TAG = 'Reputation';

export function reputationRoutes(reputation: ReputationService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/reputation',
      summary: 'Reputation center: bounce and complaint rates per sending domain and lane, blocks, states',
      tag: TAG,
      auth: 'key',
      scope: 'reputation:read',
      responses: {
        200: {
          description:
            'Rates of the last 1, 7 and 30 days from Posthorn’s own delivery events (live traffic), with thresholds and states.',
          schema: reputationReport,
        },
      },
      handler: async (req) => {
        const { projectId } = requireKey(req.principal);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          body: await reputation.report(projectId),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dedicated-ips/requests',
      summary: 'Ask for a dedicated IP; an operator reviews the request',
      tag: TAG,
      auth: 'key',
      scope: 'reputation:write',
      body: dedicatedIpRequest,
      responses: {
        202: {
          description:
            'Recorded for operator review (pending); the review, the address and its warm-up plan show in GET /v1/reputation.',
          schema: dedicatedIpRequestView,
        },
        409: { description: 'A request is already pending, or the project already has a dedicated IP.' },
      },
      handler: async (req) => {
        const { projectId } = requireKey(req.principal);
        return { status: 202, body: await reputation.dedicatedIps.request(projectId, req.body) };
      },
    }),
  ];
}
