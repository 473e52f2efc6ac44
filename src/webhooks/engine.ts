/** Starts the webhook dispatcher (composition root helper); hosts resolve as `host-lookup.ts` says unless a test supplies `lookup`. */
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { Webhooks } from './build.js';
import { startWebhookDispatcher } from './dispatcher.js';
import type { MessageMode, MessageModes } from '../emails/model.js';
import { webhookHostLookup } from './host-lookup.js';
import { createWebhookSender, type HostLookup } from './sender.js';
import { webhookTrust } from './trust.js';

export function startWebhooks(
  kernel: Kernel,
  webhooks: Webhooks,
  deps: { events: EventService; emails: { messageMode: MessageMode; messageModes: MessageModes } },
  lookup?: HostLookup,
) {
  const { events, emails } = deps;
  return startWebhookDispatcher({
    db: kernel.db,
    sqlite: kernel.store.sqlite,
    store: webhooks.store,
    cursors: webhooks.cursors,
    events,
    messageMode: (messageId) => emails.messageMode(messageId),
    ...(kernel.store.engine === 'postgresql' ? { messageModes: (ids) => emails.messageModes(ids) } : {}),
    webhooks: webhooks.service,
    send: createWebhookSender({
      lookup: lookup ?? webhookHostLookup(kernel.config),
      ca: webhookTrust(kernel.config.webhooks),
    }),
    config: kernel.config.webhooks,
    log: kernel.log.child({ capability: 'webhooks' }),
  });
}
