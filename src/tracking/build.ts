/**
 * Builds tracking from the kernel in two steps, as the composition root needs them: the settings
 * first (the template check and composition read them), then the service with the recorder, once
 * the emails capability (whose message facts hits are recorded with) exists.
 */
import type { MessageFacts } from '../emails/store-facts.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { createDnsResolver } from '../platform/dns/resolver.js';
import { HitRecorder } from './recorder.js';
import { createTrackingService } from './service.js';
import { createTrackingSettings, type TrackingSettings } from './settings.js';
import { createTrackingStore } from './store.js';
import { trackingTokenKey } from './token.js';

export function buildTrackingSettings(
  kernel: Kernel,
  services: { domains: { summaries(projectId: string): Promise<readonly { name: string }[]> } },
): TrackingSettings {
  return createTrackingSettings({
    store: createTrackingStore(kernel.db, kernel.store.sqlite, kernel.store.engine),
    config: kernel.config,
    resolver: createDnsResolver(kernel.config),
    projectDomains: async (projectId) => (await services.domains.summaries(projectId)).map((d) => d.name),
    log: kernel.log.child({ capability: 'tracking' }),
  });
}

export function buildTracking(
  kernel: Kernel,
  services: {
    settings: TrackingSettings;
    events: EventService;
    emails: { messageFacts(ids: readonly string[]): Promise<Map<string, MessageFacts>> };
  },
) {
  const store = createTrackingStore(kernel.db, kernel.store.sqlite, kernel.store.engine);
  const recorder = new HitRecorder({
    db: kernel.db,
    sqlite: kernel.store.sqlite,
    store,
    events: services.events,
    messageFacts: (ids) => services.emails.messageFacts(ids),
    scannerWindowMs: parseDuration(kernel.config.tracking.scanner_window),
    log: kernel.log.child({ capability: 'tracking' }),
  });
  return createTrackingService({
    settings: services.settings,
    store,
    recorder,
    tokenKey: trackingTokenKey(kernel.masterKey),
  });
}
