/** Every HTTP route of the process, gathered from the capabilities, plus the OpenAPI document. */
import { analyticsRoutes } from './analytics/routes.js';
import { approvalRoutes } from './approvals/routes.js';
import { accountRoutes } from './auth/account/routes.js';
import { accountSessionRoutes } from './auth/account/sessions-routes.js';
import { loginRoutes } from './auth/login/routes.js';
import { dashboardKeyRoutes } from './auth/keys-routes.js';
import { auditRoutes } from './audit/routes.js';
import { memberRoutes } from './members/routes.js';
import { twoFactorRoutes } from './members/two-factor.js';
import { historyRoutes } from './dashboard/history/routes.js';
import { audienceRoutes } from './audiences/routes.js';
import { broadcastRoutes } from './broadcasts/routes.js';
import { unsubscribeRoutes } from './broadcasts/unsubscribe-routes.js';
import { emailRoutes } from './emails/routes.js';
import { healthRoutes } from './health/routes.js';
import { inboundRoutes } from './inbound/routes.js';
import type { Kernel } from './kernel.js';
import { oauthDashboardRoutes } from './oauth/dashboard-routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { openApiDocument } from './platform/http/openapi.js';
import { defineRoute, type RouteSpec } from './platform/http/route.js';
import type { Services } from './services.js';
import { domainRoutes } from './domains/routes.js';
import { templateRoutes } from './templates/routes.js';
import { connectionRoutes } from './reputation/connections/routes.js';
import { reputationRoutes } from './reputation/routes.js';
import { statusRoutes } from './status/routes.js';
import { suppressionRoutes } from './suppressions/routes.js';
import { trackingRoutes } from './tracking/routes.js';
import { validationRoutes } from './validation/routes.js';
import { VERSION } from './version.js';
import { webhookRoutes } from './webhooks/routes.js';
import { webBroadcastRoutes } from './web/broadcast-routes.js';
import { webMessageRoutes } from './web/message-routes.js';
import { webProjectRoutes } from './web/project-routes.js';
import { webSessionRoutes } from './web/session-routes.js';

export function allRoutes(kernel: Kernel, services: Services): RouteSpec[] {
  const routes: RouteSpec[] = [...healthRoutes(services.health, VERSION)];
  routes.push(...suppressionRoutes(services.suppressions));
  routes.push(...domainRoutes(services.domains));
  routes.push(...templateRoutes(services.templates));
  routes.push(...emailRoutes(services.emails));
  routes.push(...webhookRoutes(services.webhooks.service));
  routes.push(...analyticsRoutes(services.analytics));
  routes.push(...inboundRoutes(services.inbound));
  routes.push(...loginRoutes(services.accounts.login, services.accounts.sessions, services.audit));
  routes.push(...accountRoutes(services.accounts.account));
  routes.push(...accountSessionRoutes(services.accounts.account));
  routes.push(...memberRoutes(services.accounts.members));
  routes.push(
    ...twoFactorRoutes(services.accounts.twoFactor, async (userId) => {
      const user = await services.accounts.users.findById(userId);
      return user !== undefined && user.totp_secret_sealed !== null;
    }),
  );
  routes.push(...dashboardKeyRoutes(services.keys));
  routes.push(...auditRoutes(services.audit));
  routes.push(...oauthRoutes(services.oauth));
  routes.push(...oauthDashboardRoutes(services.oauth));
  routes.push(...approvalRoutes(services.approvals));
  routes.push(...historyRoutes(services.history));
  routes.push(...trackingRoutes(services.tracking));
  routes.push(...validationRoutes(services.validation));
  routes.push(
    ...audienceRoutes(services.audiences, { importMaxBytes: kernel.config.broadcasts.import_max_bytes }),
  );
  routes.push(...broadcastRoutes(services.broadcasts));
  routes.push(...unsubscribeRoutes(services.broadcasts.unsubscribe));
  routes.push(...reputationRoutes(services.reputation));
  routes.push(...connectionRoutes(services.reputation.connections));
  routes.push(...statusRoutes(services.status));
  routes.push(
    ...webSessionRoutes(
      services.accounts.login,
      services.accounts.sessions,
      services.audit,
      services.web.cookies,
    ),
  );
  routes.push(...webProjectRoutes(services.projects));
  routes.push(
    ...webMessageRoutes({
      emails: services.emails,
      events: services.events,
      htmlOf: async (projectId, id) => (await services.history.detail(projectId, id))?.html,
      projects: services.projects,
    }),
  );
  routes.push(...webBroadcastRoutes(services.broadcasts, services.projects));
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
