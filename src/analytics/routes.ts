/** `GET /v1/analytics` (spec §4.1, §2.8). */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { analyticsQuery, analyticsReport } from './schemas.js';
import type { AnalyticsService } from './service.js';

export function analyticsRoutes(analytics: AnalyticsService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/analytics',
      summary: 'Sending report of the key’s mode (live or test): totals, rates, per UTC day and per lane',
      tag: 'Analytics',
      auth: 'key',
      scope: 'analytics:read',
      query: analyticsQuery,
      responses: {
        200: {
          description:
            'The analytics report; a test key sees test traffic only, a live key live traffic only.',
          schema: analyticsReport,
        },
      },
      handler: async (req) => {
        // A test key is shown its test traffic, a live key the live traffic.
        const { projectId, mode } = requireKey(req.principal);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          body: await analytics.report(projectId, mode, req.query.days),
        };
      },
    }),
  ];
}
