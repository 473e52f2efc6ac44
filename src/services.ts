/**
 * The composition root: every capability's service, built in dependency order from the kernel.
 * A capability reaches another only through the service object built here.
 */
import { buildAnalytics } from './analytics/build.js';
import { buildAudiences } from './audiences/build.js';
import { createSendHolds } from './approvals/hold.js';
import { createApprovalService } from './approvals/service.js';
import { createApprovalStore } from './approvals/store.js';
import { kyselyPolicyLookup, sqlitePolicyLookup } from './approvals/store-policy.js';
import { buildBroadcasts } from './broadcasts/build.js';
import { BulkActivity } from './platform/bulk-activity.js';
import { createAuditService } from './audit/service.js';
import { createDeliveryService } from './delivery/service.js';
import { buildDomains } from './domains/build.js';
import { buildAccounts } from './auth/build.js';
import { buildHistory } from './dashboard/history/build.js';
import { createKeyService } from './auth/service.js';
import { createKeyStore } from './auth/store.js';
import { buildEmails } from './emails/build.js';
import { createEventService } from './events/service.js';
import { createHealthRegistry } from './health/registry.js';
import { buildInbound } from './inbound/build.js';
import type { Kernel } from './kernel.js';
import { buildOAuth } from './oauth/build.js';
import { parseDuration } from './platform/config/duration.js';
import { createProjectService } from './projects/service.js';
import { createProjectStore } from './projects/store.js';
import { buildReputation } from './reputation/build.js';
import { buildStatus } from './status/build.js';
import { createSuppressionService } from './suppressions/service.js';
import { createSuppressionStore } from './suppressions/store.js';
import { createSystemMail } from './system-mail/service.js';
import { buildTemplates } from './templates/build.js';
import { buildTracking, buildTrackingSettings } from './tracking/build.js';
import { buildValidation } from './validation/build.js';
import { buildWebhooks } from './webhooks/build.js';
import { buildWeb } from './web/build.js';

export function buildServices(kernel: Kernel) {
  const { db } = kernel;
  const health = createHealthRegistry();
  const audit = createAuditService(db);
  const projects = createProjectService(createProjectStore(db), audit);
  const keys = createKeyService(createKeyStore(db, kernel.store), projects, audit);
  const events = createEventService(db, kernel.store);
  const suppressions = createSuppressionService(createSuppressionStore(db, kernel.store), {
    testDomain: kernel.config.sandbox.test_domain,
  });
  const domains = buildDomains(kernel, { events, projects });
  const trackingSettings = buildTrackingSettings(kernel, { domains });
  const templates = buildTemplates(kernel, { domains, tracking: trackingSettings });
  const approvalStore = createApprovalStore(db);
  const holds = createSendHolds(
    approvalStore,
    kernel.store.engine === 'sqlite'
      ? sqlitePolicyLookup(kernel.store.sqlite)
      : kyselyPolicyLookup(approvalStore),
    parseDuration(kernel.config.approvals.expire_after),
  );
  const emails = buildEmails(kernel, { events, projects, suppressions, domains, templates, holds });
  const tracking = buildTracking(kernel, { settings: trackingSettings, events, emails });
  const systemMail = createSystemMail({ config: kernel.config, projects, domains, emails, log: kernel.log });
  const accounts = buildAccounts(kernel, { projects, systemMail, audit });
  const oauth = buildOAuth(kernel, {
    projects,
    audit,
    member: async (userId, organizationId) => {
      const row = await accounts.memberStore.findByUser(userId, organizationId);
      return row && { email: row.email };
    },
  });
  const approvals = createApprovalService({
    store: approvalStore,
    held: emails.held,
    audit,
    log: kernel.log.child({ capability: 'approvals' }),
  });
  const history = buildHistory(kernel);
  const webhooks = buildWebhooks(kernel, { audit, emails });
  const analytics = buildAnalytics(kernel, { emails, events });
  // Before delivery: it asks reputation which source address a project's mail leaves from.
  const reputation = buildReputation(kernel, { events, emails, analytics, audit });
  // Marketing delivery under way: the derived views' background runs wait (platform/bulk-activity.ts).
  const bulk = new BulkActivity();
  const delivery = createDeliveryService(kernel, {
    bulk,
    events,
    admissions: emails,
    suppressions,
    domains,
    health,
    sources: reputation.sources,
    tracking,
  });
  const audiences = buildAudiences(kernel, { events });
  const broadcasts = buildBroadcasts(kernel, {
    events,
    audiences,
    emails,
    suppressions,
    domains,
    templates,
    renderAhead: (message) => delivery.renderAhead(message),
  });
  const inbound = buildInbound(kernel, {
    events,
    suppressions,
    health,
    domains,
    emails,
    delivery,
    unsubscribe: broadcasts.unsubscribe,
  });
  const validation = buildValidation(kernel, { suppressions });
  const status = buildStatus(kernel, {
    health,
    delivery,
    webhooks: webhooks.service,
    mailer: { send: (mail) => systemMail.send({ ...mail, tags: { kind: mail.kind } }) },
  });
  return {
    health,
    audit,
    projects,
    keys,
    events,
    suppressions,
    emails,
    webhooks,
    analytics,
    domains,
    templates,
    delivery,
    inbound,
    tracking,
    systemMail,
    accounts,
    oauth,
    approvals,
    history,
    validation,
    audiences,
    broadcasts,
    reputation,
    status,
    bulk,
    web: buildWeb(kernel),
  };
}

export type Services = ReturnType<typeof buildServices>;
