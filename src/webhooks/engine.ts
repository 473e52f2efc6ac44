/**
 * Starts the webhook engines (composition root helpers): the fan-out, a singleton, and the
 * dispatcher, on every node. Hosts resolve as `host-lookup.ts` says unless a test supplies `lookup`.
 */
import type { MessageMode, MessageModes } from '../emails/model.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { Webhooks } from './build.js';
import { startWebhookDispatcher } from './dispatcher.js';
import { startWebhookFanOut } from './fan-out-engine.js';
import { webhookHostLookup } from './host-lookup.js';
import { createWebhookSender, type HostLookup } from './sender.js';
import { webhookTrust } from './trust.js';

export function startWebhookFanOutEngine(
  kernel: Kernel,
  webhooks: Webhooks,
  deps: { events: EventService; emails: { messageMode: MessageMode; messageModes: MessageModes } },
) {
  const { events, emails } = deps;
  return startWebhookFanOut({
    db: kernel.db,
    sqlite: kernel.store.sqlite,
    store: webhooks.store,
    cursors: webhooks.cursors,
    events,
    messageMode: (messageId) => emails.messageMode(messageId),
    ...(kernel.store.engine === 'postgresql' ? { messageModes: (ids) => emails.messageModes(ids) } : {}),
    notifications: kernel.store.notifications,
    log: kernel.log.child({ capability: 'webhooks' }),
  });
}

export function startWebhooks(kernel: Kernel, webhooks: Webhooks, lookup?: HostLookup) {
  return startWebhookDispatcher({
    db: kernel.db,
    store: webhooks.store,
    notifications: kernel.store.notifications,
    webhooks: webhooks.service,
    send: createWebhookSender({
      lookup: lookup ?? webhookHostLookup(kernel.config),
      ca: webhookTrust(kernel.config.webhooks),
    }),
    config: kernel.config.webhooks,
    log: kernel.log.child({ capability: 'webhooks' }),
  });
}
