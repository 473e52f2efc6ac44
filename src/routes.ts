/** Every HTTP route of the process, gathered from the capabilities, plus the OpenAPI document. */
import { analyticsRoutes } from './analytics/routes.js';
import { emailRoutes } from './emails/routes.js';
import { healthRoutes } from './health/routes.js';
import { inboundRoutes } from './inbound/routes.js';
import type { Kernel } from './kernel.js';
import { openApiDocument } from './platform/http/openapi.js';
import { defineRoute, type RouteSpec } from './platform/http/route.js';
import type { Services } from './services.js';
import { domainRoutes } from './domains/routes.js';
import { templateRoutes } from './templates/routes.js';
import { suppressionRoutes } from './suppressions/routes.js';
import { trackingRoutes } from './tracking/routes.js';
import { validationRoutes } from './validation/routes.js';
import { VERSION } from './version.js';
import { webhookRoutes } from './webhooks/routes.js';

export function allRoutes(kernel: Kernel, services: Services): RouteSpec[] {
  const routes: RouteSpec[] = [...healthRoutes(services.health, VERSION)];
  routes.push(...suppressionRoutes(services.suppressions));
  routes.push(...domainRoutes(services.domains));
  routes.push(...templateRoutes(services.templates));
  routes.push(...emailRoutes(services.emails));
  routes.push(...webhookRoutes(services.webhooks.service));
  routes.push(...analyticsRoutes(services.analytics));
  routes.push(...inboundRoutes(services.inbound));
  routes.push(...trackingRoutes(services.tracking));
  routes.push(...validationRoutes(services.validation));
  let document: unknown;
  routes.push(
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 description',
      tag: 'Meta',
      auth: 'none',
      responses: { 200: { description: 'The OpenAPI document.' } },
      handler: () => {
        document ??= openApiDocument(routes, VERSION, kernel.config.server.public_url);
        return { status: 200, body: document };
      },
    }),
  );
  return routes;
}
