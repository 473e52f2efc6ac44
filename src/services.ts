/**
 * The composition root: every capability's service, built in dependency order from the kernel.
 * A capability reaches another only through the service object built here.
 */
import { buildAnalytics } from './analytics/build.js';
import { createAuditService } from './audit/service.js';
import { createKeyService } from './auth/service.js';
import { createKeyStore } from './auth/store.js';
import { buildEmails } from './emails/build.js';
import { createEventService } from './events/service.js';
import { createHealthRegistry } from './health/registry.js';
import type { Kernel } from './kernel.js';
import { createProjectService } from './projects/service.js';
import { createProjectStore } from './projects/store.js';
import { createSuppressionService } from './suppressions/service.js';
import { createSuppressionStore } from './suppressions/store.js';
import { buildWebhooks } from './webhooks/build.js';

export function buildServices(kernel: Kernel) {
  const { db } = kernel;
  const health = createHealthRegistry();
  const audit = createAuditService(db);
  const projects = createProjectService(createProjectStore(db), audit);
  const keys = createKeyService(createKeyStore(db), projects, audit);
  const events = createEventService(db);
  const suppressions = createSuppressionService(createSuppressionStore(db));
  // TEMPORARY stand-ins until the domains and templates services land (issue 3).
  const domains = {
    isVerified: async (projectId: string, name: string) =>
      (await db
        .selectFrom('domains')
        .select('id')
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .where('status', '=', 'verified')
        .executeTakeFirst()) !== undefined,
  };
  const templates = {
    renderForSend: async (): Promise<never> => {
      throw new Error('templates are not available yet');
    },
  };
  const emails = buildEmails(kernel, { events, projects, suppressions, domains, templates });
  const webhooks = buildWebhooks(kernel, { audit });
  const analytics = buildAnalytics(kernel);
  return { health, audit, projects, keys, events, suppressions, emails, webhooks, analytics };
}

export type Services = ReturnType<typeof buildServices>;
