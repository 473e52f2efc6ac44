/**
 * Builds the broadcasts capability: its store and service, the unsubscribe links and handler, and
 * the expansion engine (started by background.ts). The composition root calls this once.
 */
import type { Engine } from '../background.js';
import type { AudienceService } from '../audiences/service.js';
import type { EmailService } from '../emails/service.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { SuppressionService } from '../suppressions/service.js';
import type { AheadMessage } from '../delivery/compose/render-ahead.js';
import type { RawMessage } from '../delivery/compose/worker-queries.js';
import { Expansion } from './expansion.js';
import { Preparation } from './preparation.js';
import { createPreparationStore } from './preparation-store.js';
import { createBroadcastService, type PublishedTemplates } from './service.js';
import { createBroadcastStore } from './store.js';
import { createUnsubscribe } from './unsubscribe.js';
import { unsubscribeLinks } from './unsubscribe-headers.js';
import { unsubscribeKey } from './unsubscribe-token.js';

export function buildBroadcasts(
  kernel: Kernel,
  services: {
    events: EventService;
    audiences: AudienceService;
    emails: Pick<EmailService, 'commitMarketing'>;
    suppressions: Pick<SuppressionService, 'findSuppressed'>;
    domains: { isVerified(projectId: string, name: string): Promise<boolean> };
    templates: PublishedTemplates;
    /** Delivery's render threads, for the messages of a broadcast prepared ahead. */
    renderAhead: (message: AheadMessage) => Promise<RawMessage | undefined>;
  },
) {
  const { config, db } = kernel;
  const store = createBroadcastStore(db);
  const key = unsubscribeKey(kernel.masterKey);
  const prepared = createPreparationStore(db, kernel.store.sqlite);
  let expansion: Expansion | null = null;
  let preparation: Preparation | null = null;
  const service = createBroadcastService({
    db,
    store,
    audiences: services.audiences,
    domains: services.domains,
    templates: services.templates,
    wake: () => {
      expansion?.wake();
      // A broadcast scheduled, moved or cancelled: its renderings may be swept.
      preparation?.wake(true);
    },
  });
  services.audiences.setInUseCheck((projectId, audienceId) => store.audienceInUse(projectId, audienceId));
  const unsubscribe = createUnsubscribe({ key, store, audiences: services.audiences });
  return {
    ...service,
    unsubscribe,
    /** Retention of prepared renderings whose message never ended (`retention.messages_days`). */
    purgePreparedBefore: (cutoff: number) => prepared.purgeBefore(cutoff),
    /** Starts the expansion of scheduled broadcasts (background.ts). */
    start(): Engine {
      // Said when the expansion starts (serve), not whenever services are built: one-shot commands
      // (init, admin) keep their standard error for what they did.
      if (!config.server.public_url.startsWith('https://')) {
        kernel.log.warn(
          { public_url: config.server.public_url },
          'server.public_url is not https: broadcast messages carry List-Unsubscribe without List-Unsubscribe-Post (RFC 8058 needs an https link)',
        );
      }
      const links = unsubscribeLinks({
        key,
        publicUrl: config.server.public_url,
        bounceSubdomain: config.delivery.bounce_subdomain,
      });
      const log = kernel.log.child({ capability: 'broadcasts' });
      const ahead = new Preparation({
        store,
        prepared,
        audiences: services.audiences,
        suppressions: services.suppressions,
        templates: services.templates,
        render: services.renderAhead,
        links,
        leadMs: config.broadcasts.prepare_ahead * 1000,
        // Enough contacts at once to keep every render thread fed (marketing-priority slots).
        batch: Math.max(config.broadcasts.expansion_batch, 64),
        maxBodyBytes: config.limits.max_body_bytes,
        log,
      });
      const running = new Expansion({
        db,
        store,
        prepared,
        onFinished: () => ahead.wake(true),
        audiences: services.audiences,
        suppressions: services.suppressions,
        domains: services.domains,
        templates: services.templates,
        emails: services.emails,
        events: services.events,
        backlog: () => store.marketingBacklog(Date.now()),
        links,
        batch: config.broadcasts.expansion_batch,
        queueAhead: config.broadcasts.queue_ahead,
        maxBodyBytes: config.limits.max_body_bytes,
        log,
      });
      expansion = running;
      preparation = ahead;
      running.start();
      ahead.start();
      return {
        name: 'broadcasts',
        stop: async () => {
          await Promise.all([running.stop(), ahead.stop()]);
          expansion = null;
          preparation = null;
        },
      };
    },
  };
}

export type Broadcasts = ReturnType<typeof buildBroadcasts>;
