/**
 * `GET /health`: 200 while every checked component is operational or degraded, else 503. The
 * top-level status is `ok` when every component is operational (the contract), else the
 * worst component status; each component keeps its own operational | degraded | unavailable.
 */
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import type { HealthRegistry } from './registry.js';

const component = z.object({
  status: z.enum(['operational', 'degraded', 'unavailable']),
  detail: z.string().optional(),
});

const healthBody = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  version: z.string(),
  uptime_seconds: z.number(),
  components: z.record(z.string(), component),
});

export function healthRoutes(health: HealthRegistry, version: string): RouteSpec[] {
  const startedAt = Date.now();
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      summary: 'Readiness of the API, the database and the queue',
      tag: 'Health',
      auth: 'none',
      probe: true,
      responses: {
        200: { description: 'Every checked component is operational (or degraded).', schema: healthBody },
        503: { description: 'At least one checked component is unavailable.', schema: healthBody },
      },
      handler: async () => {
        const report = await health.report();
        return {
          status: report.status === 'unavailable' ? 503 : 200,
          headers: { 'Cache-Control': 'no-store' },
          body: {
            status: report.status === 'operational' ? 'ok' : report.status,
            version,
            uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
            components: report.components,
          },
        };
      },
    }),
  ];
}
