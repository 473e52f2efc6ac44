/**
 * Builds the send API from the kernel and the services it depends on: its store, its limits and
 * the ports to domains, suppressions, templates and projects. The composition root calls this.
 */
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { ProjectService } from '../projects/service.js';
import type { SuppressionService } from '../suppressions/service.js';
import { createSendLimits } from './limits.js';
import { type SendHolds, sendPorts, type TemplateRenderer, type VerifiedDomainLookup } from './ports.js';
import { createReleaseCheck } from './release-check.js';
import { createEmailService } from './service.js';
import { createEmailStore } from './store.js';
import { messageFacts } from './store-facts.js';

export function buildEmails(
  kernel: Kernel,
  services: {
    events: EventService;
    projects: ProjectService;
    suppressions: SuppressionService;
    domains: VerifiedDomainLookup;
    templates: TemplateRenderer;
    /** Agent sends held for approval (src/approvals/hold.ts). */
    holds?: SendHolds;
  },
) {
  const store = createEmailStore(kernel.db, kernel.store.sqlite, kernel.store.engine);
  const ports = sendPorts(services);
  const limits = createSendLimits(
    kernel.config.limits,
    (projectId, dayStart) => store.countLiveSince(projectId, dayStart),
    kernel.config.sandbox.test_domain,
  );
  const service = createEmailService({
    db: kernel.db,
    sqlite: kernel.store.sqlite,
    config: kernel.config,
    store,
    events: services.events,
    limits,
    ports,
    ...(services.holds ? { holds: services.holds } : {}),
  });
  // The scheduler runs the acceptance checks again when a scheduled send is due.
  const checkRelease = createReleaseCheck(kernel.config.sandbox, ports);
  return {
    ...service,
    store,
    checkRelease,
    /** Event facts and delivery times of sent messages (tracking records opens and clicks with them). */
    messageFacts: (ids: readonly string[]) => messageFacts(kernel.db, ids),
  };
}

export type Emails = ReturnType<typeof buildEmails>;
