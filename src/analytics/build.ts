/** Builds the analytics capability from the kernel (composition root helper). */
import type { Kernel } from '../kernel.js';
import type { MessageMode } from '../emails/model.js';
import { createAnalyticsProjector } from './projector.js';
import { createAnalyticsService } from './service.js';
import { createAnalyticsStore } from './store.js';

export function buildAnalytics(kernel: Kernel, services: { emails: { messageMode: MessageMode } }) {
  const projector = createAnalyticsProjector(
    kernel.store.sqlite,
    (messageId) => services.emails.messageMode(messageId),
    kernel.log.child({ capability: 'analytics' }),
  );
  return createAnalyticsService({ store: createAnalyticsStore(kernel.store.sqlite), projector });
}
