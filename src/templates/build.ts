/**
 * Builds the templates service; the check reads domain status from the domains service and the
 * tracking host's DNS from tracking (a project's custom domain) or domains (the default host).
 */
import type { DomainService } from '../domains/service.js';
import type { Kernel } from '../kernel.js';
import { createTemplateService } from './service.js';
import { createTemplateStore } from './store.js';

export function buildTemplates(
  kernel: Kernel,
  services: {
    domains: DomainService;
    tracking: { dnsState(projectId: string): Promise<{ domain: string; ok: boolean } | undefined> };
  },
) {
  return createTemplateService(
    createTemplateStore(kernel.db),
    {
      domainSummaries: (projectId) => services.domains.summaries(projectId),
      trackingDns: async (projectId) =>
        (await services.tracking.dnsState(projectId)) ?? (await services.domains.trackingDns(projectId)),
    },
    { maxBodyBytes: kernel.config.limits.max_body_bytes },
  );
}
