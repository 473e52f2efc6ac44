/** Builds the reputation capability from the kernel (composition root helper). */
import type { AuditService } from '../audit/service.js';
import { createCursorStore } from '../events/cursors.js';
import { unreadBeyondCursor } from '../events/log-pg.js';
import type { EventService } from '../events/service.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { warmupPlans } from '../platform/config/sections/reputation.js';
import type { KeyMode } from '../platform/db/tables.js';
import { createReputationCenter } from './center/center.js';
import { createReputationProjector, REPUTATION_CURSOR } from './center/projector.js';
import { createReputationStore } from './center/store.js';
import { postmasterClient } from './connections/providers/postmaster.js';
import { sndsClient } from './connections/providers/snds.js';
import { createConnectionService } from './connections/service.js';
import { createConnectionStore } from './connections/store.js';
import { createDedicatedIpService } from './dedicated-ips/service.js';
import { DedicatedSources } from './dedicated-ips/source-policy.js';
import { createDedicatedIpStore } from './dedicated-ips/store.js';
import { createReputationService } from './service.js';

export interface ReputationPorts {
  readonly events: Pick<EventService, 'windowAfter' | 'onAppended'>;
  readonly emails: {
    messageMode(messageId: string): KeyMode | undefined;
    messageModes(messageIds: readonly string[]): Promise<Map<string, KeyMode>>;
    /** SQLite only: the lane on the job that carries a recipient. */
    recipientLane(messageId: string, recipient: string): string | undefined;
    recipientLanes(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>>;
  };
  readonly analytics: {
    laneOf(messageId: string, recipient: string): string | undefined;
    lanesOf(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>>;
  };
  readonly audit: AuditService;
}

export function buildReputation(kernel: Kernel, ports: ReputationPorts) {
  const store = createReputationStore(kernel.db);
  const projector = createReputationProjector({
    db: kernel.db,
    store,
    cursors: createCursorStore(kernel.db),
    windowAfter: (afterId, limit, types, executor) =>
      ports.events.windowAfter(afterId, limit, types, executor),
    ...(kernel.store.engine === 'sqlite' ? { sqlite: kernel.store.sqlite } : {}),
    // SQLite answers each lookup at once; PostgreSQL reads a page's modes and lanes in one query each.
    lookups:
      kernel.store.engine === 'postgresql'
        ? async (rows) => {
            const messages = rows.flatMap((row) => (row.message_id === null ? [] : [row.message_id]));
            const pairs = rows.flatMap((row) =>
              row.message_id === null || row.recipient === null
                ? []
                : [{ message_id: row.message_id, recipient: row.recipient }],
            );
            const [modes, lanes] = await Promise.all([
              ports.emails.messageModes(messages),
              ports.analytics.lanesOf(pairs),
            ]);
            // Those analytics has not recorded yet: the lane on the recipient's job.
            const missing = pairs.filter((p) => !lanes.has(`${p.message_id}\u0000${p.recipient}`));
            if (missing.length > 0)
              for (const [key, lane] of await ports.emails.recipientLanes(missing)) lanes.set(key, lane);
            return {
              messageMode: (messageId) => modes.get(messageId),
              laneOf: (messageId, recipient) => lanes.get(`${messageId}\u0000${recipient}`),
            };
          }
        : {
            messageMode: (messageId) => ports.emails.messageMode(messageId),
            // Analytics records the lane when it projects the delivery; while it waits for a
            // broadcast's delivery (platform/bulk-activity.ts), the job's own lane answers.
            laneOf: (messageId, recipient) =>
              ports.analytics.laneOf(messageId, recipient) ??
              ports.emails.recipientLane(messageId, recipient),
          },
  });
  const postgres = kernel.store.engine === 'postgresql';
  const center = createReputationCenter({
    store,
    projector,
    thresholds: kernel.config.reputation,
    ...(postgres
      ? { waiting: () => unreadBeyondCursor(kernel.db, REPUTATION_CURSOR), reportWaitMs: 10_000 }
      : {}),
  });
  const config = kernel.config.reputation;
  const ipStore = createDedicatedIpStore(kernel.db);
  const dedicatedIps = createDedicatedIpService({
    db: kernel.db,
    store: ipStore,
    audit: ports.audit,
    sourceIps: kernel.config.delivery.source_ips,
    plans: warmupPlans(config.warmup_plans),
    defaultPlan: config.default_warmup_plan,
  });
  const sources = new DedicatedSources(
    ipStore,
    kernel.config.delivery.source_ips,
    kernel.log.child({ capability: 'reputation' }),
  );
  const timeoutMs = parseDuration(config.provider_timeout);
  const connections = createConnectionService({
    store: createConnectionStore(kernel.db),
    masterKey: kernel.masterKey,
    clients: {
      provider_a_postmaster: postmasterClient({
        apiUrl: config.postmaster_api_url.replace(/\/+$/, ''),
        tokenUrl: config.postmaster_token_url,
        timeoutMs,
      }),
      provider_b_snds: sndsClient({ apiUrl: config.snds_api_url.replace(/\/+$/, ''), timeoutMs }),
    },
    log: kernel.log.child({ capability: 'reputation' }),
  });
  return createReputationService({ center, dedicatedIps, sources, connections, config });
}

export type Reputation = ReturnType<typeof buildReputation>;
