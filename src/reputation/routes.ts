/** `GET /v1/reputation` (spec §4.4). */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
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
  ];
}
