/**
 * The status engine of `posthorn serve`. On every node: measures the components every
 * `status.check_interval` (an outage counts once two measurements in a row agree: components/confirm.ts)
 * and keeps the snapshot this node serves current (changes the command line
 * or another node writes are noticed within a second by the update sequence, a one-row indexed
 * read). On one node at a time (`startStatusLeader`, under the engine's lock on PostgreSQL): opens
 * and resolves automatic incidents from that node's measurements, starts and ends maintenance
 * windows on time, and runs the notifier, so that nothing is opened or announced twice.
 */
import type { Engine } from '../background.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import type { StatusDeps } from './build.js';
import { createAutoIncidents } from './components/auto-incidents.js';
import { createConfirmer } from './components/confirm.js';
import { createMeasurer, type Measurements } from './components/measure.js';
import type { IncidentService } from './incidents/service.js';
import { startNotifier } from './notices/notifier.js';
import type { SubscriptionService } from './subscriptions/service.js';
import type { Snapshot } from './views/snapshot.js';

const SEQ_POLL_MS = 1000;

/** What the leading node adds to each check of its node's engine. */
interface LeaderHooks {
  beforeCheck(now: number): Promise<void>;
  afterMeasure(measurements: Measurements, now: number): Promise<void>;
  refreshed(): void;
  idle(): Promise<void>;
}

export type StatusEngine = Engine & {
  wake(): void;
  idle(): Promise<void>;
  /** Runs `hooks` in each check while the leader part runs here; returns how to stop. */
  lead(hooks: LeaderHooks): () => void;
};

export function startStatusEngine(
  kernel: Kernel,
  parts: { incidents: IncidentService; snapshot: Snapshot },
  deps: StatusDeps,
): StatusEngine {
  const { config } = kernel;
  const log = kernel.log.child({ capability: 'status' });
  const { incidents, snapshot } = parts;
  const measurer = createMeasurer({
    config,
    health: deps.health,
    delivery: deps.delivery,
    webhooks: deps.webhooks,
  });
  // An outage is shown and acted on once two consecutive measurements agree; recovery at once.
  const confirmer = createConfirmer();
  let leader: LeaderHooks | undefined;

  let knownSeq = -1;
  let stopped = false;
  let running: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    const seq = await incidents.lastSeq();
    if (seq === knownSeq) return;
    knownSeq = seq;
    await snapshot.reload();
    leader?.refreshed();
  }

  async function check(): Promise<void> {
    const now = Date.now();
    await leader?.beforeCheck(now);
    await refresh();
    const measurements = confirmer.confirm(await measurer.measure(now));
    snapshot.setMeasurements(measurements, now);
    await leader?.afterMeasure(measurements, now);
    await refresh();
  }

  const run = (work: () => Promise<void>) => {
    if (stopped) return;
    const previous = running ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(work)
      .catch((error: unknown) => log.error({ err: error }, 'status check failed'))
      .finally(() => {
        if (running === next) running = undefined;
      });
    running = next;
  };

  const off = incidents.onChange(() => run(refresh));
  run(check);
  const checkTimer = setInterval(() => run(check), parseDuration(config.status.check_interval));
  const seqTimer = setInterval(() => run(refresh), SEQ_POLL_MS);
  checkTimer.unref();
  seqTimer.unref();

  return {
    name: 'status',
    wake: () => run(check),
    async idle(): Promise<void> {
      while (running) await running;
      await leader?.idle();
    },
    lead(hooks: LeaderHooks): () => void {
      leader = hooks;
      // The leader hears of what is already shown (an update written while no node led).
      hooks.refreshed();
      run(check);
      return () => {
        if (leader === hooks) leader = undefined;
      };
    },
    async stop(): Promise<void> {
      stopped = true;
      off();
      clearInterval(checkTimer);
      clearInterval(seqTimer);
      await running;
      measurer.close();
    },
  };
}

/**
 * The status work one node does for all (under the `status` engine lock on PostgreSQL): automatic
 * incidents, maintenance windows and the notifier, run in the checks of this node's `engine`.
 */
export function startStatusLeader(
  kernel: Kernel,
  engine: StatusEngine,
  parts: { incidents: IncidentService; subscriptions: SubscriptionService; snapshot: Snapshot },
  deps: StatusDeps,
): Engine {
  const { config } = kernel;
  const log = kernel.log.child({ capability: 'status' });
  const { incidents, snapshot } = parts;
  const auto = createAutoIncidents({
    policy: {
      enabled: config.status.auto_incidents,
      openAfterMs: parseDuration(config.status.auto_incident_after),
      resolveAfterMs: parseDuration(config.status.auto_resolve_after),
    },
    incidents,
    log,
  });
  const notifier = startNotifier({
    db: kernel.db,
    incidents: incidents.store,
    subscriptions: parts.subscriptions,
    mailer: deps.mailer,
    deliver: deps.webhooks.deliver,
    masterKey: kernel.masterKey,
    title: config.status.title,
    pageUrl: `${config.server.public_url.replace(/\/+$/, '')}/status`,
    timeoutMs: deps.webhooks.timeoutMs,
    retryScheduleMs: config.status.retry_schedule.map(parseDuration),
    log,
  });
  const release = engine.lead({
    beforeCheck: async (now) => {
      await incidents.advanceMaintenance(now);
    },
    afterMeasure: (measurements, now) => auto.follow(measurements, snapshot.open(), now),
    refreshed: () => notifier.wake(),
    idle: () => notifier.idle(),
  });
  return {
    name: 'status-leader',
    async stop(): Promise<void> {
      release();
      await notifier.stop();
    },
  };
}
