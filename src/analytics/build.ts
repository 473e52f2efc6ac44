/** Builds the analytics capability from the kernel (composition root helper). */
import type { MessageMode, MessageModes } from '../emails/model.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import { createAnalyticsProjector } from './projector.js';
import { createPostgresAnalyticsProjector } from './projector-pg.js';
import { createAnalyticsService } from './service.js';
import { createAnalyticsStore } from './store.js';

export function buildAnalytics(
  kernel: Kernel,
  services: {
    emails: { messageMode: MessageMode; messageModes: MessageModes };
    events: Pick<EventService, 'rowsAfter'>;
  },
) {
  const log = kernel.log.child({ capability: 'analytics' });
  // The projection's storage port: SQLite's prepared statements, or PostgreSQL's Kysely batch.
  const projector =
    kernel.store.engine === 'postgresql'
      ? createPostgresAnalyticsProjector({
          db: kernel.db,
          rowsAfter: (afterId, limit, executor) => services.events.rowsAfter(afterId, limit, executor),
          messageModes: (ids) => services.emails.messageModes(ids),
          log,
        })
      : createAnalyticsProjector(
          kernel.store.sqlite,
          (messageId) => services.emails.messageMode(messageId),
          log,
        );
  return createAnalyticsService({
    store: createAnalyticsStore(kernel.store, kernel.db),
    projector,
    reportWaitMs: kernel.store.engine === 'postgresql' ? 10_000 : undefined,
  });
}
