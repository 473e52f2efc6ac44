/** Builds the audiences capability: its store and service over the kernel's database and the event log. */
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import { createAudienceService } from './service.js';
import { createAudienceStore } from './store.js';

export function buildAudiences(kernel: Kernel, services: { events: EventService }) {
  return createAudienceService({
    db: kernel.db,
    store: createAudienceStore(kernel.db),
    events: services.events,
  });
}
