/** Starts the webhook dispatcher with the system resolver (composition root helper). */
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { Webhooks } from './build.js';
import { startWebhookDispatcher } from './dispatcher.js';
import { createWebhookSender, type HostLookup } from './sender.js';

export function startWebhooks(kernel: Kernel, webhooks: Webhooks, events: EventService, lookup?: HostLookup) {
  return startWebhookDispatcher({
    db: kernel.db,
    sqlite: kernel.store.sqlite,
    store: webhooks.store,
    cursors: webhooks.cursors,
    events,
    webhooks: webhooks.service,
    send: createWebhookSender(lookup ? { lookup } : {}),
    config: kernel.config.webhooks,
    log: kernel.log.child({ capability: 'webhooks' }),
  });
}
