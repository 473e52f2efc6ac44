/**
 * Builds the status area (composition root helper): incidents, subscriptions and the served
 * snapshot. Building starts nothing (the command line builds it too); `start` runs the engine.
 */
import type { HealthRegistry } from '../health/registry.js';
import type { Kernel } from '../kernel.js';
import type { WebhookService } from '../webhooks/service.js';
import type { AttemptCounts } from './components/deferrals.js';
import { type StatusEngine, startStatusEngine, startStatusLeader } from './engine.js';
import { createIncidentService } from './incidents/service.js';
import type { StatusMailer } from './subscriptions/mail-port.js';
import { createSubscriptionService } from './subscriptions/service.js';
import { createSnapshot } from './views/snapshot.js';

export interface StatusDeps {
  readonly health: HealthRegistry;
  readonly delivery: { attemptCountsAfter(afterId: number | undefined): Promise<AttemptCounts> };
  readonly webhooks: Pick<WebhookService, 'backlog' | 'checkTargetUrl' | 'deliver' | 'timeoutMs'>;
  readonly mailer: StatusMailer;
}

export function buildStatus(kernel: Kernel, deps: StatusDeps) {
  const incidents = createIncidentService(kernel.db);
  const subscriptions = createSubscriptionService({
    db: kernel.db,
    config: kernel.config,
    masterKey: kernel.masterKey,
    mailer: deps.mailer,
    checkTargetUrl: deps.webhooks.checkTargetUrl,
  });
  const snapshot = createSnapshot({
    incidents,
    title: kernel.config.status.title,
    publicUrl: kernel.config.server.public_url,
  });
  let engine: StatusEngine | undefined;
  return {
    incidents,
    subscriptions,
    snapshot,
    /** Every node: measures its components and keeps the snapshot it serves current. */
    start(): StatusEngine {
      engine = startStatusEngine(kernel, { incidents, snapshot }, deps);
      return engine;
    },
    /** One node at a time, after `start`: automatic incidents, maintenance, the notifier. */
    startLeader() {
      if (engine === undefined) throw new Error('status: start() before startLeader()');
      return startStatusLeader(kernel, engine, { incidents, subscriptions, snapshot }, deps);
    },
    /** Runs a check now and waits for it and the notifier's pass (tests). */
    async settle(): Promise<void> {
      engine?.wake();
      await engine?.idle();
    },
  };
}

export type Status = ReturnType<typeof buildStatus>;
