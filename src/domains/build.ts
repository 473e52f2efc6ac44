/** Builds the domains service from the kernel; the composition root calls this once. */
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import { createDnsResolver } from '../platform/dns/resolver.js';
import type { ProjectService } from '../projects/service.js';
import { createDomainService } from './service.js';
import { createDomainStore } from './store.js';

export function buildDomains(kernel: Kernel, services: { events: EventService; projects: ProjectService }) {
  return createDomainService({
    store: createDomainStore(kernel.db),
    config: kernel.config,
    masterKey: kernel.masterKey,
    resolver: createDnsResolver(kernel.config),
    events: services.events,
    projects: services.projects,
    log: kernel.log,
    notifications: kernel.store.notifications,
  });
}
