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
      summary: 'Sending report: totals, rates, one entry per UTC day, and per provider lane',
      tag: 'Analytics',
      auth: 'key',
      scope: 'analytics:read',
      query: analyticsQuery,
      responses: { 200: { description: 'The analytics report.', schema: analyticsReport } },
      handler: async (req) => ({
        status: 200,
        headers: { 'Cache-Control': 'no-store' },
        body: await analytics.report(requireKey(req.principal).projectId, req.query.days),
      }),
    }),
  ];
}
