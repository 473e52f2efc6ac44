/** Builds the templates service; the check reads domain and tracking status from the domains service. */
import type { DomainService } from '../domains/service.js';
import type { Kernel } from '../kernel.js';
import { createTemplateService } from './service.js';
import { createTemplateStore } from './store.js';

export function buildTemplates(kernel: Kernel, services: { domains: DomainService }) {
  return createTemplateService(
    createTemplateStore(kernel.db),
    {
      domainSummaries: (projectId) => services.domains.summaries(projectId),
      trackingDns: (projectId) => services.domains.trackingDns(projectId),
    },
    { maxBodyBytes: kernel.config.limits.max_body_bytes },
  );
}
