/** Builds the reputation capability from the kernel (composition root helper). */
import { createCursorStore } from '../events/cursors.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import type { KeyMode } from '../platform/db/tables.js';
import { createReputationCenter } from './center/center.js';
import { createReputationProjector } from './center/projector.js';
import { createReputationStore } from './center/store.js';
import { createReputationService } from './service.js';

export interface ReputationPorts {
  readonly events: Pick<EventService, 'rowsAfter' | 'onAppended'>;
  readonly emails: { messageMode(messageId: string): KeyMode | undefined };
  readonly analytics: { laneOf(messageId: string, recipient: string): string | undefined };
}

export function buildReputation(kernel: Kernel, ports: ReputationPorts) {
  const store = createReputationStore(kernel.db);
  const projector = createReputationProjector({
    db: kernel.db,
    store,
    cursors: createCursorStore(kernel.db),
    rowsAfter: (afterId, limit) => ports.events.rowsAfter(afterId, limit),
    messageMode: (messageId) => ports.emails.messageMode(messageId),
    laneOf: (messageId, recipient) => ports.analytics.laneOf(messageId, recipient),
  });
  const center = createReputationCenter({ store, projector, thresholds: kernel.config.reputation });
  return createReputationService({ center, config: kernel.config.reputation });
}

export type Reputation = ReturnType<typeof buildReputation>;
