/** Builds the webhooks capability from the kernel (composition root helper). */
import type { AuditService } from '../audit/service.js';
import type { MessageMode, MessageModes } from '../emails/model.js';
import { createCursorStore } from '../events/cursors.js';
import type { Kernel } from '../kernel.js';
import { webhookHostLookup } from './host-lookup.js';
import { createWebhookSender } from './sender.js';
import { createWebhookService } from './service.js';
import { createWebhookStore } from './store.js';
import { webhookTrust } from './trust.js';

export function buildWebhooks(
  kernel: Kernel,
  deps: { audit: AuditService; emails: { messageMode: MessageMode; messageModes: MessageModes } },
) {
  const store = createWebhookStore(kernel.db, kernel.config.storage.engine);
  const service = createWebhookService({
    store,
    audit: deps.audit,
    config: kernel.config.webhooks,
    masterKey: kernel.masterKey,
    messageMode: (messageId) => deps.emails.messageMode(messageId),
    ...(kernel.store.engine === 'postgresql' ? { messageModes: (ids) => deps.emails.messageModes(ids) } : {}),
    send: createWebhookSender({
      lookup: webhookHostLookup(kernel.config),
      ca: webhookTrust(kernel.config.webhooks),
    }),
  });
  return { service, store, cursors: createCursorStore(kernel.db) };
}

export type Webhooks = ReturnType<typeof buildWebhooks>;
